#include "cli/torch_hook.h"

namespace gpuscope::cli {
namespace {

// Starts torch.profiler when the interpreter starts (CPU + the GPU activity the build has:
// CUDA and ROCm builds both report through ProfilerActivity.CUDA), with shapes and Python
// stacks; exports at normal exit, sys.exit, an uncaught exception (atexit runs after the
// traceback), SIGINT and SIGTERM (the trace is written, then the signal's usual effect
// follows). Forked children (DataLoader workers) inherit the profiler object but never export:
// only the process that started it does. Any existing sitecustomize is imported first.
// --delay/--duration use SIGALRM (a program that sets its own alarms should not use them); the
// alarm is cancelled and the program's own SIGALRM handler put back when the window ends.
constexpr std::string_view kSiteCustomize =
    R"PY(# gpuscope run: profile this Python process with torch.profiler (written by gpuscope; do not edit)
import os
import sys

_HOOK_DIR = os.environ.get("GPUSCOPE_HOOK_DIR", "")


def _chain_previous_sitecustomize():
    import importlib.util
    for entry in sys.path:
        if not entry or os.path.abspath(entry) == os.path.abspath(_HOOK_DIR):
            continue
        candidate = os.path.join(entry, "sitecustomize.py")
        if os.path.isfile(candidate):
            spec = importlib.util.spec_from_file_location("_gpuscope_chained_sitecustomize", candidate)
            module = importlib.util.module_from_spec(spec)
            spec.loader.exec_module(module)
            return


def _start():
    out_dir = os.environ.get("GPUSCOPE_TRACE_DIR")
    if not out_dir:
        return
    try:
        import torch
        from torch.profiler import ProfilerActivity, profile
    except Exception:  # not a PyTorch program (or torch missing): nothing to profile
        return
    import atexit
    import signal
    import threading
    import time

    activities = [ProfilerActivity.CPU]
    try:
        if torch.cuda.is_available():
            activities.append(ProfilerActivity.CUDA)
    except Exception:
        pass
    # The profiler is prepared now (Kineto's set-up takes seconds on a busy machine: done inside
    # the window it would eat the window) and started now, or after --delay seconds of the
    # program's run.
    prof = profile(activities=activities, record_shapes=True, with_stack=True)
    prof.prepare_trace()
    state = {"started": None, "done": False, "pid": os.getpid()}
    lock = threading.RLock()  # finish() may run in the alarm's handler inside finish()
    born = time.time()

    def start():
        with lock:
            if state["started"] is None and not state["done"]:
                prof.start_trace()
                state["started"] = time.time()

    def finish():
        with lock:
            if state["done"] or os.getpid() != state["pid"]:
                return
            state["done"] = True
            if timed:  # no alarm may outlive the window (nor kill the exiting program)
                signal.setitimer(signal.ITIMER_REAL, 0)
                signal.signal(signal.SIGALRM, previous_alarm or signal.SIG_DFL)
            if state["started"] is None:
                sys.stderr.write("gpuscope: the program ended %.1f s after it started, before "
                                 "--delay %g: nothing was profiled\n" % (time.time() - born, delay))
                return
            try:
                prof.stop_trace()
                prof.export_chrome_trace(os.path.join(out_dir, "trace-%d.json" % os.getpid()))
            except Exception as e:  # report, never break the program's own exit
                sys.stderr.write("gpuscope: could not write the trace: %s\n" % e)

    delay = float(os.environ.get("GPUSCOPE_DELAY_S", "0") or 0)
    duration = float(os.environ.get("GPUSCOPE_DURATION_S", "0") or 0)
    timed = delay > 0 or duration > 0
    # A window is timed with SIGALRM: its handler runs in the main thread, where the profiler
    # must be started and stopped (from another thread, torch aborts).
    if timed:
        def on_alarm(signum, frame):
            if state["started"] is None:
                start()
                if duration > 0:
                    signal.setitimer(signal.ITIMER_REAL, duration)
            else:
                finish()

        previous_alarm = signal.signal(signal.SIGALRM, on_alarm)
    if delay > 0:
        signal.setitimer(signal.ITIMER_REAL, delay)
    else:
        start()
        if duration > 0:
            signal.setitimer(signal.ITIMER_REAL, duration)
    atexit.register(finish)

    def on_signal(signum, frame):
        finish()
        previous = handlers.get(signum)
        if callable(previous):
            previous(signum, frame)
        elif previous == signal.SIG_IGN:
            return
        else:
            signal.signal(signum, signal.SIG_DFL)
            os.kill(os.getpid(), signum)

    handlers = {}
    for sig in (signal.SIGINT, signal.SIGTERM):
        try:
            handlers[sig] = signal.getsignal(sig)
            signal.signal(sig, on_signal)
        except (ValueError, OSError):
            pass


_chain_previous_sitecustomize()
_start()
)PY";

}  // namespace

std::string_view TorchSiteCustomize() { return kSiteCustomize; }

}  // namespace gpuscope::cli

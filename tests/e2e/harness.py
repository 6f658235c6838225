"""The end-to-end tests' harness: the registry of tests, how the gpuscope binary is run, the
paths of the fixtures, and the runner that prints 'N passed, N failed'. Stdlib only.

Three groups, so that CI can run them differently (tests/CMakeLists.txt): the tests marked
@runs_programs profile real programs (`gpuscope run`, the demo); those also marked @timed judge
wall-clock time (the analysis' predictions against timed runs, a profiling window in seconds),
so they run alone (in the sanitizers' build they run beside the others, their timings not
judged: timings_judged()); every other test reads files. The file tests and the program tests that are
not @timed run beside other tests: their results do not depend on what else the machine is
doing. A test that is not marked and still starts a program with `gpuscope run` through run()
fails, naming the marker; one that starts it with subprocess is marked by hand."""
import argparse
import os
import sqlite3
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
DATA = os.path.join(os.path.dirname(HERE), "data")
PLANTED = os.path.join(os.path.dirname(HERE), "planted", "make_planted.py")
EXAMPLES = os.path.join(os.path.dirname(os.path.dirname(HERE)), "examples")
SAMPLES = os.path.join(os.path.dirname(os.path.dirname(HERE)), "..", "shared", "samples")
GPUSCOPE = None  # the binary under test (--gpuscope)
TESTS = []
_current = None  # the test now running (the guard in run() reads its marker)


class Skip(Exception):
    """A test that cannot run here (says why); the suite still passes."""


def test(fn):
    TESTS.append(fn)
    return fn


def runs_programs(fn):
    """Marks a test that profiles a real program (it is slower on a loaded machine, and its
    result the same). Stack it with @test."""
    fn.runs_programs = True
    return fn


def timed(fn):
    """Marks a test that profiles a real program and judges wall-clock time (a timing compared
    with a prediction or with another run, a window of seconds): it belongs to the group that
    runs alone, since another process on the cores would move its timings. Stack it with @test
    and @runs_programs."""
    fn.timed = True
    return runs_programs(fn)


def timings_judged():
    """False where the @timed tests run for their commands only (GPUSCOPE_E2E_UNTIMED=1: the
    sanitizers' build, whose job is memory errors in the same commands; there they run beside
    other tests, and what they measure of the programs' time is not judged)."""
    return os.environ.get("GPUSCOPE_E2E_UNTIMED", "0") != "1"


def run(*args, env=None):
    e = dict(os.environ, COLUMNS="120")
    e.update(env or {})
    r = subprocess.run([GPUSCOPE, *args], capture_output=True, text=True, env=e)
    # `gpuscope run` (the command word before any "--") that did not stop at its options (exit 2
    # before any program starts) ran a program. The guard sees what goes through run() only: a
    # test that starts gpuscope or a program with subprocess is marked by hand.
    ended = args.index("--") if "--" in args else len(args)
    command = [a for a in args[:ended] if not a.startswith("-")]
    asks = {"-h", "--help", "--version"} & set(args[:ended])
    if (command[:1] != ["help"] and "run" in command and not asks and r.returncode != 2
            and _current is not None and not _runs_programs(_current)):
        raise AssertionError(f"{_current.__name__} started a program with `gpuscope run` "
                             f"(exit {r.returncode}): mark it @runs_programs")
    return r


def data(name):
    return os.path.join(DATA, name)


def sql_fixture(name, tmp, edit=""):
    """Builds the SQLite file of a committed .sql fixture (tests/data/*.sql) in `tmp`, then runs
    the SQL `edit` on it (a damaged or older variant)."""
    path = os.path.join(tmp, name.replace(".sql", ".sqlite"))
    db = sqlite3.connect(path)
    with open(data(name)) as f:
        db.executescript(f.read())
    if edit:
        db.executescript(edit)
    db.commit()
    db.close()
    return path


def program(tmp, source, name="prog.py"):
    """Writes a Python program (the source text) into `tmp`; returns its path."""
    path = os.path.join(tmp, name)
    with open(path, "w") as f:
        f.write(source)
    return path


def need_torch():
    try:
        import torch  # noqa: F401
    except ImportError:
        raise Skip("PyTorch is not installed (scripts/install-deps installs torch==2.13.0)")


def _runs_programs(fn):
    return getattr(fn, "runs_programs", False)


def _group(fn):
    return "timed" if getattr(fn, "timed", False) else "programs" if _runs_programs(fn) else "files"


def main():
    global GPUSCOPE, _current
    ap = argparse.ArgumentParser()
    ap.add_argument("--gpuscope", required=True)
    ap.add_argument("--only", default="", help="run only the tests whose name contains this")
    ap.add_argument("--group", choices=("all", "timed", "programs", "files"), default="all",
                    help="timed: the tests marked @timed; programs: the other tests marked "
                         "@runs_programs; files: all the others")
    ap.add_argument("--shard", default="0/1",
                    help="K/N: of the selected tests, every N-th from the K-th (CI runs N at once)")
    args = ap.parse_args()
    try:
        shard, shards = (int(x) for x in args.shard.split("/"))
    except ValueError:
        ap.error(f"--shard {args.shard}: not K/N")
    if not 0 <= shard < shards:
        ap.error(f"--shard {args.shard}: K must be at least 0 and below N")
    GPUSCOPE = os.path.abspath(args.gpuscope)
    passed = failed = skipped = 0
    selected = [t for t in TESTS if args.only in t.__name__ and
                args.group in ("all", _group(t))]
    for t in selected[shard::shards]:
        _current = t
        start = time.monotonic()
        try:
            t()
            passed += 1
            print(f"ok   {t.__name__} ({time.monotonic() - start:.1f} s)")
        except Skip as e:
            skipped += 1
            print(f"SKIP {t.__name__}: {e}")
        except Exception as e:  # noqa: BLE001 - report every failure, keep going
            failed += 1
            print(f"FAIL {t.__name__}: {type(e).__name__}: {str(e)[:800]}")
        sys.stdout.flush()
    print(f"{passed} passed, {failed} failed" + (f", {skipped} skipped" if skipped else ""))
    return 1 if failed else 0

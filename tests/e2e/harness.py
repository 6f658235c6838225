"""The end-to-end tests' harness: the registry of tests, how the gpuscope binary is run, the
paths of the fixtures, and the runner that prints 'N passed, N failed'. Stdlib only.

Two groups, so that CI can run them differently (tests/CMakeLists.txt): the tests marked
@runs_programs profile real programs (`gpuscope run`, the demo) and some compare the analysis'
predictions with timed runs, so they run alone; every other test reads files, and its result
does not depend on what else the machine is doing, so it runs beside other tests. A test that
is not marked and still starts a program with `gpuscope run` through run() fails, naming the
marker; one that starts it with subprocess is marked by hand."""
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
    """Marks a test that profiles a real program (its timings depend on the machine's load): it
    belongs to the group that runs alone. Stack it with @test."""
    fn.runs_programs = True
    return fn


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


def main():
    global GPUSCOPE, _current
    ap = argparse.ArgumentParser()
    ap.add_argument("--gpuscope", required=True)
    ap.add_argument("--only", default="", help="run only the tests whose name contains this")
    ap.add_argument("--group", choices=("all", "programs", "files"), default="all",
                    help="programs: the tests marked @runs_programs; files: all the others")
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
                (args.group == "all" or _runs_programs(t) == (args.group == "programs"))]
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

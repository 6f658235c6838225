"""Hostile and impossible output targets and names: a writer never destroys what is at the
output path beyond the file it was asked to write, and names cannot attack their reader (the
terminal, a CSV, the HTML report)."""
import csv
import json
import os
import stat
import tempfile

from harness import Skip, data, run, test


def same_bytes(path, before):
    with open(path, "rb") as f:
        return f.read() == before


@test
def an_output_that_is_the_input_is_refused_before_anything_is_written():
    with tempfile.TemporaryDirectory() as tmp:
        src = os.path.join(tmp, "t.json")
        with open(data("kineto_cuda_small.json"), "rb") as f:
            original = f.read()
        with open(src, "wb") as f:
            f.write(original)
        link = os.path.join(tmp, "link.json")
        os.symlink(src, link)
        for args in (("convert", src, "-o", src), ("convert", link, "-o", src),
                     ("convert", src, "--to", "rpd", "-o", link), ("report", src, "-o", src)):
            r = run(*args)
            assert r.returncode == 2 and "is the input" in r.stderr, (args, r.stderr)
            assert len(r.stderr.strip().splitlines()) == 1, r.stderr
            assert same_bytes(src, original), args
        assert sorted(os.listdir(tmp)) == ["link.json", "t.json"], os.listdir(tmp)


@test
def devices_fifos_and_directories_are_never_replaced():
    with tempfile.TemporaryDirectory() as tmp:
        fifo = os.path.join(tmp, "pipe")
        os.mkfifo(fifo)
        folder = os.path.join(tmp, "folder.json")
        os.mkdir(folder)
        targets = [fifo, folder, "/dev/null"]
        device = os.path.join(tmp, "dev")
        try:
            os.mknod(device, 0o600 | stat.S_IFCHR, os.makedev(1, 3))
            targets.append(device)
        except (PermissionError, OSError) as e:
            print(f"  (mknod not permitted here: {e}; the device case uses /dev/null only)")
        for target in targets:
            for to in ("json", "rpd"):
                r = run("convert", data("kineto_cuda_small.json"), "--to", to, "-o", target)
                assert r.returncode == 2 and len(r.stderr.strip().splitlines()) == 1, (target, r.stderr)
        assert stat.S_ISFIFO(os.stat(fifo).st_mode) and os.path.isdir(folder)
        assert stat.S_ISCHR(os.stat("/dev/null").st_mode)
        if os.path.exists(device):
            assert stat.S_ISCHR(os.lstat(device).st_mode)
        r = run("report", data("kineto_cuda_small.json"), "-o", fifo)
        assert r.returncode == 2 and "FIFO" in r.stderr, r.stderr


@test
def a_link_output_is_replaced_not_what_it_points_to():
    with tempfile.TemporaryDirectory() as tmp:
        outside = os.path.join(tmp, "precious.txt")
        with open(outside, "w") as f:
            f.write("keep me")
        link = os.path.join(tmp, "out.json")
        os.symlink(outside, link)
        r = run("convert", data("kineto_cuda_small.json"), "-o", link)
        assert r.returncode == 0, r.stderr
        with open(outside) as f:
            assert f.read() == "keep me"
        assert not os.path.islink(link) and json.load(open(link))["traceEvents"]


@test
def a_directory_of_someone_elses_files_is_left_alone():
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "tables")
        os.mkdir(out)
        mine = os.path.join(out, "kernels.csv")
        with open(mine, "w") as f:
            f.write("my,own,table\n1,2,3\n")
        r = run("convert", data("kineto_cuda_small.json"), "-o", out + "/")
        assert r.returncode == 2 and "--force" in r.stderr and "kernels.csv" in r.stderr, r.stderr
        assert os.listdir(out) == ["kernels.csv"], "nothing written: " + str(os.listdir(out))
        assert open(mine).read() == "my,own,table\n1,2,3\n"
        # gpuscope's own files are replaced; --force replaces a user's.
        assert run("convert", data("kineto_cuda_small.json"), "-o", out + "/", "--force").returncode == 0
        assert run("convert", data("kineto_rocm_small.json"), "-o", out + "/").returncode == 0
        assert not any(n.startswith(".gpuscope-tmp") for n in os.listdir(out)), os.listdir(out)


@test
def a_failed_write_leaves_the_old_file_and_no_temporary():
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "t.json")
        with open(out, "w") as f:
            f.write("old")
        # The output directory's parent is a file: nothing can be created there.
        blocked = os.path.join(out, "x.json")
        r = run("convert", data("kineto_cuda_small.json"), "-o", blocked)
        errors = [l for l in r.stderr.strip().splitlines() if "note:" not in l]
        assert r.returncode == 2 and len(errors) == 1 and blocked in errors[0], r.stderr
        assert open(out).read() == "old"
        assert os.listdir(tmp) == ["t.json"], os.listdir(tmp)


@test
def hostile_names_reach_no_terminal_csv_or_page_raw():
    with tempfile.TemporaryDirectory() as tmp:
        src = os.path.join(tmp, "events.csv")
        assert run("convert", data("kineto_cuda_small.json"), "-o", src).returncode == 0
        with open(src, newline="") as f:
            rows = list(csv.DictReader(f))
            header = rows[0].keys()
        evil_kernel = "\x1b[2J\x1b]0;owned\x07kernel"
        evil_op = "<!--<script>alert(1)</script>"
        for r in rows:
            if r["kind"] == "kernel":
                r["name"] = evil_kernel
            if r["kind"] == "cpu_op":
                r["name"] = evil_op
        with open(src, "w", newline="") as f:
            w = csv.DictWriter(f, fieldnames=list(header))
            w.writeheader()
            w.writerows(rows)
        for cmd in ("stats", "analyze", "info"):
            r = run(cmd, src)
            assert r.returncode == 0, r.stderr
            assert "\x1b" not in r.stdout and "\x07" not in r.stdout, cmd
        r = run("stats", "--by", "kernels", src)
        assert "\\x1b[2J" in r.stdout, r.stdout
        r = run("stats", "--format", "csv", "--by", "kernels", src)
        assert "\x1b" not in r.stdout and "\\x1b" in r.stdout, r.stdout
        # JSON keeps the name exactly (escaped the JSON way).
        d = json.loads(run("stats", "--format", "json", src).stdout)
        assert any(k["name"] == evil_kernel for k in d["kernels"])
        page = os.path.join(tmp, "r.html")
        assert run("report", src, "-o", page).returncode == 0
        html = open(page, encoding="utf-8").read()
        data_block = html[html.index('id="gpuscope-data"'):]
        data_block = data_block[:data_block.index("</script>")]
        assert "<!--" not in data_block and "<script" not in data_block, "the data block is inert"
        if not any(r["kind"] == "cpu_op" for r in rows):
            raise Skip("fixture without CPU ops")


@test
def a_crafted_database_ends_in_one_line_never_a_hang():
    import subprocess
    import time

    import harness
    from harness import sql_fixture

    with tempfile.TemporaryDirectory() as tmp:
        cases = {
            # A view that recurses forever and yields nothing.
            "endless": 'CREATE VIEW rocpd_op AS WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL '
                       'SELECT n + 1 FROM r) SELECT n AS id, 0 AS gpuId, 0 AS queueId, n AS sequenceId, '
                       '\'\' AS completionSignal, n AS start, n + 1 AS "end", 1 AS description_id, '
                       '1 AS opType_id FROM r WHERE n < 0',
            # A join of seven copies of a table of 60 strings: 2.8e12 combinations.
            "cubic": 'WITH RECURSIVE k(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM k WHERE n < 40) '
                     'INSERT INTO rocpd_string (string) SELECT \'pad\' || n FROM k; CREATE VIEW rocpd_op AS SELECT a.id AS id, 0 AS gpuId, 0 AS queueId, '
                     '0 AS sequenceId, \'\' AS completionSignal, 1 AS start, 2 AS "end", 1 AS '
                     'description_id, 1 AS opType_id FROM rocpd_string a, rocpd_string b, '
                     'rocpd_string c, rocpd_string d, rocpd_string e, rocpd_string f, '
                     'rocpd_string g WHERE a.id + b.id + c.id + d.id + e.id + f.id + g.id < 0',
        }
        for name, view in cases.items():
            crafted = os.path.join(tmp, name + ".rpd")
            os.rename(sql_fixture("rpd_small.sql", tmp, "PRAGMA foreign_keys = OFF; DROP TABLE rocpd_op; " + view), crafted)
            start = time.monotonic()
            r = subprocess.run([harness.GPUSCOPE, "stats", crafted], capture_output=True, text=True, timeout=60)
            took = time.monotonic() - start
            errors = [l for l in r.stderr.strip().splitlines() if "note:" not in l]
            assert r.returncode == 2 and len(errors) == 1, (name, r.returncode, r.stderr)
            # Refused on sight (the authorizer), before any step runs.
            assert crafted in errors[0] and ("recursive query" in errors[0] or "view 'rocpd_op'" in errors[0]), errors
            assert took < 60, (name, took)


def _write(path, *parts):
    """Writes the parts in order: bytes, or (bytes, times) for a run written a chunk at a time."""
    with open(path, "wb") as f:
        for part in parts:
            chunk, times = part if isinstance(part, tuple) else (part, 1)
            for _ in range(times):
                f.write(chunk)
    return path


def _stats_in_address_space(path, kb=600000, threads=0):
    """`gpuscope stats path` under `ulimit -v kb` (skips a sanitizer build, which cannot run so)."""
    import subprocess

    import harness

    with open(harness.GPUSCOPE, "rb") as f:
        if b"__asan_init" in f.read():
            raise Skip("a sanitizer build reserves terabytes of address space: ulimit -v cannot apply")
    return subprocess.run(["bash", "-c", f'ulimit -v {kb} && exec "$0" --threads {threads} stats "$1"',
                           harness.GPUSCOPE, path], capture_output=True, text=True, timeout=120)


@test
def running_out_of_memory_is_one_line_not_an_abort():
    import gzip

    def limited(path):
        r = _stats_in_address_space(path)
        lines = r.stderr.strip().splitlines()
        assert r.returncode == 2 and len(lines) == 1 and path in lines[0], (r.returncode, r.stderr)
        return lines[0]

    with tempfile.TemporaryDirectory() as tmp:
        # A gzip bomb (3.6 MB holding 800 MB of whitespace) is refused by its inflation ratio,
        # in 100 MB of address space beyond the binary's own.
        bomb = os.path.join(tmp, "bomb.json.gz")
        with gzip.open(bomb, "wb", compresslevel=1) as f:
            f.write(b'{"traceEvents": [')
            chunk = b" " * (1 << 24)
            for _ in range(50):
                f.write(chunk)
            f.write(b"]}")
        assert "inflates to more than 200 times" in limited(bomb)
        # Plain whitespace costs no memory: 300 MB of it between events reads in a small limit.
        spaces = _write(os.path.join(tmp, "spaces.json"), b'{"traceEvents": [', (b" " * (15 << 20), 20), b"]}")
        assert "holds no events" in limited(spaces)
        # One name of 300 MB needs more than 600 MB: one line naming the file, never an abort.
        big = _write(os.path.join(tmp, "bigname.json"), b'{"traceEvents": [{"ph":"X","cat":"kernel","name":"',
                     (b"k" * (15 << 20), 20), b'","pid":0,"tid":7,"ts":1,"dur":2}]}')
        line = limited(big)
        # The line names the limit it ran into (600,000 KB).
        assert "out of memory" in line and "address-space limit of 585 MiB (`ulimit -v`)" in line, line


@test
def running_out_of_memory_on_a_parse_thread_is_one_line():
    # 150 MB of small events, then a 300 MB name, then more: with 4 threads the name falls in a
    # later segment, parsed on a worker thread, where it runs out of 600 MB of address space. The
    # worker's bad_alloc is rethrown on the main thread: one line, exit 2 (an exception escaping
    # a thread would abort).
    small = b"".join(b'{"ph":"X","cat":"kernel","name":"k%d","pid":0,"tid":7,"ts":%d,"dur":1},\n' % (i % 50, i)
                     for i in range(100000))
    with tempfile.TemporaryDirectory() as tmp:
        path = _write(os.path.join(tmp, "late_big_name.json"), b'{"traceEvents": [\n',
                      (small, int(150e6 // len(small)) + 1), b'{"ph":"X","cat":"kernel","name":"',
                      (b"k" * (15 << 20), 20), b'","pid":0,"tid":7,"ts":1,"dur":2},\n', small,
                      b'{"ph":"X","cat":"kernel","name":"last","pid":0,"tid":7,"ts":1,"dur":2}]}')
        r = _stats_in_address_space(path, threads=4)
        lines = r.stderr.strip().splitlines()
        assert r.returncode == 2 and len(lines) == 1, (r.returncode, r.stderr)
        assert "out of memory" in lines[0] and path in lines[0], lines


@test
def whitespace_in_an_event_and_unread_members_cost_no_memory():
    # 300 MB of whitespace inside one event, and unread top-level members of 300 MB (a string and
    # an array) each read in 600 MB of address space: the whitespace is squeezed out of the event,
    # the members skipped a window at a time (both needed ~800 MB before).
    kernel = b'{"ph":"X","cat":"kernel","name":"k","pid":0,"tid":7,"ts":1,"dur":2}'
    with tempfile.TemporaryDirectory() as tmp:
        spaced = _write(os.path.join(tmp, "spaced.json"), b'{"traceEvents": [{"ph":"X","cat":"kernel","name":"k",',
                        (b" \n\t" * (5 << 20), 20), b'"pid":0,"tid":7,"ts":1,"dur":2}]}')
        unread = _write(os.path.join(tmp, "unread.json"), b'{"traceEvents": [' + kernel + b'], "junk": "',
                        (b"j" * (15 << 20), 10), b'", "more": [', (b'[1, {"a": "]"}], ' * (1 << 20), 10), b"0]}")
        for path in (spaced, unread):
            r = _stats_in_address_space(path)
            assert r.returncode == 0, (path, r.returncode, r.stderr)
            assert "GPU kernels: 1 dispatches of 1 kernels, 2.000 us" in r.stdout, r.stdout


@test
def a_gzipped_database_bomb_leaves_nothing_in_tmpdir():
    import gzip

    with tempfile.TemporaryDirectory() as tmp:
        bomb = os.path.join(tmp, "bomb.rpd.gz")  # 1 MB holding a 1 GB "database"
        with gzip.open(bomb, "wb", compresslevel=9) as f:
            f.write(b"SQLite format 3\x00" + b"\x00" * 84)
            chunk = b"\x00" * (1 << 24)
            for _ in range(64):
                f.write(chunk)
        scratch = os.path.join(tmp, "scratch")
        os.mkdir(scratch)
        r = run("stats", bomb, env=dict(os.environ, TMPDIR=scratch))
        lines = r.stderr.strip().splitlines()
        assert r.returncode == 2 and len(lines) == 1 and "inflates to more than" in lines[0], r.stderr
        assert os.listdir(scratch) == [], os.listdir(scratch)


@test
def dash_writes_to_standard_output_and_says_what_it_wrote_on_stderr():
    import subprocess

    import harness

    with tempfile.TemporaryDirectory() as tmp:
        env = dict(os.environ, TMPDIR=tmp)
        src = data("kineto_cuda_small.json")
        r = subprocess.run([harness.GPUSCOPE, "convert", src, "--to", "json", "-o", "-"],
                           capture_output=True, env=env)
        assert r.returncode == 0 and b"wrote -" in r.stderr, r.stderr
        assert len(json.loads(r.stdout)["traceEvents"]) > 0
        rpd = os.path.join(tmp, "t.rpd")
        with open(rpd, "wb") as f:
            r = subprocess.run([harness.GPUSCOPE, "convert", src, "--to", "rpd", "-o", "-"],
                               stdout=f, stderr=subprocess.PIPE, env=env)
        assert r.returncode == 0, r.stderr
        assert "8 dispatches" in run("stats", rpd).stdout
        r = subprocess.run([harness.GPUSCOPE, "report", src, "-o", "-"], capture_output=True, env=env)
        assert r.returncode == 0 and r.stdout.startswith(b"<!DOCTYPE html>"), r.stderr
        # A reader that stops early leaves no temporary file behind.
        p = subprocess.Popen([harness.GPUSCOPE, "report", src, "-o", "-"], stdout=subprocess.PIPE,
                             stderr=subprocess.DEVNULL, env=env)
        p.stdout.read(10)
        p.stdout.close()
        p.wait(timeout=60)
        assert sorted(os.listdir(tmp)) == ["t.rpd"], os.listdir(tmp)
        for args in (("convert", src, "-o", "-"), ("convert", src, "--to", "csv", "-o", "-")):
            r = run(*args)
            assert r.returncode == 2 and r.stderr.strip().splitlines()[-1].startswith("gpuscope: -:"), r.stderr


@test
def a_trace_of_distinct_names_stays_within_a_small_address_space():
    import subprocess

    import harness

    with open(harness.GPUSCOPE, "rb") as f:
        if b"__asan_init" in f.read():
            raise Skip("a sanitizer build reserves terabytes of address space: ulimit -v cannot apply")
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "distinct.json")  # 28 MB: 200,000 kernels, each its own name
        with open(path, "w") as f:
            f.write('{"traceEvents": [\n')
            for i in range(200000):
                f.write('{"ph":"X","cat":"kernel","name":"kernel_%d_%s","pid":0,"tid":7,"ts":%d.5,'
                        '"dur":3.25,"args":{"correlation":%d}},\n' % (i, "x" * 20, 1000 + i * 5, i + 1))
            f.write('{"ph":"X","cat":"kernel","name":"last","pid":0,"tid":7,"ts":999999999,"dur":1}]}\n')
        # 250 MB of address space (the binary, its libraries and one thread included): the stats
        # of a million rows were built whole before (300 MB resident for this file).
        for cmd in ("stats", "analyze"):
            r = subprocess.run(["bash", "-c", 'ulimit -v 250000 && exec "$0" "$1" --threads 1 "$2"',
                                harness.GPUSCOPE, cmd, path], capture_output=True, text=True, timeout=300)
            assert r.returncode == 0, (cmd, r.stderr)

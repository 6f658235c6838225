"""End-to-end: labels and explanations agree with what the file is and with their own numbers -
a rocprofv3 kernel trace converted to Chrome JSON (both spellings of its category) read as its own
format, the real writer in "Written by", AMD devices named from their architecture, and `info`'s
clock verdicts checked against the figures beside them on every shared sample."""
import csv
import json
import os
import shutil
import sqlite3
import tempfile

from harness import SAMPLES, Skip, data, run, test

ROCPD_MI300X = os.path.join(SAMPLES, "rocm", "batched_gemm", "rocpd-ck_bmm", "28_results.db")


def need(path):
    if not os.path.exists(path):
        raise Skip(f"shared sample {path} is absent")
    return path


def rocpd_to_chrome(db, out, cat, style):
    """Converts a rocprofv3 database's kernel dispatches to Chrome JSON the way third-party
    scripts do: kernel X events named by their code-object symbol ("_Z...kd"), no metadata.
    style "arrays": {"traceEvents": [...]}, ts/dur rounded to ns, grid/block as [x, y, z];
    style "axes": a bare array, "GPU n"/"Queue n" ids, Grid_Size_X... args as rocprofv3's CSV."""
    c = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    rows = c.execute(
        "SELECT s.kernel_name, k.agent_abs_index, k.queue_id, k.start, k.end, k.grid_x, k.grid_y,"
        " k.grid_z, k.workgroup_x, k.workgroup_y, k.workgroup_z, k.name FROM kernels k"
        " JOIN kernel_symbols s ON s.kernel_id = k.kernel_id ORDER BY k.start").fetchall()
    events = []
    for sym, agent, queue, s, e, gx, gy, gz, bx, by, bz, _ in rows:
        if style == "arrays":
            events.append({"ph": "X", "cat": cat, "name": sym, "pid": agent, "tid": queue,
                           "ts": round(s / 1000, 3), "dur": round((e - s) / 1000, 3),
                           "args": {"grid": [gx, gy, gz], "block": [bx, by, bz]}})
        else:
            events.append({"name": sym, "ph": "X", "ts": s / 1000, "dur": (e - s) / 1000,
                           "pid": f"GPU {agent}", "tid": f"Queue {queue}", "cat": cat,
                           "args": {"Grid_Size_X": gx, "Grid_Size_Y": gy, "Grid_Size_Z": gz,
                                    "Workgroup_Size_X": bx, "Workgroup_Size_Y": by,
                                    "Workgroup_Size_Z": bz}})
    with open(out, "w") as f:
        json.dump({"traceEvents": events} if style == "arrays" else events, f,
                  indent=None if style == "arrays" else 1)
    return rows


@test
def rocprof_kernels_as_chrome_json_are_their_own_format_both_ways():
    db = need(ROCPD_MI300X)
    with tempfile.TemporaryDirectory() as tmp:
        for cat, style in (("kernel", "arrays"), ("gpu", "axes")):
            path = os.path.join(tmp, f"{cat}.json")
            rows = rocpd_to_chrome(db, path, cat, style)
            r = run("info", "--format", "json", path)
            assert r.returncode == 0, (cat, r.stderr)
            info = json.loads(r.stdout)
            assert info["source"]["format"] == "rocprofv3-chrome-json", (cat, info["source"])
            producer = info["source"]["producer"]
            assert "rocprofv3" in producer and "Kineto" not in producer, producer
            assert info["counts"]["kernels"] == len(rows), (info["counts"], len(rows))
            # Symbols lose ".kd" and are demangled: the names the database displays.
            stats = json.loads(run("stats", "--format", "json", path).stdout)
            names = {k["name"] for k in stats["kernels"]}
            assert not [n for n in names if n.endswith(".kd") or n.startswith("_Z")], names
            assert names == {n for *_, n in rows}, names ^ {n for *_, n in rows}
            # Grid and block from the args, per dispatch, as the database has them.
            out = os.path.join(tmp, f"{cat}-csv")
            assert run("convert", path, "-o", out + "/").returncode == 0
            with open(os.path.join(out, "events.csv")) as f:
                got = sorted((r["grid"], r["block"]) for r in csv.DictReader(f) if r["kind"] == "kernel")
            want = sorted((f"{gx},{gy},{gz}", f"{bx},{by},{bz}")
                          for _, _, _, _, _, gx, gy, gz, bx, by, bz, _ in rows)
            assert got == want, (got[:3], want[:3])
            # No torch.profiler advice for a trace torch did not write.
            a = run("analyze", path)
            assert a.returncode == 0 and "torch.profiler" not in a.stdout, a.stdout[-1500:]


@test
def written_by_names_the_real_writer():
    db = need(ROCPD_MI300X)
    with tempfile.TemporaryDirectory() as tmp:
        for ext in (".rpd", ".json", ".sqlite", ".db"):
            out = os.path.join(tmp, "x" + ext)
            r = run("convert", db, "-o", out)
            assert r.returncode == 0, (ext, r.stderr)
            producer = json.loads(run("info", "--format", "json", out).stdout)["source"]["producer"]
            assert producer.startswith("gpuscope convert, from rocprofv3 (rocprofiler-sdk"), (ext, producer)
            assert db in producer and "(rocpd)" not in producer, (ext, producer)


@test
def amd_devices_are_named_from_their_architecture():
    db = need(ROCPD_MI300X)
    with tempfile.TemporaryDirectory() as tmp:
        # The same database with the product names left empty (gfx942 and 304 CUs stay).
        bare = os.path.join(tmp, "bare.db")
        shutil.copy(db, bare)
        c = sqlite3.connect(bare)
        for (table,) in c.execute("SELECT name FROM sqlite_master WHERE type = 'table' AND "
                                  "name LIKE 'rocpd_info_agent%'").fetchall():
            c.execute(f"UPDATE {table} SET product_name = ''")
        c.commit()
        c.close()
        devices = json.loads(run("info", "--format", "json", bare).stdout)["devices"]
        gpus = [d for d in devices if d["compute_units"] == 304]
        assert gpus and all(d["name"] == "AMD Instinct MI300X (gfx942, 304 CUs)" for d in gpus), devices
        roof = json.loads(run("roofline", "--format", "json", bare).stdout)
        assert "MI300X" in json.dumps(roof.get("device", roof))[:2000], str(roof)[:1000]
        # A Kineto trace that names nothing: the compute capability HIP reports (9.4) says gfx942.
        with open(data("kineto_rocm_small.json")) as f:
            k = json.load(f)
        for p in k["deviceProperties"]:
            p.update(name="", computeMajor=9, computeMinor=4, totalGlobalMem=206141652992)
        path = os.path.join(tmp, "noname.json")
        with open(path, "w") as f:
            json.dump(k, f)
        devices = json.loads(run("info", "--format", "json", path).stdout)["devices"]
        assert devices[0]["name"] == "AMD Instinct MI300X (gfx942, 304 CUs)", devices
        # gfx950 with 256 CUs is an MI350X or an MI355X: both said.
        for p in k["deviceProperties"]:
            p.update(computeMinor=5, numSms=256, totalGlobalMem=309237645312)
        with open(path, "w") as f:
            json.dump(k, f)
        devices = json.loads(run("info", "--format", "json", path).stdout)["devices"]
        assert devices[0]["name"] == "AMD Instinct MI355X or MI350X (gfx950, 256 CUs)", devices


def sample_files():
    for root, _, files in os.walk(SAMPLES):
        for f in sorted(files):
            if f.endswith((".md", ".tsv", ".txt", ".tar.gz")) or "stats" in f:
                continue
            yield os.path.join(root, f)


@test
def info_clock_verdicts_agree_with_their_figures_on_every_sample():
    if not os.path.isdir(SAMPLES):
        raise Skip("the shared samples are absent")
    checked = 0
    for path in sample_files():
        r = run("info", "--format", "json", path)
        if r.returncode != 0:
            continue
        info = json.loads(r.stdout)
        for c in info["clocks"]:
            where = (os.path.basename(path), c["device"], c["explanation"][:120])
            lat = c["launch_to_start_ns"]
            if "start promptly" in c["explanation"]:
                # "Promptly": launches take tens of us.
                assert lat["median"] <= 100_000 and c["queued"] == 0, (where, lat)
            if c["idle_launched"] and c.get("idle_launch_median_ns", 0) > 100_000:
                assert "promptly" not in c["explanation"], where
            if c["verdict"] == "unexplained delay":
                # Ops cannot wait longer on an idle GPU than the GPU was idle.
                assert c["idle_wait_max_ns"] <= c.get("idle_ns", 0), (where, c["idle_wait_max_ns"], c.get("idle_ns"))
                assert 0 < c["idle_delayed"] <= c["idle_launched"], where
            checked += 1
        steps = info.get("steps") or {}
        if "vllm execute" in str(steps.get("source")):
            assert "sglang" not in os.path.basename(path).lower(), (path, steps)
    assert checked > 20, checked

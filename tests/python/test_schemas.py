"""Every JSON output against its schema in docs/schema/ (jsonschema): each command (info, stats -
also --by op and --steady -, analyze, whatif, diff, memory, roofline) on every shared sample
gpuscope reads, through the Python module (the same bytes as the CLI, test_gpuscope.py), a job
folder (analyze DIR, stats DIR), every help topic, convert and report, and the CLI itself for
each command on one trace; "schema_version" equals gpuscope.SCHEMA_VERSION and each schema's."""
import glob
import json
import os
import shutil
import subprocess
import time
import warnings

import pytest

import gpuscope

from conftest import DATA, ROOT

jsonschema = pytest.importorskip("jsonschema", reason="jsonschema is not installed (pip install 'gpuscope[schema]')")

SCHEMAS = os.path.join(ROOT, "docs", "schema")
SAMPLES = os.path.normpath(os.path.join(ROOT, "..", "shared", "samples"))


def schema(name):
    with open(os.path.join(SCHEMAS, name + ".schema.json")) as f:
        s = json.load(f)
    jsonschema.Draft202012Validator.check_schema(s)
    return s


VALIDATORS = {}


def check(name, doc, where):
    if name not in VALIDATORS:
        VALIDATORS[name] = jsonschema.Draft202012Validator(schema(name))
    errors = sorted(VALIDATORS[name].iter_errors(doc), key=lambda e: list(e.path))
    assert not errors, f"{where}: {name}: " + "; ".join(
        f"{'/'.join(map(str, e.path))}: {e.message[:200]}" for e in errors[:5])
    assert doc["schema_version"] == gpuscope.SCHEMA_VERSION


def sample_paths():
    """The samples the golden tests read (tests/golden/run_golden.py): every file under kineto/,
    nsys/ and rocm/ with a trace's extension, under 200 MB."""
    out = []
    for top in ("kineto", "nsys", "rocm"):
        for root, _, files in os.walk(os.path.join(SAMPLES, top)):
            out += [os.path.join(root, f) for f in sorted(files)
                    if f.endswith((".gz", ".json", ".db", ".sqlite", ".rpd", ".csv"))
                    and os.path.getsize(os.path.join(root, f)) < 200 << 20]
    return sorted(out)


def test_every_schema_carries_the_version():
    names = sorted(os.path.basename(p)[:-len(".schema.json")] for p in glob.glob(os.path.join(SCHEMAS, "*.schema.json")))
    assert {"info", "stats", "analyze", "whatif", "diff", "memory", "roofline", "job", "help"} <= set(names)
    for n in names:
        assert schema(n)["properties"]["schema_version"]["const"] == gpuscope.SCHEMA_VERSION, n


def run_all(t, where, wrong=None):
    """Every command on one loaded trace; the ones it refuses (one line) are counted, documents
    that do not match their schema go to `wrong` (else fail at once)."""
    refused = []
    calls = [("info", lambda: t.info()),
             ("stats", lambda: gpuscope.stats(t)),
             ("stats", lambda: gpuscope.stats(t, by="op", steady=True)),
             ("analyze", lambda: gpuscope.analyze(t)),
             ("whatif", lambda: gpuscope.whatif(t, gpu_speedup=2, no_syncs=True)),
             ("memory", lambda: gpuscope.memory(t)),
             ("roofline", lambda: gpuscope.roofline(t)),
             ("diff", lambda: gpuscope.diff(t, t))]
    for name, call in calls:
        try:
            doc = call()
        except gpuscope.TraceError as e:
            assert "\n" not in str(e).strip(), e
            refused.append((name, str(e)))
            continue
        try:
            check(name, doc, where)
        except AssertionError as e:
            if wrong is None:
                raise
            wrong.append(str(e).splitlines()[0])
    return refused


@pytest.mark.skipif(not os.path.isdir(SAMPLES), reason=f"{SAMPLES} not found: the shared samples are needed")
def test_every_command_on_every_sample_matches_its_schema():
    started = time.time()
    read = refused = 0
    wrong = []
    for path in sample_paths():
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                t = gpuscope.load(path)
        except gpuscope.TraceError:
            continue  # not a trace (sysinfo, stats CSVs, ...)
        read += 1
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            refused += len(run_all(t, os.path.relpath(path, SAMPLES), wrong))
    print(f"\nschemas: {read} samples x 8 requests in {time.time() - started:.0f} s, {refused} refused")
    assert not wrong, f"{len(wrong)} documents do not match their schema:\n" + "\n".join(wrong[:40])
    assert read >= 50, read
    assert refused < read, "most requests should give a document"


def test_fixtures_and_job_and_help_match_their_schemas(fixtures, tmp_path):
    for name, path in fixtures.items():
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            run_all(gpuscope.load(path), name)
    job = tmp_path / "job"
    job.mkdir()
    ranks = glob.glob(os.path.join(SAMPLES, "kineto/hta/tests__data__trace_filter__sampled_rank-*.json.gz"))
    if len(ranks) < 2:
        pytest.skip("the HTA rank pair is not in the shared samples")
    for r in ranks:
        shutil.copy(r, job)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        check("job", gpuscope.job(str(job)), "analyze DIR")
        check("job", gpuscope.job(str(job), findings=False), "stats DIR")
    for topic in ("findings", "formats", "problems", "roofline", "tables", "terms", "whatif"):
        check("help", gpuscope.help(topic), "help " + topic)


def test_the_cli_prints_the_same_documents(cli, fixtures, tmp_path):
    path = fixtures["kineto"]
    for name, args in (("info", []), ("stats", []), ("stats", ["--by", "kernels"]), ("analyze", []),
                       ("whatif", ["--host-speedup", "2"]), ("memory", []), ("roofline", [])):
        r = subprocess.run([cli, name, "--format", "json", *args, path], capture_output=True, text=True)
        assert r.returncode == 0, r.stderr
        check(name, json.loads(r.stdout), f"gpuscope {name}")
    r = subprocess.run([cli, "diff", "--format", "json", path, fixtures["rpd"]], capture_output=True, text=True)
    check("diff", json.loads(r.stdout), "gpuscope diff")
    for topic in ("findings", "formats", "problems", "roofline", "tables", "terms", "whatif"):
        r = subprocess.run([cli, "help", topic, "--format", "json"], capture_output=True, text=True)
        assert r.returncode == 0, r.stderr
        check("help", json.loads(r.stdout), "gpuscope help " + topic)
    r = subprocess.run([cli, "convert", "--format", "json", path, "-o", str(tmp_path / "c.rpd")],
                       capture_output=True, text=True)
    check("convert", json.loads(r.stdout), "gpuscope convert")
    r = subprocess.run([cli, "report", "--format", "json", path, "-o", str(tmp_path / "r.html")],
                       capture_output=True, text=True)
    check("report", json.loads(r.stdout), "gpuscope report")


def test_a_schema_catches_a_missing_core_key():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        doc = gpuscope.analyze(gpuscope.load(os.path.join(DATA, "kineto_cuda_small.json")))
    check("analyze", doc, "kineto_cuda_small")
    del doc["findings"]
    with pytest.raises(AssertionError):
        check("analyze", doc, "without findings")
    doc = gpuscope.stats(gpuscope.load(os.path.join(DATA, "kineto_cuda_small.json")))
    doc["schema_version"] = gpuscope.SCHEMA_VERSION + 1
    with pytest.raises(AssertionError):
        check("stats", doc, "another version")

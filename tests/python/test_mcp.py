"""The MCP server end to end with the official SDK's client over stdio: the tools are listed,
each answers with the CLI's JSON for the same request, help topics are readable, paths outside
--root, unusable traces, bad options and bad SQL come back as tool errors (the CLI's one line)
and the server keeps serving; loaded traces are cached by path and mtime; the agent-like example
session runs. Skips (visibly) where the `mcp` SDK is not installed."""
import asyncio
import json
import os
import runpy
import shutil
import subprocess
import sys

import pytest

from conftest import DATA, ROOT

pytest.importorskip("mcp", reason="the MCP SDK is not installed (pip install 'gpuscope[mcp]')")
pytest.importorskip("duckdb", reason="DuckDB is not installed (pip install 'gpuscope[sql]')")

from mcp import ClientSession, StdioServerParameters  # noqa: E402
from mcp.client.stdio import stdio_client  # noqa: E402


def cli_json(cli, *args):
    r = subprocess.run([cli, *args], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    return json.loads(r.stdout)


def over_stdio(root, steps):
    """Runs `steps(session)` against `python -m gpuscope.mcp --root ROOT`; returns its result."""
    params = StdioServerParameters(command=sys.executable, args=["-m", "gpuscope.mcp", "--root", str(root)],
                                   env={"PYTHONPATH": os.environ.get("PYTHONPATH", "")})

    async def go():
        async with stdio_client(params) as (read, write):
            async with ClientSession(read, write) as s:
                await s.initialize()
                return await steps(s)
    return asyncio.run(go())


def text(result):
    assert len(result.content) == 1
    return result.content[0].text


def test_tools_answer_as_the_cli_does(tmp_path, cli, fixtures):
    trace = tmp_path / "run.json"
    shutil.copy(fixtures["kineto"], trace)
    other = tmp_path / "other.rpd"
    shutil.copy(fixtures["rpd"], other)
    path, before = os.path.realpath(trace), os.path.realpath(other)

    async def steps(s):
        tools = {t.name: t for t in (await s.list_tools()).tools}
        got = {"tools": tools}
        calls = {
            "info": ("info", {"trace": "run.json"}),
            "stats": ("stats", {"trace": "run.json", "by": "kernels", "top": 1}),
            "analyze": ("analyze", {"trace": "run.json", "options": {"idle_gap_us": 5}, "evidence": 2}),
            "whatif": ("whatif", {"trace": "run.json", "gpu_speedup": 2, "kernels": {"gemm": 1.5}, "no_syncs": True}),
            "diff": ("diff", {"before": "other.rpd", "after": "run.json"}),
            "memory": ("memory", {"trace": "run.json"}),
            "roofline": ("roofline", {"trace": "run.json"}),
            "query": ("query", {"trace": "run.json", "sql": "SELECT count(*) AS n, sum(dur_ns) AS ns FROM kernels"}),
            "help": ("help", {"topic": "findings"}),
        }
        for key, (name, args) in calls.items():
            r = await s.call_tool(name, args)
            assert not r.is_error, (name, text(r))
            got[key] = json.loads(text(r))
        got["resources"] = [str(r.uri) for r in (await s.list_resources()).resources]
        got["terms"] = json.loads((await s.read_resource("gpuscope://help/terms")).contents[0].text)
        return got

    got = over_stdio(tmp_path, steps)
    assert {"info", "stats", "analyze", "whatif", "diff", "memory", "roofline", "query", "help"} <= set(got["tools"])
    assert {"by", "top"} <= set(got["tools"]["stats"].input_schema["properties"])
    assert {"options", "phase"} <= set(got["tools"]["analyze"].input_schema["properties"])
    assert got["info"] == cli_json(cli, "info", "--format", "json", path)
    assert got["stats"] == cli_json(cli, "stats", "--format", "json", "--by", "kernels", "--top", "1", path)
    assert got["analyze"] == cli_json(cli, "analyze", "--format", "json", "--idle-gap-us", "5", "--evidence", "2", path)
    assert got["whatif"] == cli_json(cli, "whatif", "--format", "json", "--gpu-speedup", "2", "--kernels", "gemm=1.5",
                                     "--no-syncs", path)
    assert got["diff"] == cli_json(cli, "diff", "--format", "json", before, path)
    assert got["memory"] == cli_json(cli, "memory", "--format", "json", path)
    assert got["roofline"] == cli_json(cli, "roofline", "--format", "json", "--top", "0", path)
    kernels = cli_json(cli, "stats", "--format", "json", path)["kernels"]
    assert got["query"]["columns"] == ["n", "ns"]
    assert got["query"]["rows"] == [{"n": sum(k["calls"] for k in kernels), "ns": sum(k["total_ns"] for k in kernels)}]
    assert got["help"] == cli_json(cli, "help", "findings", "--format", "json")
    assert "gpuscope://help/problems" in got["resources"]
    assert got["terms"] == cli_json(cli, "help", "terms", "--format", "json")


def test_refusals_are_tool_errors_and_the_server_keeps_serving(tmp_path, cli):
    root = tmp_path / "root"
    root.mkdir()
    shutil.copy(os.path.join(DATA, "kineto_cuda_small.json"), root / "t.json")
    (root / "notes.txt").write_text("not a trace\n")
    (tmp_path / "secret.json").write_text("{}")

    async def steps(s):
        out = {}
        for key, name, args in (
                ("up", "info", {"trace": "../secret.json"}),
                ("abs", "info", {"trace": str(tmp_path / "secret.json")}),
                ("missing", "stats", {"trace": "nope.json"}),
                ("unusable", "analyze", {"trace": "notes.txt"}),
                ("option", "analyze", {"trace": "t.json", "options": {"no_such_option": 1}}),
                ("sql", "query", {"trace": "t.json", "sql": "SELECT nope FROM kernels"}),
                ("topic", "help", {"topic": "nope"}),
                ("after", "info", {"trace": "t.json"})):
            r = await s.call_tool(name, args)
            out[key] = (r.is_error, text(r))
        return out

    got = over_stdio(root, steps)
    for key in ("up", "abs"):
        assert got[key][0] and "outside the server's root" in got[key][1], got[key]
    assert got["missing"][0] and "nope.json: no such file" in got["missing"][1]
    r = subprocess.run([cli, "analyze", str(root / "notes.txt")], capture_output=True, text=True)
    assert r.returncode == 2
    assert got["unusable"] == (True, r.stderr.strip().removeprefix("gpuscope: ")), (got["unusable"], r.stderr)
    assert "\n" not in got["unusable"][1]
    assert got["option"] == (True, "analyze: no option 'no_such_option'")
    assert got["sql"][0] and "nope" in got["sql"][1] and "\n" not in got["sql"][1]
    assert got["topic"][0] and "no topic 'nope'" in got["topic"][1]
    assert got["after"][0] is False and json.loads(got["after"][1])["source"]["format"] == "kineto"


def test_traces_are_cached_by_path_and_mtime(tmp_path):
    from gpuscope.mcp import build
    shutil.copy(os.path.join(DATA, "kineto_cuda_small.json"), tmp_path / "t.json")
    server = build(str(tmp_path))

    async def calls():
        for _ in range(2):
            await server.call_tool("info", {"trace": "t.json"})
        await server.call_tool("stats", {"trace": str(tmp_path / "t.json")})
        first = server.traces.loads
        st = os.stat(tmp_path / "t.json")
        os.utime(tmp_path / "t.json", ns=(st.st_atime_ns, st.st_mtime_ns + 10**9))
        await server.call_tool("info", {"trace": "t.json"})
        return first, server.traces.loads
    assert asyncio.run(calls()) == (1, 2)


def test_the_agent_session_example_runs(tmp_path, capsys):
    trace = tmp_path / "run.json"
    shutil.copy(os.path.join(DATA, "kineto_cuda_small.json"), trace)
    example = os.path.join(ROOT, "examples", "mcp_agent_session.py")
    argv = sys.argv
    sys.argv = [example, str(trace)]
    try:
        runpy.run_path(example, run_name="__main__")
    finally:
        sys.argv = argv
    out = capsys.readouterr().out
    assert "> tools/list" in out and "  analyze(" in out
    assert "> tools/call analyze" in out and "> tools/call whatif" in out
    assert "is_error=True" in out and "outside the server's root" in out


def test_the_console_script_is_declared():
    with open(os.path.join(ROOT, "pyproject.toml")) as f:
        assert 'gpuscope-mcp = "gpuscope.mcp:main"' in f.read()


def test_a_job_folder_is_analysed_as_the_cli_does(tmp_path, cli):
    import glob
    samples = os.path.normpath(os.path.join(ROOT, "..", "shared", "samples"))
    ranks = glob.glob(os.path.join(samples, "kineto/hta/tests__data__trace_filter__sampled_rank-*.json.gz"))
    if len(ranks) < 2:
        pytest.skip("the HTA rank pair is not in the shared samples")
    job = tmp_path / "job"
    job.mkdir()
    for r in ranks:
        shutil.copy(r, job)

    async def steps(s):
        return [json.loads(text(await s.call_tool(name, {"trace": "job"}))) for name in ("analyze", "stats")]

    analyzed, stats = over_stdio(tmp_path, steps)
    assert analyzed == cli_json(cli, "analyze", "--format", "json", os.path.realpath(job))
    assert stats == cli_json(cli, "stats", "--format", "json", os.path.realpath(job))

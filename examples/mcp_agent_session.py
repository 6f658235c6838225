"""An agent-like session with gpuscope's MCP server, through the official SDK's client over stdio:
list the tools, analyze a trace, then ask `whatif` about the fix of the top finding - what a
coding agent does when asked "why is this run slow?". Prints the transcript.

    python examples/mcp_agent_session.py TRACE [--max-chars N]

Needs pip install 'gpuscope[mcp]'. The server runs as `python -m gpuscope.mcp --root DIR`
(DIR: the trace's folder), the same command a client configuration names (docs/python.md).
"""
import argparse
import asyncio
import json
import os
import sys

from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client


def shorten(text, limit):
    return text if len(text) <= limit else text[:limit] + f" ... ({len(text)} characters in all)"


async def session(trace, limit):
    root = os.path.dirname(os.path.abspath(trace))
    name = os.path.basename(trace)
    params = StdioServerParameters(command=sys.executable, args=["-m", "gpuscope.mcp", "--root", root],
                                   env={"PYTHONPATH": os.environ.get("PYTHONPATH", "")})
    out = []
    say = out.append
    async with stdio_client(params) as (read, write):
        async with ClientSession(read, write) as s:
            init = await s.initialize()
            say(f"# server: {init.server_info.name} {init.server_info.version}; "
                f"command: {sys.executable} -m gpuscope.mcp --root {root}")
            tools = await s.list_tools()
            say("\n> tools/list")
            for t in tools.tools:
                args = ", ".join(t.input_schema.get("properties", {}))
                say(f"  {t.name}({args}): {' '.join((t.description or '').split())[:110]}")

            say(f'\n> tools/call analyze {{"trace": "{name}"}}')
            r = await s.call_tool("analyze", {"trace": name})
            report = json.loads(r.content[0].text)
            summary = report["summary"]
            say(f"  schema_version {report['schema_version']}; window {summary['window_ns'] / 1e6:.1f} ms, "
                f"{summary['iterations']} steady steps, verdict: {summary['verdict']}")
            for f in report["findings"][:5]:
                where = f["where"]["python"] or f["where"]["op"] or f["where"]["kernel"] or "-"
                say(f"  [{f['severity']}] {f['rule']}: {f['title']} - saves {f['impact_ns'] / 1e6:.2f} ms "
                    f"({f['impact_percent']:.1f}%) at {where[:60]}")
            say("  raw: " + shorten(r.content[0].text, limit))

            fixable = [f["rule"] for f in report["findings"] if f["impact_ns"] > 0]
            args = {"trace": name, "fix": fixable[:1]} if fixable else {"trace": name, "gpu_speedup": 2}
            say(f"\n> tools/call whatif {json.dumps(args)}")
            r = await s.call_tool("whatif", args)
            w = json.loads(r.content[0].text)
            say(f"  scenario: {w['scenario']}; step {w['before']['step_ns'] / 1e6:.3f} ms -> "
                f"{w['after']['step_ns'] / 1e6:.3f} ms, saves {w['saving_ns'] / 1e6:.2f} ms "
                f"({w['saving_percent']:.1f}%)")
            say("  raw: " + shorten(r.content[0].text, limit))

            q = "SELECT name, count(*) AS calls, sum(dur_ns) AS total_ns FROM kernels GROUP BY name ORDER BY total_ns DESC LIMIT 3"
            say(f"\n> tools/call query {json.dumps({'trace': name, 'sql': q})}")
            r = await s.call_tool("query", {"trace": name, "sql": q})
            say("  " + shorten(r.content[0].text, limit))

            say('\n> tools/call analyze {"trace": "../outside.json"}')
            r = await s.call_tool("analyze", {"trace": "../outside.json"})
            say(f"  is_error={r.is_error}: {r.content[0].text}")
    return "\n".join(out) + "\n"


def main():
    p = argparse.ArgumentParser()
    p.add_argument("trace")
    p.add_argument("--max-chars", type=int, default=600, help="raw results cut to this length")
    a = p.parse_args()
    sys.stdout.write(asyncio.run(session(a.trace, a.max_chars)))


if __name__ == "__main__":
    main()

"""gpuscope-mcp without the MCP SDK installed: one line saying what to install, exit 2 (run
whether or not the SDK is installed here: its import is made to fail)."""
import subprocess
import sys


def test_without_the_sdk_the_server_says_what_to_install():
    # Runs whether or not the SDK is installed: the import is made to fail.
    code = "import sys; sys.modules['mcp'] = None; from gpuscope import mcp; sys.exit(mcp.main([]))"
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert r.returncode == 2 and "pip install 'gpuscope[mcp]'" in r.stderr, r.stderr
    assert len(r.stderr.strip().splitlines()) == 1, r.stderr

#!/usr/bin/env bash
# The wheel as a user gets it: `pip wheel .` from the repository, installed into a fresh venv
# (pyarrow and pandas from the system site-packages, nothing from the source tree), then used
# from another directory: load a fixture, read a table, analyze.
#   check_wheel.sh WORK_DIR [PYTHON]
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
work="$1"
py="${2:-python3}"
rm -rf "$work" && mkdir -p "$work"
"$py" -m pip wheel "$root" -w "$work/dist" --no-deps -q
"$py" -m venv --system-site-packages "$work/venv"
"$work/venv/bin/pip" install -q --no-deps "$work"/dist/gpuscope-*.whl
cd "$work"
"$work/venv/bin/python" - "$root/tests/data/kineto_shapes_small.json" <<'PY'
import sys
import gpuscope
assert "/venv/" in gpuscope.__file__, gpuscope.__file__  # the installed copy, not the source
t = gpuscope.load(sys.argv[1])
assert t.kernels().num_rows == 8
assert gpuscope.roofline(t)["device"]["key"] == "MI300X"
assert "findings" in gpuscope.analyze(t)
print("wheel ok:", gpuscope.__file__)
PY

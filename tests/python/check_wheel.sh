#!/usr/bin/env bash
# The package as a user gets it: `pip wheel .` from the repository (the build reuses the test
# build's objects through ccache: same flags), installed with its extras into a fresh venv with
# no system site packages and its dependencies resolved from the package index, then used from
# another directory: the `gpuscope` command it installs, the README's Python snippet exactly as
# the README prints it (between its snippet markers), and the README's fleet command.
#   check_wheel.sh WORK_DIR [PYTHON [CXX]]   CXX: the test build's compiler, so that the wheel's
#                                            objects are the same compilations (ccache hits)
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
work="$1"
py="${2:-python3}"
[[ -n "${3:-}" ]] && export CXX="$3"  # else scikit-build-core takes Python's (g++ for c++)
rm -rf "$work" && mkdir -p "$work"
# The build tools are the calling environment's (scripts/install-deps put them there).
# (--config-settings spelled out: Debian 12's pip 23.0 has no -C.)
"$py" -m pip wheel "$root" -w "$work/dist" --no-deps --no-build-isolation -q \
  --config-settings=cmake.define.GPUSCOPE_WERROR=ON \
  --config-settings=cmake.define.CMAKE_COLOR_DIAGNOSTICS=OFF
# The wheel compiles the package's sources once each and no test code (issue 54): every object
# of its build directory comes from a distinct source outside tests/ and is not a *_test.cc. A
# unity object (GPUSCOPE_UNITY) stands for the sources its generated .cxx includes.
python3 - "$root/build/wheel" "$root" <<'PY'
import collections, os, re, sys
build, root = sys.argv[1], sys.argv[2]
objs = [os.path.join(d, f) for d, _, fs in os.walk(build)
        for f in fs if f.endswith(".o") and "CMakeFiles" in d and "CompilerId" not in d]
src = []
for o in objs:
    if "/Unity/" in o:
        with open(o[:-2]) as unity:
            src += [os.path.relpath(m, root) for m in re.findall(r'#include "([^"]+)"', unity.read())]
        continue
    # CMake names a source outside the target's folder with "__" for ".." (src/python/__/x.cc.o).
    rel = re.sub(r"CMakeFiles/[^/]+\.dir/", "", os.path.relpath(o, build))[:-2]
    src.append(os.path.normpath("/".join(".." if c == "__" else c for c in rel.split("/"))))
tests = [s for s in src if s.startswith("tests/") or re.search(r"_test\.cc$", s)]
twice = [s for s, n in collections.Counter(src).items() if n > 1]
assert objs, "check_wheel: no objects under build/wheel"
assert not tests, f"check_wheel: the wheel's build compiles test code: {tests[:5]}"
assert not twice, f"check_wheel: the wheel's build compiles sources twice: {twice[:5]}"
print(f"check_wheel: {len(objs)} objects of {len(src)} sources, each once, no test code")
PY
"$py" -m venv "$work/venv"
wheel=$(ls "$work"/dist/gpuscope-*.whl)
"$work/venv/bin/python" -m pip install -q "$wheel[pandas,distributed]"
cd "$work"
export PATH="$work/venv/bin:$PATH"
# The command: the same C++ main as the CLI.
gpuscope --version
gpuscope stats "$root/tests/data/kineto_shapes_small.json" --by kernels --top 3 >/dev/null
# The inputs the README's snippet and fleet command name.
mkdir -p traces/run1 traces/run2
cp "$root/tests/data/kineto_cuda_small.json.gz" trace.json.gz
cp "$root/tests/data/kineto_cuda_small.json.gz" traces/run1/a.json.gz
gpuscope convert "$root/tests/data/kineto_rocm_small.json" -o traces/run2/b.json.gz
gpuscope convert trace.json.gz -o before.rpd
awk '/<!-- snippet: python -->/{on=1; next} /<!-- \/snippet -->/{on=0} on && /^    /{print substr($0, 5)}' \
  "$root/README.md" | grep -v '^pip install' > snippet.py
grep -q 'gpuscope.load' snippet.py || { echo "check_wheel: no Python snippet found in README.md" >&2; exit 1; }
python snippet.py
python - <<'PY'
import gpuscope
assert "/venv/" in gpuscope.__file__, gpuscope.__file__  # the installed copy, not the source
t = gpuscope.load("trace.json.gz")
assert t.kernels().num_rows > 0 and "findings" in gpuscope.analyze(t)
PY
fleet=$(awk '/<!-- snippet: fleet -->/{on=1; next} /<!-- \/snippet -->/{on=0} on && /python -m gpuscope.fleet/{sub(/^ +/, ""); sub(/ +#.*/, ""); print; exit}' "$root/README.md")
[[ -n "$fleet" ]] || { echo "check_wheel: no fleet command found in README.md" >&2; exit 1; }
echo "check_wheel: $fleet"
bash -c "$fleet"
python - <<'PY'
import json
s = json.load(open("summary.json"))
assert s["traces"] == 2 and not s["failed"], (s["traces"], s["failed"])
assert sum(k["calls"] for k in s["kernels"]) > 0, "no kernels in the fleet summary"
print("wheel ok:", s["traces"], "traces,", len(s["kernels"]), "kernel names")
PY

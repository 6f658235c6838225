# Sourced by scripts/test, scripts/demo and .ci/run: the project's virtual environment (made by
# scripts/install-deps) first on PATH, so that `python3` there, CMake's FindPython and the tests
# use its packages; ccache in front of the compilers when it is installed.
GPUSCOPE_VENV=${GPUSCOPE_VENV:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)/.venv}
export GPUSCOPE_VENV
if [[ -x "$GPUSCOPE_VENV/bin/python" ]]; then
  export VIRTUAL_ENV=$GPUSCOPE_VENV
  export PATH="$GPUSCOPE_VENV/bin:$PATH"
fi
if command -v ccache >/dev/null; then
  export CMAKE_CXX_COMPILER_LAUNCHER=ccache
  # Builds in build/<preset> and build/wheel share their objects: paths are taken relative.
  export CCACHE_BASEDIR=${CCACHE_BASEDIR:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)}
  export CCACHE_NOHASHDIR=1
fi

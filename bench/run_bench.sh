#!/usr/bin/env bash
# Runs the stats benchmark of bench/RESULTS.md: gpuscope stats vs the raw simdjson scan vs
# Python json.load vs HTA, on the B200 sample scaled to ~100 MB and ~1 GB.
# Needs ../shared/samples; HTA from a venv given by HTA_PYTHON (skipped when unset).
set -euo pipefail
cd "$(dirname "$0")/.."
SAMPLE=../shared/samples/kineto/tracelens/tests__traces__b200__eager_trace.json.gz
mkdir -p bench/data
for size in 100 1000; do
  f=bench/data/b200_${size}mb.json
  [[ -f $f ]] || python3 bench/scale_trace.py "$SAMPLE" "$f" "$size"
done
cmake --preset release >/dev/null && cmake --build --preset release >/dev/null
measure() {  # label, command...
  local label=$1; shift
  cat "${@: -1}" >/dev/null 2>&1 || true  # warm the page cache
  /usr/bin/time -f "$label|%e|%M" "$@" >/dev/null 2>>bench/data/times.txt || echo "$label|failed|" >>bench/data/times.txt
}
: >bench/data/times.txt
for size in 100 1000; do
  f=bench/data/b200_${size}mb.json
  measure "gpuscope stats ($size MB)" build/release/gpuscope stats --format json "$f"
  measure "gpuscope stats, 1 thread ($size MB)" build/release/gpuscope --threads 1 stats --format json "$f"
  measure "gpuscope analyze ($size MB)" build/release/gpuscope analyze --format json "$f"
  [[ -x build/release/bench/raw_simdjson_scan ]] && measure "raw simdjson scan ($size MB)" build/release/bench/raw_simdjson_scan "$f"
  measure "python json.load ($size MB)" python3 bench/json_load_kernel_sum.py "$f"
  if [[ -n "${HTA_PYTHON:-}" ]]; then
    d=bench/data/hta_$size; mkdir -p "$d"; ln -sf "$PWD/$f" "$d/rank0.json"
    measure "HTA load + kernel breakdown ($size MB)" "$HTA_PYTHON" bench/hta_kernel_breakdown.py "$d"
  fi
done
grep -v '^\s*Command' bench/data/times.txt | awk -F'|' '{printf "%-42s %8s s %10.0f MB\n", $1, $2, $3/1024}'

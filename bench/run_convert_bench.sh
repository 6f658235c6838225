#!/usr/bin/env bash
# The exporters on the 1 GB Kineto trace of bench/run_bench.sh (issue 7): `gpuscope convert` to
# Chrome JSON, gzip JSON, .rpd and CSV, and `gpuscope report`, each against `stats` on the same
# file (the import alone), wall time and peak RSS from /usr/bin/time. Then the round trip of the
# big file: stats of the written .rpd and .json.gz must equal stats of the source.
set -euo pipefail
cd "$(dirname "$0")/.."
f=bench/data/b200_1000mb.json
[[ -f $f ]] || bench/run_bench.sh
cmake --preset release >/dev/null && cmake --build --preset release >/dev/null
G=build/release/gpuscope
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
cat "$f" >/dev/null
measure() {  # label, command...
  local label=$1; shift
  /usr/bin/time -f "$label|%e|%M" "$@" >/dev/null 2>>"$out/times.txt"
}
measure "stats (import only)" $G stats --format json "$f"
measure "convert -> .json" $G convert "$f" -o "$out/b.json"
measure "convert -> .json.gz" $G convert "$f" -o "$out/b.json.gz"
measure "convert -> .rpd" $G convert "$f" -o "$out/b.rpd"
measure "convert -> csv/" $G convert "$f" -o "$out/csv/"
measure "report -> .html" $G report "$f" -o "$out/r.html"
measure "stats of the written .rpd" $G stats --format json "$out/b.rpd"
grep -v '^\s*Command' "$out/times.txt" | awk -F'|' '{printf "%-28s %7s s %8.0f MB\n", $1, $2, $3/1024}'
ls -l "$out/b.json" "$out/b.json.gz" "$out/b.rpd" "$out/csv/events.csv" "$out/r.html" | awk '{printf "%-40s %12s bytes\n", $9, $5}'
for t in "$out/b.rpd" "$out/b.json.gz"; do
  if cmp -s <($G stats --format json --mangled "$f" | tail -n +6) <($G stats --format json --mangled "$t" | tail -n +6); then
    echo "round trip $(basename "$t"): stats identical"
  else
    echo "round trip $(basename "$t"): stats DIFFER"; exit 1
  fi
done

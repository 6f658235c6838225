#!/usr/bin/env bash
# Runs one fuzz target for SECONDS: first every regression input and seed (a crash there fails at
# once), then mutation. Usage: run_fuzz_target.sh TARGET SECONDS CORPUS_DIR FINDINGS_DIR SEEDS...
# FUZZ_DICT (environment): a libFuzzer dictionary to mutate with, when set and present.
# New inputs go to CORPUS_DIR (kept between runs); a crash, leak, timeout or invariant violation
# is written to FINDINGS_DIR and fails the run. Prints the executions and coverage reached.
set -euo pipefail
target=$1 seconds=$2 corpus=$3 findings=$4
shift 4
mkdir -p "$corpus" "$findings"
dirs=()
for d in "$@"; do [[ -d $d ]] && dirs+=("$d"); done
dict=()
[[ -n ${FUZZ_DICT:-} && -f ${FUZZ_DICT} ]] && dict=(-dict="$FUZZ_DICT")
log=$(mktemp)
trap 'rm -f "$log"' EXIT
set +e
"$target" -max_total_time="$seconds" -timeout=25 -rss_limit_mb=2560 -max_len=65536 \
  -print_final_stats=1 -artifact_prefix="$findings/" "${dict[@]}" "$corpus" "${dirs[@]}" >"$log" 2>&1
rc=$?
set -e
grep -E "^#[0-9]+.*(DONE|INITED)|stat::number_of_executed_units|stat::peak_rss_mb" "$log" | tail -3
if [[ $rc -ne 0 ]]; then
  tail -60 "$log"
  echo "FAIL: $(basename "$target") exited $rc; the input is in $findings/ -" \
    "fix it, then add the input under tests/fuzz/regressions/$(basename "$target")/"
  exit 1
fi

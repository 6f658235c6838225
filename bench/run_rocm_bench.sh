#!/usr/bin/env bash
# The ROCm database benchmark of bench/RESULTS.md: `gpuscope stats` against the sqlite3 command
# line running the tools' own summary views on the same file (rpd: top, ktop; rocpd: top_kernels,
# top), on real samples scaled to ~1 M GPU ops by bench/scale_rocm_db.py. Needs ../shared/samples
# and the sqlite3 command (Debian package sqlite3).
set -euo pipefail
cd "$(dirname "$0")/.."
S=../shared/samples/rocm
mkdir -p bench/data
[[ -f bench/data/matmul_1m.rpd ]] || python3 bench/scale_rocm_db.py rpd $S/rocmProfileData/matmul_result.rpd bench/data/matmul_1m.rpd 1000000
[[ -f bench/data/ck_1m_results.db ]] || python3 bench/scale_rocm_db.py rocpd $S/batched_gemm/rocpd-ck_bmm/28_results.db bench/data/ck_1m_results.db 1000000
cmake --preset release >/dev/null && cmake --build --preset release >/dev/null
measure() {  # label, command...
  cat bench/data/matmul_1m.rpd bench/data/ck_1m_results.db >/dev/null  # warm the page cache
  /usr/bin/time -f "$1|%e|%M" "${@:2}" >/dev/null 2>>bench/data/rocm_times.txt || echo "$1|failed|0" >>bench/data/rocm_times.txt
}
: >bench/data/rocm_times.txt
for i in 1 2 3; do
  measure "gpuscope stats, rpd 1 M ops" build/release/gpuscope stats --format json bench/data/matmul_1m.rpd
  measure "sqlite3 'select * from top', rpd" sqlite3 bench/data/matmul_1m.rpd "select * from top"
  measure "sqlite3 'select * from ktop', rpd" sqlite3 bench/data/matmul_1m.rpd "select * from ktop"
  measure "gpuscope stats, rocpd 1 M dispatches" build/release/gpuscope stats --format json bench/data/ck_1m_results.db
  measure "sqlite3 'select * from top_kernels', rocpd" sqlite3 bench/data/ck_1m_results.db "select * from top_kernels"
  measure "sqlite3 'select * from top', rocpd" sqlite3 bench/data/ck_1m_results.db "select * from top"
done
grep -v '^\s*Command' bench/data/rocm_times.txt | awk -F'|' '{printf "%-44s %8s s %8.0f MB\n", $1, $2, $3/1024}'

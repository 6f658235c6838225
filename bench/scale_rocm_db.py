#!/usr/bin/env python3
"""Scales a real ROCm database sample to ~N GPU ops by replicating its rows in SQL, shifted in
time and with offset ids, so the links (api_ops / stack_id) stay valid.

  scale_rocm_db.py rpd   IN.rpd        OUT.rpd  OPS
  scale_rocm_db.py rocpd IN_results.db OUT.db   OPS
"""
import shutil
import sqlite3
import sys


def scale_rpd(src, dst, target):
    shutil.copyfile(src, dst)
    db = sqlite3.connect(dst)
    n_ops = db.execute("SELECT COUNT(*) FROM rocpd_op").fetchone()[0]
    span = db.execute("SELECT MAX(end) - MIN(start) + 1000 FROM (SELECT start, end FROM rocpd_op UNION ALL "
                      "SELECT start, end FROM rocpd_api)").fetchone()[0]
    off = 1 << 40  # id stride per copy: beyond any id the file has (session offsets are 2^32)
    copies = max(1, target // n_ops)
    db.execute(f"CREATE TEMP TABLE k AS WITH RECURSIVE r(k) AS (SELECT 1 UNION ALL SELECT k + 1 FROM r WHERE k < {copies - 1}) SELECT k FROM r")
    db.execute(f"INSERT INTO rocpd_op SELECT o.id + k * {off}, gpuId, queueId, sequenceId, completionSignal, "
               f"start + k * {span}, end + k * {span}, description_id, opType_id FROM rocpd_op o, k")
    db.execute(f"INSERT INTO rocpd_api SELECT a.id + k * {off}, pid, tid, start + k * {span}, end + k * {span}, "
               f"apiName_id, args_id FROM rocpd_api a, k")
    db.execute(f"INSERT INTO rocpd_api_ops (api_id, op_id) SELECT api_id + k * {off}, op_id + k * {off} FROM rocpd_api_ops, k")
    for t in ("rocpd_kernelapi", "rocpd_copyapi"):
        cols = [r[1] for r in db.execute(f"PRAGMA table_info({t})")]
        sel = ", ".join(f"api_ptr_id + k * {off}" if c == "api_ptr_id" else c for c in cols)
        db.execute(f"INSERT INTO {t} SELECT {sel} FROM {t}, k")
    db.commit()
    print(dst, db.execute("SELECT COUNT(*) FROM rocpd_op").fetchone()[0], "ops",
          db.execute("SELECT COUNT(*) FROM rocpd_api").fetchone()[0], "api rows")


def scale_rocpd(src, dst, target):
    shutil.copyfile(src, dst)
    db = sqlite3.connect(dst)
    suffix = db.execute("SELECT value FROM rocpd_metadata WHERE tag = 'uuid'").fetchone()[0]
    n = db.execute("SELECT COUNT(*) FROM rocpd_kernel_dispatch").fetchone()[0]
    span = db.execute("SELECT MAX(end) - MIN(start) + 1000 FROM (SELECT start, end FROM rocpd_kernel_dispatch "
                      "UNION ALL SELECT start, end FROM rocpd_region)").fetchone()[0]
    off = 1 << 32
    copies = max(1, target // n)
    db.execute(f"CREATE TEMP TABLE k AS WITH RECURSIVE r(k) AS (SELECT 1 UNION ALL SELECT k + 1 FROM r WHERE k < {copies - 1}) SELECT k FROM r")
    shift = {"id": f"id + k * {off}", "event_id": f"event_id + k * {off}", "stack_id": f"stack_id + k * {off}",
             "start": f"start + k * {span}", "end": f"end + k * {span}", "dispatch_id": f"dispatch_id + k * {off}"}
    for t in ("rocpd_event", "rocpd_region", "rocpd_kernel_dispatch"):
        cols = [r[1] for r in db.execute(f"PRAGMA table_info({t}{suffix})")]
        sel = ", ".join(shift.get(c, f'"{c}"') for c in cols)
        db.execute(f"INSERT INTO {t}{suffix} SELECT {sel} FROM {t}{suffix}, k")
    db.commit()
    print(dst, db.execute("SELECT COUNT(*) FROM rocpd_kernel_dispatch").fetchone()[0], "dispatches",
          db.execute("SELECT COUNT(*) FROM rocpd_region").fetchone()[0], "regions")


if __name__ == "__main__":
    kind, src, dst, target = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
    (scale_rpd if kind == "rpd" else scale_rocpd)(src, dst, target)

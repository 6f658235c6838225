#!/usr/bin/env python3
"""Writes small hand-made ROCm tool outputs (run from this folder; outputs are committed):
rocprofv3 JSON and CSV runs (three header generations), legacy rocprof results.csv / results.json
(whole and cut) / *.stats.csv / raw rpl_data text, in the tools' exact layouts (see
docs/formats.md). The SQLite ones (rpd, rocpd, results.db) are in make_sql_fixtures.py.

One scenario for all, so that every format must give the same tables (checked in
rocm_text_importers_test.cc):
  pid 300, tid 300, GPU agent node 2, queue 1
  hipMemcpyAsync  corr 1  [100000, 104000]  -> copy HtoD  4096 B  [105000, 109000]
  hipLaunchKernel corr 2  [110000, 112000]  -> "gemm(float*)"     [113000, 133000] (20 us)
  hipLaunchKernel corr 3  [114000, 115000]  -> "gemm(float*)"     [134000, 156000] (22 us)
  hipLaunchKernel corr 4  [116000, 117000]  -> __amd_rocclr_copyBuffer [157000, 160000]
  hipMemcpy       corr 5  [161000, 170000]  -> copy DtoH  64 B    [162000, 163000]
  roctx range "step" [99000, 171000], mark "begin" at 98000
"""
import csv
import json
import os

P = 300
KERNELS = [  # corr, start, end, name, kernel_id
    (2, 113000, 133000, "gemm(float*)", 1),
    (3, 134000, 156000, "gemm(float*)", 1),
    (4, 157000, 160000, "__amd_rocclr_copyBuffer", 2),
]
COPIES = [(1, 105000, 109000, "HOST_TO_DEVICE", 4096), (5, 162000, 163000, "DEVICE_TO_HOST", 64)]
APIS = [(1, 100000, 104000, "hipMemcpyAsync"), (2, 110000, 112000, "hipLaunchKernel"),
        (3, 114000, 115000, "hipLaunchKernel"), (4, 116000, 117000, "hipLaunchKernel"),
        (5, 161000, 170000, "hipMemcpy")]
MARKERS = [(6, 99000, 171000, "step"), (7, 98000, 98000, "begin")]


def write_csv(path, header, rows):
    with open(path, "w", newline="") as f:
        w = csv.writer(f, quoting=csv.QUOTE_NONNUMERIC, lineterminator="\n")
        w.writerow(header)
        w.writerows(rows)


def rocprofv3_json():
    kinds = ["NONE", "HSA_CORE_API", "HSA_AMD_EXT_API", "HSA_IMAGE_EXT_API", "HSA_FINALIZE_EXT_API",
             "HIP_RUNTIME_API", "HIP_COMPILER_API", "MARKER_CORE_API", "MARKER_CONTROL_API", "MARKER_NAME_API",
             "MEMORY_COPY", "KERNEL_DISPATCH"]
    ops = {"HIP_RUNTIME_API": ["hipNone", "hipMemcpyAsync", "hipLaunchKernel", "hipMemcpy"],
           "MEMORY_COPY": ["MEMORY_COPY_NONE", "MEMORY_COPY_HOST_TO_HOST", "MEMORY_COPY_HOST_TO_DEVICE",
                           "MEMORY_COPY_DEVICE_TO_HOST", "MEMORY_COPY_DEVICE_TO_DEVICE"],
           "MARKER_CORE_API": ["roctxMarkA", "roctxRangePushA", "roctxRangePop"],
           "KERNEL_DISPATCH": ["KERNEL_DISPATCH_NONE", "KERNEL_DISPATCH_ENQUEUE", "KERNEL_DISPATCH_COMPLETE"]}
    K = {k: i for i, k in enumerate(kinds)}
    api_op = {"hipMemcpyAsync": 1, "hipLaunchKernel": 2, "hipMemcpy": 3}
    handle_gpu, handle_cpu = 37946, 37944
    rec = {"kernel_dispatch": [], "hip_api": [], "hsa_api": [], "marker_api": [], "memory_copy": [],
           "memory_allocation": [{"size": 1}, {"size": 2}]}
    for corr, s, e, name, kid in KERNELS:
        rec["kernel_dispatch"].append({
            "size": 184, "kind": K["KERNEL_DISPATCH"], "operation": 2, "thread_id": P,
            "correlation_id": {"internal": corr, "external": 0}, "start_timestamp": s, "end_timestamp": e,
            "dispatch_info": {"size": 72, "agent_id": {"handle": handle_gpu}, "queue_id": {"handle": 1},
                              "kernel_id": kid, "dispatch_id": corr, "private_segment_size": 0,
                              "group_segment_size": 1024, "workgroup_size": {"x": 256, "y": 1, "z": 1},
                              "grid_size": {"x": 65536, "y": 1, "z": 1}}, "stream_id": {"handle": 0}})
    for corr, s, e, d, b in COPIES:
        gpu_to_host = d == "DEVICE_TO_HOST"
        rec["memory_copy"].append({
            "size": 80, "kind": K["MEMORY_COPY"], "operation": 3 if gpu_to_host else 2, "thread_id": P,
            "correlation_id": {"internal": corr, "external": 0}, "start_timestamp": s, "end_timestamp": e,
            "dst_agent_id": {"handle": handle_cpu if gpu_to_host else handle_gpu},
            "src_agent_id": {"handle": handle_gpu if gpu_to_host else handle_cpu}, "bytes": b})
    for corr, s, e, name in APIS:
        rec["hip_api"].append({"size": 56, "kind": K["HIP_RUNTIME_API"], "operation": api_op[name], "thread_id": P,
                               "correlation_id": {"internal": corr, "external": 0}, "start_timestamp": s,
                               "end_timestamp": e})
    for corr, s, e, text in MARKERS:
        rec["marker_api"].append({"size": 56, "kind": K["MARKER_CORE_API"], "operation": 1 if s != e else 0,
                                  "thread_id": P, "correlation_id": {"internal": corr, "external": 0},
                                  "start_timestamp": s, "end_timestamp": e})
    doc = {"rocprofiler-sdk-tool": [{
        "metadata": {"pid": P, "init_time": 0, "fini_time": 200000, "command": ["python3", "infer.py"]},
        "agents": [{"size": 312, "id": {"handle": handle_cpu}, "type": 1, "name": "EPYC", "node_id": 0},
                   {"size": 312, "id": {"handle": handle_gpu}, "type": 2, "name": "gfx942",
                    "product_name": "AMD Instinct MI300X", "node_id": 2, "cu_count": 304, "wave_front_size": 64}],
        "counters": [],
        "strings": {"callback_records": [],
                    "buffer_records": [{"kind": k, "operations": ops.get(k, [])} for k in kinds],
                    "marker_api": [{"key": corr, "value": text} for corr, _, _, text in MARKERS]},
        "code_objects": [],
        "kernel_symbols": [{"kernel_id": 0},
                           {"kernel_id": 1, "kernel_name": "_Z4gemmPf.kd", "formatted_kernel_name": "gemm(float*)",
                            "arch_vgpr_count": 64},
                           {"kernel_id": 2, "kernel_name": "__amd_rocclr_copyBuffer.kd",
                            "formatted_kernel_name": "__amd_rocclr_copyBuffer", "arch_vgpr_count": 8}],
        "host_functions": [], "summary": [], "callback_records": {},
        "buffer_records": rec}]}
    with open("rocprofv3_small_results.json", "w") as f:
        json.dump(doc, f, separators=(",", ":"))
    # Cut in the middle of the buffer records: the whole records before the cut must survive.
    text = json.dumps(doc, separators=(",", ":"))
    cut = text.index('"hip_api"') + 200
    with open("rocprofv3_cut_results.json", "w") as f:
        f.write(text[:cut])


def rocprofv3_csv(folder, generation):
    """One run's CSVs; generation 'A' (ROCm 6.2), 'B' (6.3), 'C' (6.4/7.x)."""
    os.makedirs(folder, exist_ok=True)
    pre = os.path.join(folder, f"{P}_")
    agent = "Agent 2" if generation == "C" else 2
    if generation == "A":
        header = ["Kind", "Agent_Id", "Queue_Id", "Kernel_Id", "Kernel_Name", "Correlation_Id", "Start_Timestamp",
                  "End_Timestamp", "Private_Segment_Size", "Group_Segment_Size", "Workgroup_Size_X",
                  "Workgroup_Size_Y", "Workgroup_Size_Z", "Grid_Size_X", "Grid_Size_Y", "Grid_Size_Z"]
        rows = [["KERNEL_DISPATCH", agent, 1, kid, name, corr, s, e, 0, 1024, 256, 1, 1, 65536, 1, 1]
                for corr, s, e, name, kid in KERNELS]
    elif generation == "B":
        header = ["Kind", "Agent_Id", "Queue_Id", "Thread_Id", "Dispatch_Id", "Kernel_Id", "Kernel_Name",
                  "Correlation_Id", "Start_Timestamp", "End_Timestamp", "Private_Segment_Size", "Group_Segment_Size",
                  "Workgroup_Size_X", "Workgroup_Size_Y", "Workgroup_Size_Z", "Grid_Size_X", "Grid_Size_Y",
                  "Grid_Size_Z"]
        rows = [["KERNEL_DISPATCH", agent, 1, P, corr, kid, name, corr, s, e, 0, 1024, 256, 1, 1, 65536, 1, 1]
                for corr, s, e, name, kid in KERNELS]
    else:
        header = ["Kind", "Agent_Id", "Queue_Id", "Stream_Id", "Thread_Id", "Dispatch_Id", "Kernel_Id", "Kernel_Name",
                  "Correlation_Id", "Start_Timestamp", "End_Timestamp", "LDS_Block_Size", "Scratch_Size",
                  "VGPR_Count", "Accum_VGPR_Count", "SGPR_Count", "Workgroup_Size_X", "Workgroup_Size_Y",
                  "Workgroup_Size_Z", "Grid_Size_X", "Grid_Size_Y", "Grid_Size_Z"]
        rows = [["KERNEL_DISPATCH", agent, 1, 0, P, corr, kid, name, corr, s, e, 1024, 0, 64, 0, 16, 256, 1, 1,
                 65536, 1, 1] for corr, s, e, name, kid in KERNELS]
    write_csv(pre + "kernel_trace.csv", header, rows)
    prefix = "" if generation == "A" else "MEMORY_COPY_"
    src = lambda d: ("Agent 0" if generation == "C" else 0) if d == "HOST_TO_DEVICE" else agent
    dst = lambda d: agent if d == "HOST_TO_DEVICE" else ("Agent 0" if generation == "C" else 0)
    if generation == "C":
        write_csv(pre + "memory_copy_trace.csv",
                  ["Kind", "Direction", "Stream_Id", "Source_Agent_Id", "Destination_Agent_Id", "Correlation_Id",
                   "Start_Timestamp", "End_Timestamp"],
                  [["MEMORY_COPY", prefix + d, 0, src(d), dst(d), corr, s, e] for corr, s, e, d, _ in COPIES])
    else:
        write_csv(pre + "memory_copy_trace.csv",
                  ["Kind", "Direction", "Source_Agent_Id", "Destination_Agent_Id", "Correlation_Id",
                   "Start_Timestamp", "End_Timestamp"],
                  [["MEMORY_COPY", prefix + d, src(d), dst(d), corr, s, e] for corr, s, e, d, _ in COPIES])
    api_header = ["Domain", "Function", "Process_Id", "Thread_Id", "Correlation_Id", "Start_Timestamp",
                  "End_Timestamp"]
    domain = "HIP_RUNTIME_API_EXT" if generation == "C" else "HIP_RUNTIME_API"
    write_csv(pre + "hip_api_trace.csv", api_header, [[domain, n, P, P, c, s, e] for c, s, e, n in APIS])
    write_csv(pre + "marker_api_trace.csv", api_header,
              [["MARKER_CORE_API", t, P, P, c, s, e] for c, s, e, t in MARKERS])
    # Allocations: 4 kB on the GPU freed after the kernels (device memory events), 64 B on the host
    # (counted only); the free names no agent and no size, as rocprofv3 writes it.
    host = "Agent 0" if generation == "C" else 0
    write_csv(pre + "memory_allocation_trace.csv",
              ["Kind", "Operation", "Agent_Id", "Allocation_Size", "Address", "Correlation_Id", "Start_Timestamp",
               "End_Timestamp"], [["MEMORY_ALLOCATION", "MEMORY_ALLOCATION_ALLOCATE", agent, 4096, "0x7f0000001000",
                                   9, 100500, 100900],
                                  ["MEMORY_ALLOCATION", "MEMORY_ALLOCATION_ALLOCATE", host, 64, "0x1", 10, 101000,
                                   101100],
                                  ["MEMORY_ALLOCATION", "MEMORY_ALLOCATION_FREE", "", 0, "0x7f0000001000", 11, 150000,
                                   150500]])
    # (in C) another process's file that must not be read.
    if generation == "C":
        write_csv(os.path.join(folder, "999_kernel_trace.csv"), header, rows[:1])


def rocprof_legacy():
    os.makedirs("rocprof_v1", exist_ok=True)
    header = ["Index", "KernelName", "gpu-id", "queue-id", "queue-index", "pid", "tid", "grd", "wgr", "lds", "scr",
              "arch_vgpr", "accum_vgpr", "sgpr", "wave_size", "sig", "obj", "DispatchNs", "BeginNs", "EndNs",
              "CompleteNs", "DurationNs"]
    rows = [[i, name + (" [clone .kd]" if not name.startswith("__") else ".kd"), 2, 1, i, P, P, 65536, 256, 1024, 0,
             64, 0, 16, 64, "0x0", "0x7f", s - 100, s, e, e + 50, e - s]
            for i, (corr, s, e, name, kid) in enumerate(KERNELS)]
    write_csv("rocprof_v1/results.csv", header, rows)
    # Counter mode: unquoted header, no timestamps.
    with open("rocprof_v1/counters.csv", "w") as f:
        f.write("Index,KernelName,gpu-id,queue-id,queue-index,pid,tid,grd,wgr,lds,scr,arch_vgpr,accum_vgpr,sgpr,"
                "wave_size,sig,obj,GPUBusy,Wavefronts\n")
        f.write('0,"gemm(float*) [clone .kd]",2,1,0,300,300,65536,256,1024,0,64,0,16,64,0x0,0x7f,100.0,256.0\n')
    # results.json as tblextr.py writes it: pids 1 COPY, 2 CPU HIP API, 6+n GPU n; strings for times.
    ev = ['{ "traceEvents":[{}',
          ',{"args":{"name":"CPU HIP API"},"ph":"M","pid":2,"name":"process_name","sort_index":0}',
          ',{"args":{"name":"COPY"},"ph":"M","pid":1,"name":"process_name","sort_index":1}',
          ',{"args":{"name":"GPU0"},"ph":"M","pid":8,"name":"process_name","sort_index":2}']
    for corr, s, e, d, _ in COPIES:
        name = "CopyHostToDevice" if d == "HOST_TO_DEVICE" else "CopyDeviceToHost"
        ev.append(f',{{"ph":"X","name":"{name}","pid":1,"tid":0,"ts":"{s // 1000}","dur":"{(e - s) // 1000}",'
                  f'"args":{{"BeginNs":"{s}","EndNs":"{e}","dev-id":"2","queue-id":"0","Name":"{name}",'
                  f'"pid":"{P}","tid":"{P}","stream-id":"0","Data":"","DurationNs":"{e - s}"}}}}')
    for corr, s, e, name in APIS:
        size = {1: 4096, 5: 64}.get(corr)
        args = f"( dst(0x1) src(0x2) sizeBytes({size}) kind(1))" if size else "( )"
        ev.append(f',{{"ph":"X","name":"{name}","pid":2,"tid":{P},"ts":"{s // 1000}","dur":"{(e - s) // 1000}",'
                  f'"args":{{"BeginNs":"{s}","EndNs":"{e}","pid":"{P}","tid":"{P}","Name":"{name}",'
                  f'"args":"{args}","Data":"","DurationNs":"{e - s}"}}}}')
    for corr, s, e, name, kid in KERNELS:
        ev.append(f',{{"ph":"X","name":"{name}","pid":8,"tid":1,"ts":"{s // 1000}","dur":"{(e - s) // 1000}",'
                  f'"args":{{"BeginNs":"{s}","EndNs":"{e}","dev-id":"2","queue-id":"1","Name":"{name}",'
                  f'"pid":"{P}","tid":"{P}","stream-id":"1","Data":"","DurationNs":"{e - s}"}}}}')
    # Flows: "s" at each call's midpoint, "t" at its op's start (us).
    ops = {c: (s, 1, 0) for c, s, e, d, _ in COPIES}
    ops.update({c: (s, 8, 1) for c, s, e, n, k in KERNELS})
    for i, (corr, s, e, name) in enumerate(APIS):
        op_s, op_pid, op_tid = ops[corr]
        ev.append(f',{{"ts":{(s + e) // 2 // 1000},"ph":"s","cat":"DataFlow","id":{i},"pid":2,"tid":{P},"name":"dep"}}')
        ev.append(f',{{"ts":{op_s // 1000},"ph":"t","cat":"DataFlow","id":{i},"pid":{op_pid},"tid":{op_tid},'
                  f'"name":"dep"}}')
    text = "\n".join(ev) + '\n],"otherData": {\n    "Agent0.Name": "gfx942"\n  }\n}\n'
    with open("rocprof_v1/results.json", "w") as f:
        f.write(text)
    with open("rocprof_v1/cut_results.json", "w") as f:  # cut inside the kernel events
        f.write(text[:text.index('"name":"gemm(float*)"') + 60])
    write_csv("rocprof_v1/results.stats.csv", ["Name", "Calls", "TotalDurationNs", "AverageNs", "Percentage"],
              [["gemm(float*) [clone .kd]", 2, 42000, 21000, 93.33333333333333],
               ["__amd_rocclr_copyBuffer.kd", 1, 3000, 3000, 6.666666666666667]])
    write_csv("rocprof_v1/results.hip_stats.csv", ["Name", "Calls", "TotalDurationNs", "AverageNs", "Percentage"],
              [["hipMemcpy", 1, 9000, 9000, 50.0], ["hipLaunchKernel", 3, 4000, 1333, 22.2]])
    os.makedirs("rocprof_v1/rpl_data", exist_ok=True)
    with open("rocprof_v1/rpl_data/hip_api_trace.txt", "w") as f:
        for corr, s, e, name in APIS:
            size = {1: 4096, 5: 64}.get(corr)
            args = f"dst=0x1, src=0x2, sizeBytes={size}, kind=1" if size else "stream=0x0"
            launched = {c: n for c, _, _, n, _ in KERNELS}
            kernel = f" kernel={launched[corr]}" if name == "hipLaunchKernel" else ""
            f.write(f"{s}:{e} {P}:{P} {name}({args}){kernel} :{corr}\n")
    with open("rocprof_v1/rpl_data/hcc_ops_trace.txt", "w") as f:
        for corr, s, e, d, _ in COPIES:
            f.write(f"{s}:{e} 2:0 {'CopyHostToDevice' if d == 'HOST_TO_DEVICE' else 'CopyDeviceToHost'}:{corr}:{P}\n")
        for corr, s, e, name, kid in KERNELS:
            f.write(f"{s}:{e} 2:1 {name.split('(')[0]}:{corr}:{P}\n")


def main():
    rocprofv3_json()
    for gen in ("A", "B", "C"):
        rocprofv3_csv(f"rocprofv3_csv_{gen}", gen)
    rocprof_legacy()


if __name__ == "__main__":
    main()

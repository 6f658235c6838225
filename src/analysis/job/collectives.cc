#include "analysis/job/collectives.h"

#include <algorithm>
#include <cctype>

#include "model/op_args.h"

namespace gpuscope::analysis {

namespace {

std::string Squashed(std::string_view s) {
  std::string out;
  for (char ch : s) {
    if (ch != '_' && ch != ' ' && ch != '-') out += static_cast<char>(std::tolower(ch));
  }
  return out;
}

// "AllReduce" from "ncclKernel_AllReduce_RING_LL_Sum_float(...)"; "" for ncclDevKernel_Generic.
std::string NameFromKernel(std::string_view k, std::string* dtype) {
  size_t paren = k.find('(');
  std::string_view head = k.substr(0, paren);
  size_t a = head.find('_');
  if (a == std::string_view::npos) return "";
  std::string_view rest = head.substr(a + 1);
  std::string_view op = rest.substr(0, rest.find('_'));
  if (op == "Generic" || op.empty()) return "";
  // <op>_<algorithm>_<protocol>_<reduction>_<dtype>: the dtype is what follows the fourth '_'.
  size_t p = 0;
  for (int i = 0; i < 4 && p != std::string_view::npos; ++i) {
    p = rest.find('_', p);
    if (p != std::string_view::npos) ++p;
  }
  if (p != std::string_view::npos && p < rest.size()) *dtype = std::string(rest.substr(p));
  return NormalCollectiveName(op);
}

// The ops around the kernel's launch: the innermost that recorded the collective's description
// (record_param_comms), and the innermost whose name says which collective it is
// ("nccl:all_reduce", "c10d::allreduce_"); kNoRow when there is none.
struct AroundLaunch {
  model::RowId described = model::kNoRow;
  model::RowId named = model::kNoRow;
};

// The collective a range's name says: "nccl:all_reduce", "c10d::allreduce_" (PyTorch),
// "ncclAllReduce" (NCCL's own NVTX ranges); "" when it names none (ncclGroupEnd, other ops).
std::string CollectiveInName(std::string_view n) {
  std::string_view rest;
  for (std::string_view prefix : {"nccl:", "rccl:", "gloo:", "c10d::", "nccl", "rccl"}) {
    if (n.starts_with(prefix)) {
      rest = n.substr(prefix.size());
      break;
    }
  }
  if (rest.empty()) return "";
  std::string c = NormalCollectiveName(rest);
  for (std::string_view known : {"allreduce", "allgather", "reduce_scatter", "alltoall",
                                 "broadcast", "reduce", "sendrecv", "barrier"}) {
    if (c == known) return c;
  }
  return "";
}

AroundLaunch CollectiveOps(const model::Trace& t, size_t k) {
  AroundLaunch out;
  model::RowId api = t.kernels.launch[k];
  if (api == model::kNoRow) return out;
  model::RowId op = t.api.enclosing_op[api];
  model::OpArgs args;
  for (int depth = 0; op != model::kNoRow && depth < 64; ++depth, op = t.cpu.parent[op]) {
    if (out.named == model::kNoRow && !CollectiveInName(t.str(t.cpu.name[op])).empty())
      out.named = op;
    if (out.described == model::kNoRow && t.cpu.args[op] != 0 &&
        model::DecodeOpArgs(t.str(t.cpu.args[op]), &args) && args.collective.present())
      out.described = op;
  }
  return out;
}

}  // namespace

std::string NormalCollectiveName(std::string_view recorded) {
  std::string s = Squashed(recorded);
  if (s.find("allreduce") != std::string::npos) return "allreduce";
  if (s.find("allgather") != std::string::npos) return "allgather";
  if (s.find("reducescatter") != std::string::npos) return "reduce_scatter";
  if (s.find("alltoall") != std::string::npos) return "alltoall";
  if (s.find("broadcast") != std::string::npos) return "broadcast";
  if (s.find("sendrecv") != std::string::npos || s == "send" || s == "recv") return "sendrecv";
  if (s.find("reduce") != std::string::npos) return "reduce";
  if (s.find("barrier") != std::string::npos) return "barrier";
  return s.empty() ? std::string("collective") : s;
}

int64_t DtypeBytes(std::string_view dtype) {
  std::string s = Squashed(dtype);
  if (s.starts_with("c10::")) s = s.substr(5);
  if (s == "double" || s == "float64" || s == "long" || s == "int64" || s == "int64t" ||
      s == "complexfloat" || s == "uint64" || s == "uint64t")
    return 8;
  if (s == "float" || s == "float32" || s == "int" || s == "int32" || s == "int32t" ||
      s == "uint32" || s == "uint32t")
    return 4;
  if (s == "half" || s == "float16" || s == "bfloat16" || s == "bf16" || s == "fp16" ||
      s == "short" || s == "int16" || s == "int16t")
    return 2;
  if (s == "byte" || s == "char" || s == "bool" || s == "int8" || s == "int8t" || s == "uint8" ||
      s == "uint8t" || s == "unsignedchar" || s.starts_with("float8") || s.starts_with("fp8"))
    return 1;
  return 0;
}

double BusBandwidthFactor(std::string_view c, int64_t n) {
  if (n < 1) return 1;
  double f = static_cast<double>(n - 1) / static_cast<double>(n);
  if (c == "allreduce") return 2 * f;
  if (c == "allgather" || c == "reduce_scatter" || c == "alltoall") return f;
  return 1;
}

std::vector<CollectiveCall> FindCollectives(const model::Trace& t) {
  std::vector<CollectiveCall> out;
  model::RowId last_op = model::kNoRow;
  model::OpArgs args;
  for (size_t k = 0; k < t.kernels.size(); ++k) {
    std::string_view name = t.str(t.kernels.name[k]);
    if (!IsCommKernelName(name)) continue;
    AroundLaunch around = CollectiveOps(t, k);
    model::RowId op = around.described != model::kNoRow ? around.described : around.named;
    if (op != model::kNoRow && op == last_op && !out.empty()) {
      // Another kernel of the same op (a grouped send/recv): the call spans both.
      CollectiveCall& c = out.back();
      c.start_ns = std::min(c.start_ns, t.kernels.start_ns[k]);
      c.end_ns = std::max(c.end_ns, t.kernels.end_ns(k));
      continue;
    }
    last_op = op;
    CollectiveCall c;
    c.kernel = k;
    c.start_ns = t.kernels.start_ns[k];
    c.end_ns = t.kernels.end_ns(k);
    if (around.described != model::kNoRow && model::DecodeOpArgs(t.str(t.cpu.args[op]), &args)) {
      const model::CollectiveArgs& a = args.collective;
      c.name = NormalCollectiveName(a.name);
      c.group = a.group;
      c.dtype = a.dtype;
      c.group_size = a.group_size;
      c.seq = a.seq;
      int64_t elems = std::max(a.in_nelems, a.out_nelems);
      int64_t size = DtypeBytes(a.dtype);
      if (elems >= 0 && size > 0 && elems <= INT64_MAX / size) c.bytes = elems * size;
    } else {
      c.name = NameFromKernel(name, &c.dtype);
      if (op != model::kNoRow) {
        // "nccl:all_to_all" around a SendRecv kernel: the op says what the kernel implements.
        c.name = CollectiveInName(t.str(t.cpu.name[op]));
      }
      if (c.name.empty()) c.name = "collective";
    }
    out.push_back(std::move(c));
  }
  std::stable_sort(out.begin(), out.end(), [](const CollectiveCall& a, const CollectiveCall& b) {
    return a.start_ns < b.start_ns;
  });
  return out;
}

}  // namespace gpuscope::analysis

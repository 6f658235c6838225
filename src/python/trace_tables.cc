#include "python/trace_tables.h"

#include <algorithm>

#include "analysis/work/kernel_categories.h"
#include "model/enums.h"

namespace gpuscope::python {

const char* const kTableNames =
    "kernels, memops, api, cpu_ops, annotations, python_frames, iterations, memory";

namespace {

using model::kNoRow;
using model::RowId;
using Columns = std::vector<std::unique_ptr<ArrowNode>>;

// Builds the columns of one table; owns the dictionary of the trace's names.
class Tables {
 public:
  explicit Tables(const std::shared_ptr<model::Trace>& t) : t_(t), owner_(t) {
    std::vector<std::string_view> all(t->strings.size());
    for (size_t i = 0; i < all.size(); ++i) all[i] = t->str(static_cast<model::StringId>(i));
    names_ = StringArray(all);
  }

  template <typename T>
  std::unique_ptr<ArrowNode> Col(const char* name, const char* format, const std::vector<T>& v) {
    return Primitive(name, format, static_cast<int64_t>(v.size()), v.data(), owner_);
  }
  std::unique_ptr<ArrowNode> Names(const char* name, const std::vector<model::StringId>& ids) {
    return Dictionary(name, static_cast<int64_t>(ids.size()), ids.data(), owner_, names_);
  }
  // Owned copies for gathered rows.
  std::unique_ptr<ArrowNode> Owned(const char* name, std::vector<int64_t> v) {
    auto data = std::make_shared<std::vector<int64_t>>(std::move(v));
    return Primitive(name, "l", static_cast<int64_t>(data->size()), data->data(), data);
  }
  std::unique_ptr<ArrowNode> OwnedNames(const char* name, std::vector<model::StringId> v) {
    auto data = std::make_shared<std::vector<model::StringId>>(std::move(v));
    return Dictionary(name, static_cast<int64_t>(data->size()), data->data(), data, names_);
  }
  // Row ids with kNoRow as null.
  std::unique_ptr<ArrowNode> Links(const char* name, const std::vector<RowId>& rows) {
    std::vector<int64_t> v(rows.size());
    std::vector<uint8_t> ok(rows.size());
    for (size_t i = 0; i < rows.size(); ++i) {
      ok[i] = rows[i] != kNoRow;
      v[i] = ok[i] ? rows[i] : 0;
    }
    return NullableInt64(name, std::move(v), ok);
  }
  // Small enum columns as strings (dictionary of their spellings).
  template <typename E, typename F>
  std::unique_ptr<ArrowNode> Enum(const char* name, const std::vector<E>& v, int count, F spell) {
    std::vector<std::string_view> words;
    for (int k = 0; k < count; ++k) words.push_back(spell(static_cast<E>(k)));
    auto ids = std::make_shared<std::vector<uint32_t>>(v.size());
    for (size_t i = 0; i < v.size(); ++i) (*ids)[i] = static_cast<uint32_t>(v[i]);
    return Dictionary(name, static_cast<int64_t>(v.size()), ids->data(), ids, StringArray(words));
  }
  // Per event: the thread id / stream id of its track, and the iteration its time falls in.
  std::unique_ptr<ArrowNode> TrackTid(const char* name, const std::vector<model::TrackId>& tr) {
    std::vector<int64_t> v(tr.size());
    for (size_t i = 0; i < tr.size(); ++i) v[i] = t_->tracks[tr[i]].tid;
    return Owned(name, std::move(v));
  }
  std::unique_ptr<ArrowNode> TrackPid(const char* name, const std::vector<model::TrackId>& tr) {
    std::vector<int64_t> v(tr.size());
    for (size_t i = 0; i < tr.size(); ++i) v[i] = t_->tracks[tr[i]].pid;
    return Owned(name, std::move(v));
  }
  std::unique_ptr<ArrowNode> IterationOf(const std::vector<int64_t>& ts) {
    const auto& it = t_->iterations;
    std::vector<int64_t> v(ts.size());
    std::vector<uint8_t> ok(ts.size());
    for (size_t i = 0; i < ts.size(); ++i) {
      auto p =
          std::upper_bound(it.begin(), it.end(), ts[i],
                           [](int64_t x, const model::Iteration& m) { return x < m.start_ns; });
      if (p != it.begin() && ts[i] < (p - 1)->start_ns + (p - 1)->dur_ns)
        ok[i] = 1, v[i] = (p - 1)->number;
    }
    return NullableInt64("iteration", std::move(v), ok);
  }
  std::unique_ptr<ArrowNode> Ids(size_t n) {
    std::vector<int64_t> v(n);
    for (size_t i = 0; i < n; ++i) v[i] = static_cast<int64_t>(i);
    return Owned("id", std::move(v));
  }
  // Launch dimensions (grid or block) as a list<uint32>[3] column.
  std::unique_ptr<ArrowNode> Dims(const char* name, const std::vector<model::Dim3>& dims) {
    return Triples(name, static_cast<int64_t>(dims.size()),
                   dims.empty() ? nullptr : dims.front().data(), owner_);
  }
  // The columns every slice table starts with: id (its row), start_ns, dur_ns, name.
  Columns SliceHead(const model::SliceColumns& rows) {
    Columns c;
    c.push_back(Ids(rows.size()));
    c.push_back(Col("start_ns", "l", rows.start_ns));
    c.push_back(Col("dur_ns", "l", rows.dur_ns));
    c.push_back(Names("name", rows.name));
    return c;
  }

  // The launch call's op and that op's Python frame, per GPU op.
  void LaunchLinks(Columns& c, const std::vector<RowId>& launch, const std::vector<int64_t>& ts) {
    std::vector<RowId> op(launch.size(), kNoRow), frame(launch.size(), kNoRow);
    std::vector<int64_t> when(ts);
    for (size_t i = 0; i < launch.size(); ++i) {
      if (launch[i] == kNoRow) continue;
      when[i] = t_->api.start_ns[launch[i]];
      op[i] = t_->api.enclosing_op[launch[i]];
      if (op[i] != kNoRow) frame[i] = t_->cpu.python_frame[op[i]];
    }
    c.push_back(Links("launch_id", launch));
    c.push_back(Links("op_id", op));
    c.push_back(Links("python_frame_id", frame));
    c.push_back(IterationOf(when));  // the iteration that launched it
  }

  Columns Kernels() {
    const auto& k = t_->kernels;
    Columns c = SliceHead(k);
    c.push_back(Col("device", "s", k.device));
    c.push_back(TrackTid("stream", k.track));
    c.push_back(Col("correlation", "L", k.correlation));
    c.push_back(Dims("grid", k.grid));
    c.push_back(Dims("block", k.block));
    c.push_back(Col("registers", "I", k.registers));
    c.push_back(Col("shared_mem", "I", k.shared_mem));
    LaunchLinks(c, k.launch, k.start_ns);
    // The kernel's category by the built-in table (gpuscope help categories).
    c.push_back(Enum("category",
                     analysis::CategorizeKernels(*t_, *analysis::BuiltInCategoryRules()),
                     static_cast<int>(analysis::kCategoryCount), analysis::CategoryName));
    return c;
  }
  Columns Memops() {
    const auto& m = t_->memops;
    Columns c = SliceHead(m);
    c.push_back(Enum("kind", m.kind, model::kMemopKindCount, model::MemopKindName));
    std::vector<uint8_t> known(m.size());
    for (size_t i = 0; i < m.size(); ++i) known[i] = m.bytes[i] >= 0;
    c.push_back(NullableInt64("bytes", m.bytes, known));  // -1 (not recorded) is null
    c.push_back(Enum("src", m.src, model::kMemoryKindCount, model::MemoryKindTitle));
    c.push_back(Enum("dst", m.dst, model::kMemoryKindCount, model::MemoryKindTitle));
    c.push_back(Col("device", "s", m.device));
    c.push_back(TrackTid("stream", m.track));
    c.push_back(Col("correlation", "L", m.correlation));
    LaunchLinks(c, m.launch, m.start_ns);
    return c;
  }
  Columns Api() {
    const auto& a = t_->api;
    Columns c = SliceHead(a);
    c.push_back(Enum("domain", a.domain, model::kApiDomainCount, model::ApiDomainName));
    c.push_back(TrackPid("pid", a.track));
    c.push_back(TrackTid("tid", a.track));
    c.push_back(Col("correlation", "L", a.correlation));
    c.push_back(Col("external_id", "L", a.external_id));
    c.push_back(Links("op_id", a.enclosing_op));
    c.push_back(IterationOf(a.start_ns));
    return c;
  }
  // CPU ranges of one kind, gathered (ids are rows of the whole CPU-range table, which op_id and
  // parent_id refer to).
  Columns Cpu(model::CpuRangeKind kind) {
    const auto& r = t_->cpu;
    std::vector<size_t> rows;
    for (size_t i = 0; i < r.size(); ++i)
      if (r.kind[i] == kind) rows.push_back(i);
    std::vector<int64_t> id, start, dur, depth, ext;
    std::vector<model::StringId> name, args;
    std::vector<RowId> parent, frame;
    std::vector<model::TrackId> track;
    for (size_t i : rows) {
      id.push_back(static_cast<int64_t>(i)), start.push_back(r.start_ns[i]);
      dur.push_back(r.dur_ns[i]), depth.push_back(r.depth[i]);
      ext.push_back(static_cast<int64_t>(r.external_id[i]));
      name.push_back(r.name[i]), args.push_back(r.args[i]);
      parent.push_back(r.parent[i]), frame.push_back(r.python_frame[i]);
      track.push_back(r.track[i]);
    }
    Columns c;
    c.push_back(Owned("id", id));
    c.push_back(Owned("start_ns", start));
    c.push_back(Owned("dur_ns", dur));
    c.push_back(OwnedNames("name", name));
    c.push_back(TrackPid("pid", track));
    c.push_back(TrackTid("tid", track));
    c.push_back(Links("parent_id", parent));
    c.push_back(Links("python_frame_id", frame));
    c.push_back(Owned("depth", depth));
    c.push_back(Owned("external_id", ext));
    if (kind == model::CpuRangeKind::kOp) c.push_back(OwnedNames("args", args));
    c.push_back(IterationOf(start));
    return c;
  }
  Columns Python() {
    const auto& p = t_->python;
    Columns c = SliceHead(p);
    c.push_back(TrackPid("pid", p.track));
    c.push_back(TrackTid("tid", p.track));
    c.push_back(Links("parent_id", p.parent));
    c.push_back(Col("python_id", "l", p.python_id));
    c.push_back(IterationOf(p.start_ns));
    return c;
  }
  // The device allocator's events (model::MemoryEventTable); totals -1 (not recorded) as null.
  Columns Memory() {
    const auto& m = t_->memory;
    auto total = [](const char* name, const std::vector<int64_t>& v) {
      std::vector<uint8_t> ok(v.size());
      for (size_t i = 0; i < v.size(); ++i) ok[i] = v[i] >= 0;
      return NullableInt64(name, v, ok);
    };
    Columns c;
    c.push_back(Ids(m.size()));
    c.push_back(Col("ts_ns", "l", m.ts_ns));
    c.push_back(Col("device", "s", m.device));
    c.push_back(Col("bytes", "l", m.bytes));
    c.push_back(total("allocated_bytes", m.allocated));
    c.push_back(total("reserved_bytes", m.reserved));
    c.push_back(Col("addr", "L", m.addr));
    c.push_back(TrackPid("pid", m.track));
    c.push_back(TrackTid("tid", m.track));
    c.push_back(IterationOf(m.ts_ns));
    return c;
  }
  Columns Iterations() {
    std::vector<int64_t> num, start, dur;
    for (const auto& it : t_->iterations)
      num.push_back(it.number), start.push_back(it.start_ns), dur.push_back(it.dur_ns);
    Columns c;
    c.push_back(Owned("number", num));
    c.push_back(Owned("start_ns", start));
    c.push_back(Owned("dur_ns", dur));
    return c;
  }

 private:
  std::shared_ptr<model::Trace> t_;
  std::shared_ptr<const void> owner_;
  std::shared_ptr<const ArrowNode> names_;
};

}  // namespace

bool ExportTable(const std::shared_ptr<model::Trace>& trace, const std::string& which,
                 ArrowSchema* schema, ArrowArray* array) {
  Tables t(trace);
  Columns c;
  if (which == "kernels")
    c = t.Kernels();
  else if (which == "memops")
    c = t.Memops();
  else if (which == "api")
    c = t.Api();
  else if (which == "cpu_ops")
    c = t.Cpu(model::CpuRangeKind::kOp);
  else if (which == "annotations")
    c = t.Cpu(model::CpuRangeKind::kAnnotation);
  else if (which == "python_frames")
    c = t.Python();
  else if (which == "iterations")
    c = t.Iterations();
  else if (which == "memory")
    c = t.Memory();
  else
    return false;
  int64_t rows = c.empty() ? 0 : c.front()->length;
  ExportBatch(std::move(c), rows, schema, array);
  return true;
}

}  // namespace gpuscope::python

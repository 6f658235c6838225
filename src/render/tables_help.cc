#include "render/tables_help.h"

#include "output/text_table.h"
#include "render/result_table.h"
#include "render/schema_version.h"

namespace gpuscope::render {
namespace {

using Columns = std::vector<TableColumnDoc>;

// The columns every table of timed events starts with.
Columns Head(std::string_view what) {
  return {{"id", "int64", "row", "the row, what other tables' *_id columns refer to"},
          {"start_ns", "int64", "ns", "start on the trace's clock"},
          {"dur_ns", "int64", "ns", "duration"},
          {"name", "string", "text", what}};
}

// The link columns of a GPU op (kernel, copy): its launch, the op and Python line around it.
Columns LaunchLinks() {
  return {{"launch_id", "int64?", "row", "api.id of the call that launched it (null: not linked)"},
          {"op_id", "int64?", "row", "cpu_ops.id of the innermost op around the launch"},
          {"python_frame_id", "int64?", "row", "python_frames.id of that op's Python frame"},
          {"iteration", "int64?", "step", "iterations.number of the step that launched it"}};
}

Columns Join(Columns a, const Columns& b) {
  a.insert(a.end(), b.begin(), b.end());
  return a;
}

const TableColumnDoc kPid = {"pid", "int64", "id", "process id of its thread"};
const TableColumnDoc kTid = {"tid", "int64", "id", "thread id"};
const TableColumnDoc kIteration = {"iteration", "int64?", "step",
                                   "iterations.number of the step its start falls in"};

std::vector<TableDoc> MakeTables() {
  std::vector<TableDoc> t;
  t.push_back({"kernels", "one per GPU kernel",
               Join(Join(Head("kernel name as recorded (mangled names kept)"),
                         {{"device", "int16", "id", "GPU index"},
                          {"stream", "int64", "id", "stream (queue) id"},
                          {"correlation", "uint64", "id", "correlation id of the launch"},
                          {"grid", "uint32[3]", "blocks", "grid size x, y, z (0: not recorded)"},
                          {"block", "uint32[3]", "threads", "block size x, y, z"},
                          {"registers", "uint32", "count", "registers per thread"},
                          {"shared_mem", "uint32", "bytes", "shared memory per block"}}),
                    Join(LaunchLinks(),
                         {{"category", "string", "text",
                           "kernel category by the built-in table (gpuscope help categories)"}}))});
  t.push_back({"memops", "one per copy or memset on a GPU",
               Join(Join(Head("the copy's name as recorded"),
                         {{"kind", "string", "text", "HtoD, DtoH, DtoD, HtoH, PtoP, Memset, Other"},
                          {"bytes", "int64?", "bytes", "size (null: not recorded)"},
                          {"src", "string", "text",
                           "source memory: Pageable, Pinned, Device, ... (empty: unknown)"},
                          {"dst", "string", "text", "destination memory"},
                          {"device", "int16", "id", "GPU index"},
                          {"stream", "int64", "id", "stream (queue) id"},
                          {"correlation", "uint64", "id", "correlation id of the launch"}}),
                    LaunchLinks())});
  t.push_back({"api", "one per runtime / driver / OS call",
               Join(Head("the call (cudaLaunchKernel, hipMemcpyAsync, ...)"),
                    {{"domain", "string", "text", "runtime, driver, hsa or os"},
                     kPid,
                     kTid,
                     {"correlation", "uint64", "id", "links the call to the GPU ops it launched"},
                     {"external_id", "uint64", "id", "the profiler's external id, as recorded"},
                     {"op_id", "int64?", "row", "cpu_ops.id of the innermost op around it"},
                     kIteration})});
  Columns cpu = Join(Head("the op (aten::mm, ...)"),
                     {kPid,
                      kTid,
                      {"parent_id", "int64?", "row", "id of the enclosing op or annotation"},
                      {"python_frame_id", "int64?", "row", "python_frames.id of its Python frame"},
                      {"depth", "int64", "count", "nesting depth (0: outermost)"},
                      {"external_id", "int64", "id", "the profiler's external id"}});
  Columns ops = cpu;
  ops.push_back({"args", "string", "json",
                 "recorded shapes and types as a JSON object (empty: not recorded)"});
  ops.push_back(kIteration);
  cpu.push_back(kIteration);
  cpu[3].meaning = "the annotation (record_function, NVTX / roctx range, ProfilerStep#N)";
  t.push_back({"cpu_ops", "one per framework op on a host thread", ops});
  t.push_back({"annotations", "one per user annotation range", cpu});
  t.push_back({"python_frames", "one per Python frame (with_stack=True)",
               Join(Head("\"file.py(12): function\""),
                    {kPid,
                     kTid,
                     {"parent_id", "int64?", "row", "python_frames.id of the caller"},
                     {"python_id", "int64", "id", "the profiler's Python id"},
                     kIteration})});
  t.push_back({"iterations",
               "one per step (ProfilerStep#N)",
               {{"number", "int64", "step", "the step's number"},
                {"start_ns", "int64", "ns", "start on the trace's clock"},
                {"dur_ns", "int64", "ns", "duration"}}});
  t.push_back({"memory",
               "one per allocation or free of the GPU allocator",
               {{"id", "int64", "row", "the row"},
                {"ts_ns", "int64", "ns", "when, on the trace's clock"},
                {"device", "int16", "id", "GPU index"},
                {"bytes", "int64", "bytes", "> 0 allocated, < 0 freed"},
                {"allocated_bytes", "int64?", "bytes", "allocated after it (null: not recorded)"},
                {"reserved_bytes", "int64?", "bytes", "reserved after it (null: not recorded)"},
                {"addr", "uint64", "address", "the block's address"},
                kPid,
                kTid,
                kIteration}});
  t.push_back(
      {"findings",
       "one per finding of `analyze` (the default options)",
       {{"id", "int64", "row", "the finding's place in analyze's list (largest impact first)"},
        {"rule", "string", "text", "the rule (gpuscope help findings)"},
        {"severity", "string", "text", "high, medium, low or info"},
        {"title", "string", "text", "what the rule found"},
        {"impact_ns", "int64", "ns", "wall time its fix saves, on top of the fixes before it"},
        {"impact_percent", "float64", "percent", "impact_ns of the replayed window"},
        {"standalone_ns", "int64", "ns", "what its fix alone saves"},
        {"python", "string", "text", "the Python line it points at (empty: none)"},
        {"op", "string", "text", "the framework op it points at"},
        {"kernel", "string", "text", "the kernel it points at"},
        {"detail", "string", "text", "what was measured"},
        {"advice", "string", "text", "what to do"}}});
  return t;
}

ResultTable ColumnsTable() {
  ResultTable r({{"table", "Table", Show::kText},
                 {"column", "Column", Show::kText},
                 {"type", "Type", Show::kText},
                 {"unit", "Unit", Show::kText},
                 Column::Flexible("meaning", "Meaning")});
  for (const TableDoc& t : QueryTables()) {
    for (const TableColumnDoc& c : t.columns) {
      r.AddRow({Cell::Text(std::string(t.name)), Cell::Text(std::string(c.name)),
                Cell::Text(std::string(c.type)), Cell::Text(std::string(c.unit)),
                Cell::Text(std::string(c.meaning))});
    }
  }
  return r;
}

constexpr std::string_view kIntro =
    "The tables of a loaded trace: Trace.kernels() ... in Python (pyarrow), and the tables "
    "gpuscope.query(trace, sql) and the MCP server's query tool run SQL over (DuckDB). Types "
    "with ? can be null; uint32[3] is a fixed-size list; *_id columns hold the `id` of a row of "
    "another table.";

}  // namespace

const std::vector<TableDoc>& QueryTables() {
  static const std::vector<TableDoc> tables = MakeTables();
  return tables;
}

std::string TablesHelp(std::string_view format) {
  if (format == "csv") return ColumnsTable().Csv();
  if (format == "json") {
    output::JsonWriter w;
    BeginDocument(w).Key("topic").String("tables");
    w.Key("tables").BeginArray();
    for (const TableDoc& t : QueryTables()) {
      w.BeginObject().Key("name").String(t.name).Key("rows").String(t.rows);
      w.Key("columns").BeginArray();
      for (const TableColumnDoc& c : t.columns) {
        w.BeginObject().Key("name").String(c.name).Key("type").String(c.type);
        w.Key("unit").String(c.unit).Key("meaning").String(c.meaning).EndObject();
      }
      w.EndArray().EndObject();
    }
    w.EndArray().EndObject();
    return w.str();
  }
  std::string out;
  if (format == "markdown") {
    out =
        "# Tables\n\nGenerated by `gpuscope help tables --format markdown` from "
        "`src/render/tables_help.cc`.\n\n" +
        std::string(kIntro) + "\n";
    for (const TableDoc& t : QueryTables()) {
      out.append("\n## `").append(t.name).append("`: ").append(t.rows).append("\n\n");
      out += "| column | type | unit | meaning |\n| --- | --- | --- | --- |\n";
      for (const TableColumnDoc& c : t.columns) {
        out.append("| `").append(c.name).append("` | ").append(c.type).append(" | ");
        out.append(c.unit).append(" | ").append(c.meaning).append(" |\n");
      }
    }
    return out;
  }
  out = std::string(kIntro) + "\n";
  for (const TableDoc& t : QueryTables()) {
    out.append("\n").append(t.name).append(" (").append(t.rows).append("):\n");
    for (const TableColumnDoc& c : t.columns) {
      out.append("  ").append(c.name).append(" (").append(c.type).append(", ").append(c.unit);
      out.append("): ").append(c.meaning).append("\n");
    }
  }
  return out;
}

}  // namespace gpuscope::render

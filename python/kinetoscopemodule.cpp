// The `kinetoscope` Python module: a loaded trace with numpy views of the model's columns (no
// copy: each array keeps the trace alive through its base object), its strings, and the
// analyses returning what the CLI's --json prints, as Python objects (docs/python.md).
//
// Adding an analysis is one short function: compute its JSON in core (the CLI prints the same)
// and return jsonToPython(...) from a .def on PyTrace below.
#include "core/analysis/criticalpathjson.h"
#include "core/analysis/diffjson.h"
#include "core/analysis/insightsjson.h"
#include "core/analysis/memoryjson.h"
#include "core/analysis/opsreport.h"
#include "core/analysis/ranksjson.h"
#include "core/facts/tracefacts.h"
#include "core/gpu/gpureportjson.h"
#include "core/loading/loader.h"
#include "core/query/tracedatabase.h"

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <memory>
#include <string>

namespace py = pybind11;
using namespace ks;

namespace {

// A loaded trace and the file it came from.
struct PyTrace {
    std::shared_ptr<const Trace> trace;
    std::string path;
};

template <class Json>
py::object jsonToPython(const Json& value)
{
    return py::module_::import("json").attr("loads")(
        value.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace));
}

PyTrace load(const std::string& path)
{
    LoadResult result;
    {
        py::gil_scoped_release release; // loading takes seconds on big files
        result = loadTraceFile(path);
    }
    if (!result.ok())
        throw std::runtime_error(path + ": " + (result.fatal ? result.fatal->located() : "cannot be loaded"));
    return {result.trace, path};
}

// A read-only numpy view of one of the model's columns; `owner` (the Python trace object) is
// its base, so the model outlives every view.
template <class T>
py::array columnView(const std::vector<T>& column, const py::object& owner)
{
    py::array view(py::dtype::of<T>(), {py::ssize_t(column.size())}, {py::ssize_t(sizeof(T))}, column.data(), owner);
    py::detail::array_proxy(view.ptr())->flags &= ~py::detail::npy_api::NPY_ARRAY_WRITEABLE_;
    return view;
}

py::object queryValue(const query::QueryValue& v)
{
    switch (v.type) {
    case query::QueryValue::Type::Integer: return py::int_(v.integer);
    case query::QueryValue::Type::Real: return py::float_(v.real);
    case query::QueryValue::Type::Text:
        return py::reinterpret_steal<py::object>(
            PyUnicode_DecodeUTF8(v.text.data(), py::ssize_t(v.text.size()), "replace"));
    case query::QueryValue::Type::Blob: return py::bytes(v.text.data(), v.text.size());
    case query::QueryValue::Type::Null: break;
    }
    return py::none();
}

// {"columns": [...], "rows": [{...}, ...]} as `kinetoscope-cli query --json` prints it.
py::dict runQuery(const PyTrace& self, const std::string& sql)
{
    query::TraceDatabase db(self.trace);
    query::QueryError error;
    auto cursor = db.query(sql, error);
    if (!cursor)
        throw py::value_error(error.located(sql));
    py::list columns;
    for (const auto& name : cursor->columns())
        columns.append(py::str(name));
    py::list rows;
    const auto count = py::ssize_t(cursor->columns().size());
    while (cursor->next(error)) {
        py::dict row;
        for (py::ssize_t c = 0; c < count; ++c)
            row[columns[c]] = queryValue(cursor->value(int(c)));
        rows.append(std::move(row));
    }
    if (error.failed())
        throw py::value_error(error.located(sql));
    py::dict out;
    out["columns"] = columns;
    out["rows"] = rows;
    return out;
}

// Per slice: the track and depth (from its timeline row), as int32 arrays.
std::pair<py::array_t<std::int32_t>, py::array_t<std::int32_t>> tracksAndDepths(const Trace& trace)
{
    const auto n = py::ssize_t(trace.slices().size());
    py::array_t<std::int32_t> tracks(n), depths(n);
    auto t = tracks.mutable_unchecked<1>();
    auto d = depths.mutable_unchecked<1>();
    for (py::ssize_t s = 0; s < n; ++s) {
        const Row& row = trace.rowOf(SliceId(s));
        t(s) = std::int32_t(row.track);
        d(s) = std::int32_t(row.depth);
    }
    return {tracks, depths};
}

py::object toPandas(const py::object& owner)
{
    const PyTrace& self = owner.cast<const PyTrace&>();
    const py::module_ pandas = py::module_::import("pandas"); // ImportError where pandas is missing
    const Trace& trace = *self.trace;
    py::list strings;
    for (StringId i = 0; i < trace.strings().size(); ++i)
        strings.append(py::str(std::string(trace.str(i))));
    const auto categorical = pandas.attr("Categorical").attr("from_codes");
    const auto [tracks, depths] = tracksAndDepths(trace);
    py::dict columns;
    columns["ts"] = columnView(trace.slices().start, owner);
    columns["dur"] = columnView(trace.slices().duration, owner);
    columns["name"] = categorical(columnView(trace.slices().name, owner).attr("astype")("int64"), strings);
    columns["category"] = categorical(columnView(trace.slices().category, owner).attr("astype")("int64"), strings);
    columns["track"] = tracks;
    columns["depth"] = depths;
    return pandas.attr("DataFrame")(columns);
}

std::shared_ptr<const facts::TraceFacts> factsOf(const PyTrace& self) { return facts::makeTraceFacts(self.trace); }

} // namespace

PYBIND11_MODULE(kinetoscope, m)
{
    m.doc() = "PyTorch profiler traces: the model's columns as numpy arrays, SQL and the analyses of kinetoscope-cli";
    m.def("load", &load, py::arg("path"), "Loads a trace (.json or .json.gz).");

    py::class_<PyTrace>(m, "Trace")
        .def_readonly("path", &PyTrace::path)
        .def("slice_count", [](const PyTrace& t) { return t.trace->slices().size(); })
        // Columns of the slice table, indexed by slice id (ns; ids index strings()).
        .def_property_readonly(
            "ts", [](py::object self) { return columnView(self.cast<const PyTrace&>().trace->slices().start, self); })
        .def_property_readonly(
            "dur",
            [](py::object self) { return columnView(self.cast<const PyTrace&>().trace->slices().duration, self); })
        .def_property_readonly(
            "name_ids",
            [](py::object self) { return columnView(self.cast<const PyTrace&>().trace->slices().name, self); })
        .def_property_readonly(
            "category_ids",
            [](py::object self) { return columnView(self.cast<const PyTrace&>().trace->slices().category, self); })
        .def_property_readonly(
            "rows", [](py::object self) { return columnView(self.cast<const PyTrace&>().trace->slices().row, self); })
        .def_property_readonly(
            "correlation",
            [](py::object self) { return columnView(self.cast<const PyTrace&>().trace->slices().correlation, self); })
        .def_property_readonly(
            "external_id",
            [](py::object self) { return columnView(self.cast<const PyTrace&>().trace->slices().externalId, self); })
        .def(
            "tracks_and_depths", [](const PyTrace& t) { return tracksAndDepths(*t.trace); },
            "Per slice: its track and depth (int32 arrays, computed).")
        .def(
            "strings",
            [](const PyTrace& t) {
                py::list out;
                for (StringId i = 0; i < t.trace->strings().size(); ++i)
                    out.append(py::str(std::string(t.trace->str(i))));
                return out;
            },
            "The string pool: name_ids and category_ids index it.")
        .def("string",
             [](const PyTrace& t, StringId id) {
                 if (id >= t.trace->strings().size())
                     throw py::index_error("no string " + std::to_string(id));
                 return std::string(t.trace->str(id));
             })
        .def("query", &runQuery, py::arg("sql"),
             "SQL over the trace (docs/query.md): {'columns': [...], 'rows': [...]}")
        .def(
            "ops",
            [](const PyTrace& t, std::optional<std::string> sort, std::size_t top, bool groupByShape,
               std::optional<std::string> peakTflops, std::optional<std::string> peakTbps) {
                OperatorReportOptions options{std::nullopt, top, groupByShape};
                if (sort) {
                    options.sort = operatorSortKeyFromName(*sort);
                    if (!options.sort)
                        throw py::value_error("unknown sort column '" + *sort + "'");
                }
                analysis::PeakOverrides peaks;
                for (const auto& [text, parse] : {std::pair(peakTflops, &analysis::parsePeakTflops),
                                                  std::pair(peakTbps, &analysis::parsePeakTBps)}) {
                    if (const auto error = text ? parse(*text, peaks) : std::nullopt)
                        throw py::value_error(*error);
                }
                const auto report = analysis::computeOpsReport(*factsOf(t), options, peaks);
                return jsonToPython(analysis::opsReportJson(report, groupByShape));
            },
            py::arg("sort") = py::none(), py::arg("top") = 0, py::arg("group_by_shape") = false,
            py::arg("peak_tflops") = py::none(), py::arg("peak_tbps") = py::none(), "kinetoscope-cli ops --json")
        .def(
            "gpu",
            [](const PyTrace& t, bool pluginCompat) {
                return jsonToPython(gpu::gpuReportJson(*t.trace, gpu::computeGpuReportParts(*t.trace, pluginCompat)));
            },
            py::arg("plugin_compat") = false, "kinetoscope-cli gpu --json")
        .def(
            "insights",
            [](const PyTrace& t) {
                const std::vector<std::shared_ptr<const facts::TraceFacts>> traces{factsOf(t)};
                return jsonToPython(analysis::insightsToJson(analysis::findInsights(traces), traces, {t.path}));
            },
            "kinetoscope-cli insights --json")
        .def(
            "diff",
            [](const PyTrace& base, const PyTrace& neu, std::size_t top, bool families, bool groupByShape,
               std::optional<int> baseRank, std::optional<int> newRank) {
                const auto workspace = analysis::diffWorkspace(base.trace, base.path, neu.trace, neu.path);
                const analysis::DiffSides sides(workspace, baseRank.value_or(-1), newRank.value_or(-1));
                if (sides.error())
                    throw py::value_error(*sides.error());
                analysis::DiffOptions options;
                options.kernelFamilies = families;
                options.groupOpsByInputShapes = groupByShape;
                const auto report = analysis::diffTraces(*sides.base(), *sides.neu(), options);
                auto json = analysis::diffReportJson(report, top, families, groupByShape);
                analysis::addDiffSideRanks(json, baseRank.value_or(-1), newRank.value_or(-1));
                return jsonToPython(json);
            },
            py::arg("other"), py::arg("top") = 20, py::arg("families") = false, py::arg("group_by_shape") = false,
            py::arg("base_rank") = py::none(), py::arg("new_rank") = py::none(),
            "kinetoscope-cli diff --json [--base-rank N] [--new-rank N], this trace as BASE")
        .def(
            "critical_path",
            [](const PyTrace& t, const std::vector<std::string>& whatIfTexts, std::optional<long long> step) {
                std::vector<analysis::WhatIf> whatIfs;
                for (const auto& text : whatIfTexts) {
                    std::string error;
                    auto whatIf = analysis::WhatIf::parse(text, error);
                    if (!whatIf)
                        throw py::value_error(text + ": " + error);
                    whatIfs.push_back(std::move(*whatIf));
                }
                auto steps = analysis::criticalPathOf(factsOf(t)).analyzeSteps(whatIfs);
                if (step)
                    std::erase_if(steps, [&](const auto& s) { return s.step != *step; });
                std::vector<std::string> warnings;
                analysis::appendStepWarnings(steps, warnings);
                return jsonToPython(analysis::criticalPathReportJson(steps, whatIfs, warnings));
            },
            py::arg("what_if") = std::vector<std::string>{}, py::arg("step") = py::none(),
            "kinetoscope-cli critical-path --json [--what-if SPEC]... [--step N]")
        .def(
            "memory",
            [](const PyTrace& t) {
                const auto report = analysis::makeMemoryReport(factsOf(t));
                return jsonToPython(analysis::memoryReportToJson(report, analysis::makeOperatorMemoryTables(report)));
            },
            "kinetoscope-cli memory --json")
        .def("to_pandas", &toPandas, "The slices as a pandas DataFrame (needs pandas)");

    m.def(
        "ranks",
        [](const std::vector<PyTrace>& traces, bool alignSteps) {
            analysis::Workspace workspace;
            for (const auto& t : traces)
                workspace.add(t.trace, t.path);
            workspace.sortByRank();
            const auto alignment = alignSteps ? workspace.alignAtStep() : workspace.alignAbsoluteClock();
            return jsonToPython(analysis::ranksReportJson(workspace, analysis::analyzeRanks(workspace), {}, alignment));
        },
        py::arg("traces"), py::arg("align_steps") = false, "kinetoscope-cli ranks --json over loaded traces");
}

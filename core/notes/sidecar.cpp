#include "core/notes/sidecar.h"

#include <nlohmann/json.hpp>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <sstream>

namespace ks::notes {

namespace {

using nlohmann::json;

constexpr const char* kFormat = "kinetoscope-notes";

json extentJson(const TimeExtent& extent) { return {{"start_ns", extent.start}, {"end_ns", extent.end}}; }

TimeExtent extentFrom(const json& j) { return {j.at("start_ns").get<TimeNs>(), j.at("end_ns").get<TimeNs>()}; }

template <typename Flags>
json setIndices(const Flags& flags)
{
    json indices = json::array();
    for (std::size_t i = 0; i < flags.size(); ++i) {
        if (flags[i])
            indices.push_back(i);
    }
    return indices;
}

std::vector<bool> flagsFrom(const json& indices)
{
    std::vector<bool> flags;
    for (const json& index : indices) {
        const auto i = index.get<std::uint32_t>();
        if (i >= flags.size())
            flags.resize(std::size_t(i) + 1, false);
        flags[i] = true;
    }
    return flags;
}

json layoutJson(const SavedView& view)
{
    const LayoutOptions& layout = view.layout;
    json metrics = json::array();
    for (std::size_t p = 0; p < layout.collapsedMetrics.size(); ++p) {
        for (unsigned m = 0; m < 8; ++m) {
            if (layout.collapsedMetrics[p] >> m & 1u)
                metrics.push_back({p, m});
        }
    }
    return {{"gpu_first", layout.gpuFirst},
            {"pinned_tracks", layout.pinnedTracks},
            {"group_order", layout.groupOrder},
            {"folded_python_tracks", setIndices(layout.foldedPythonLanes)},
            {"collapsed_processes", view.collapsedProcesses},
            {"collapsed_counters", setIndices(layout.collapsedCounters)},
            {"collapsed_metrics", metrics},
            {"scroll_y", view.scrollY}};
}

void layoutFrom(const json& j, SavedView& view)
{
    LayoutOptions& layout = view.layout;
    layout.gpuFirst = j.at("gpu_first").get<bool>();
    layout.pinnedTracks = j.at("pinned_tracks").get<std::vector<std::uint32_t>>();
    layout.groupOrder = j.at("group_order").get<std::vector<std::uint32_t>>();
    layout.foldedPythonLanes = flagsFrom(j.at("folded_python_tracks"));
    view.collapsedProcesses = j.at("collapsed_processes").get<std::vector<std::uint32_t>>();
    layout.collapsedCounters = flagsFrom(j.at("collapsed_counters"));
    for (const json& pair : j.at("collapsed_metrics")) {
        const auto process = pair.at(0).get<std::uint32_t>();
        const auto metric = pair.at(1).get<unsigned>();
        if (metric >= 8)
            throw std::out_of_range("collapsed_metrics: metric index " + std::to_string(metric) + " is not below 8");
        if (process >= layout.collapsedMetrics.size())
            layout.collapsedMetrics.resize(std::size_t(process) + 1, 0);
        layout.collapsedMetrics[process] |= std::uint8_t(1u << metric);
    }
    view.scrollY = j.value("scroll_y", 0);
}

json viewJson(const SavedView& view)
{
    return {{"name", view.name},
            {"visible", extentJson(view.visible)},
            {"selected_range", view.selectedRange ? extentJson(*view.selectedRange) : json(nullptr)},
            {"selected_slice", view.selectedSlice == kNoSlice ? json(nullptr) : json(view.selectedSlice)},
            {"layout", layoutJson(view)}};
}

SavedView viewFrom(const json& j)
{
    SavedView view;
    view.name = j.at("name").get<std::string>();
    view.visible = extentFrom(j.at("visible"));
    if (const json& range = j.at("selected_range"); !range.is_null())
        view.selectedRange = extentFrom(range);
    if (const json& slice = j.at("selected_slice"); !slice.is_null())
        view.selectedSlice = slice.get<SliceId>();
    layoutFrom(j.at("layout"), view);
    return view;
}

std::string describe(const TraceFingerprint& print)
{
    return std::to_string(print.size) + " bytes, hash " + print.headTailHash;
}

} // namespace

std::string sidecarPath(const std::string& tracePath) { return tracePath + ".kinetoscope.json"; }

json sidecarJson(const TraceNotes& notes, const TraceFingerprint& trace)
{
    json marks = json::array();
    for (const Mark& mark : notes.marks)
        marks.push_back({{"start_ns", mark.start}, {"end_ns", mark.end}, {"note", mark.note}});
    json views = json::array();
    for (const SavedView& view : notes.views)
        views.push_back(viewJson(view));
    return {
        {"format", kFormat},
        {"version", kSidecarVersion},
        {"trace", {{"size", trace.size}, {"head_tail_hash", trace.headTailHash}, {"hashed_bytes", kFingerprintBytes}}},
        {"marks", marks},
        {"views", views}};
}

SidecarRead sidecarFromJson(const json& j, const TraceFingerprint& trace)
{
    SidecarRead read;
    try {
        if (!j.is_object() || j.value("format", std::string()) != kFormat) {
            read.status = SidecarRead::Status::Unreadable;
            read.message = std::string("not a notes file (its \"format\" is not \"") + kFormat + "\")";
            return read;
        }
        const int version = j.at("version").get<int>();
        if (version != kSidecarVersion) {
            read.status = SidecarRead::Status::Refused;
            read.message = "notes of version " + std::to_string(version) + ", this Kinetoscope reads version "
                + std::to_string(kSidecarVersion);
            return read;
        }
        const json& saved = j.at("trace");
        const TraceFingerprint of{saved.at("size").get<std::uint64_t>(), saved.at("head_tail_hash").get<std::string>()};
        if (of != trace) {
            read.status = SidecarRead::Status::Refused;
            read.message = "notes of another trace (" + describe(of) + "; this trace: " + describe(trace) + ")";
            return read;
        }
        for (const json& mark : j.at("marks"))
            read.notes.marks.push_back({mark.at("start_ns").get<TimeNs>(), mark.at("end_ns").get<TimeNs>(),
                                        mark.at("note").get<std::string>()});
        for (const json& view : j.at("views"))
            read.notes.views.push_back(viewFrom(view));
        read.status = SidecarRead::Status::Loaded;
    } catch (const std::exception& e) {
        read = {};
        read.status = SidecarRead::Status::Unreadable;
        read.message = std::string("malformed notes: ") + e.what();
    }
    return read;
}

SidecarRead readSidecar(const std::string& tracePath)
{
    SidecarRead read;
    std::ifstream in(sidecarPath(tracePath), std::ios::binary);
    if (!in)
        return read; // Missing
    std::string error;
    const std::optional<TraceFingerprint> print = fingerprintFile(tracePath, &error);
    if (!print) {
        read.status = SidecarRead::Status::Unreadable;
        read.message = "cannot fingerprint the trace: " + error;
        return read;
    }
    const json j = json::parse(in, nullptr, /*allow_exceptions=*/false);
    if (j.is_discarded()) {
        read.status = SidecarRead::Status::Unreadable;
        read.message = "not valid JSON";
        return read;
    }
    return sidecarFromJson(j, *print);
}

bool writeSidecar(const std::string& tracePath, const TraceNotes& notes, std::string* error)
{
    const auto fail = [&](const std::string& what) {
        if (error)
            *error = what;
        return false;
    };
    std::string fingerprintError;
    const std::optional<TraceFingerprint> print = fingerprintFile(tracePath, &fingerprintError);
    if (!print)
        return fail("cannot fingerprint the trace: " + fingerprintError);
    const std::string path = sidecarPath(tracePath);
    const std::string temporary = path + ".tmp";
    {
        std::ofstream out(temporary, std::ios::binary | std::ios::trunc);
        if (!out)
            return fail("cannot write " + temporary + ": " + std::strerror(errno));
        out << sidecarJson(notes, *print).dump(2, ' ', false, json::error_handler_t::replace) << '\n';
        out.close();
        if (!out)
            return fail("cannot write " + temporary + ": " + std::strerror(errno));
    }
    if (std::rename(temporary.c_str(), path.c_str()) != 0) {
        const std::string why = std::strerror(errno);
        std::remove(temporary.c_str());
        return fail("cannot replace " + path + ": " + why);
    }
    return true;
}

} // namespace ks::notes

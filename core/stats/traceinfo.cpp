#include "core/stats/traceinfo.h"

#include <sstream>

namespace ks {

namespace {

nlohmann::json idJson(const Trace& trace, JsonId id)
{
    if (id.isText)
        return std::string(trace.str(id.text));
    return id.number;
}

} // namespace

nlohmann::json traceInfoJson(const Trace& trace, const std::string& path)
{
    nlohmann::json out;
    out["file"] = path;
    out["trace_events"] = trace.traceEventCount();
    out["slices"] = trace.slices().size();
    out["instants"] = trace.instants().size();
    out["flows"] = trace.flows().size();
    out["base_time_ns"] = trace.baseTimeNs();
    out["start_ns"] = trace.startTime();
    out["end_ns"] = trace.endTime();
    out["span_ns"] = trace.endTime() - trace.startTime();

    auto& devices = out["devices"] = nlohmann::json::array();
    for (const auto& d : trace.deviceProperties()) {
        devices.push_back({{"id", d.id},
                           {"name", d.name},
                           {"total_global_mem", d.totalGlobalMem},
                           {"compute_capability", std::to_string(d.computeMajor) + "." + std::to_string(d.computeMinor)},
                           {"num_sms", d.numSms}});
    }
    auto& processes = out["processes"] = nlohmann::json::array();
    for (std::uint32_t p = 0; p < trace.processes().size(); ++p) {
        const auto& proc = trace.processes()[p];
        nlohmann::json pj{{"pid", idJson(trace, proc.pid)},
                          {"name", trace.processDisplayName(p)},
                          {"kind", proc.isDevice ? "gpu" : "cpu"},
                          {"labels", proc.labels},
                          {"events", proc.eventCount}};
        auto& tracks = pj["tracks"] = nlohmann::json::array();
        for (auto ti : proc.tracks) {
            const auto& t = trace.tracks()[ti];
            tracks.push_back({{"tid", idJson(trace, t.tid)},
                              {"name", trace.trackDisplayName(ti)},
                              {"kind", t.kind == TrackKind::GpuStream ? "stream" : t.kind == TrackKind::CpuThread ? "thread" : "other"},
                              {"slices", t.sliceCount()},
                              {"instants", t.instantCount()},
                              {"flow_events", t.flowEventCount},
                              {"lanes", t.lanes.size()},
                              {"rows", t.rowEnd - t.rowBegin}});
        }
        processes.push_back(std::move(pj));
    }
    auto& counters = out["counters"] = nlohmann::json::array();
    for (const auto& c : trace.counters())
        counters.push_back({{"pid", idJson(trace, c.pid)}, {"name", c.name}, {"samples", c.time.size()}});
    auto& counts = out["counts"] = nlohmann::json::object();
    for (const auto& c : trace.phaseCategoryCounts())
        counts[c.key] = c.count;
    auto& flows = out["flow_categories"] = nlohmann::json::object();
    for (const auto& f : trace.flowStats()) {
        flows[std::string(trace.str(f.category))] = {{"paired", f.paired},
                                                      {"unpaired_starts", f.unpairedStarts},
                                                      {"unpaired_ends", f.unpairedEnds},
                                                      {"unbound", f.unbound}};
    }
    auto& warnings = out["warnings"] = nlohmann::json::array();
    for (const auto& [code, n] : trace.diagnostics().counts()) {
        nlohmann::json w{{"code", code}, {"count", n}};
        for (const auto& d : trace.diagnostics().items()) {
            if (d.code == code) {
                w["message"] = d.message;
                if (d.byteOffset != kNoOffset)
                    w["byte_offset"] = d.byteOffset;
                if (d.eventIndex != kNoEventIndex)
                    w["event_index"] = d.eventIndex;
                w["severity"] = d.severity == Diagnostic::Severity::Error ? "error" : "warning";
                break;
            }
        }
        warnings.push_back(std::move(w));
    }
    return out;
}

std::string traceInfoText(const Trace& trace, const std::string& path)
{
    std::ostringstream o;
    o << path << "\n";
    o << "  " << trace.traceEventCount() << " trace events: " << trace.slices().size() << " slices, "
      << trace.instants().size() << " instants, " << trace.flows().size() << " flows, " << trace.counters().size()
      << " counter series\n";
    o << "  span " << formatDuration(trace.endTime() - trace.startTime()) << "\n";
    for (const auto& d : trace.deviceProperties()) {
        o << "  device " << d.id << ": " << d.name << ", " << d.numSms << " SMs, compute " << d.computeMajor << "."
          << d.computeMinor << ", " << (d.totalGlobalMem >> 20) << " MiB\n";
    }
    o << "\nprocesses:\n";
    for (std::uint32_t p = 0; p < trace.processes().size(); ++p) {
        const auto& proc = trace.processes()[p];
        o << "  " << trace.processDisplayName(p) << "  (" << proc.eventCount << " events)\n";
        for (auto ti : proc.tracks) {
            const auto& t = trace.tracks()[ti];
            o << "    " << trace.trackDisplayName(ti) << ": " << t.sliceCount() << " slices";
            if (t.instantCount())
                o << ", " << t.instantCount() << " instants";
            if (t.lanes.size() > 1)
                o << ", " << t.lanes.size() << " lanes";
            o << "\n";
        }
    }
    o << "\ncounts (ph/cat):\n";
    for (const auto& c : trace.phaseCategoryCounts())
        o << "  " << c.key << "  " << c.count << "\n";
    if (!trace.flowStats().empty()) {
        o << "\nflows:\n";
        for (const auto& f : trace.flowStats()) {
            o << "  " << trace.str(f.category) << ": " << f.paired << " paired, " << f.unpairedStarts
              << " unpaired starts, " << f.unpairedEnds << " unpaired ends";
            if (f.unbound)
                o << ", " << f.unbound << " unbound";
            o << "\n";
        }
    }
    if (!trace.diagnostics().empty()) {
        o << "\nwarnings:\n";
        for (const auto& line : trace.diagnostics().summaryLines())
            o << "  " << line << "\n";
    }
    return o.str();
}

} // namespace ks

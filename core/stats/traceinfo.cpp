#include "core/stats/traceinfo.h"

#include <map>
#include <sstream>

namespace ks {

namespace {

nlohmann::json idJson(const Trace& trace, JsonId id)
{
    if (id.isText)
        return std::string(trace.str(id.text));
    return id.number;
}

const char* keptKind(char phase)
{
    switch (phase) {
    case 'M': return "metadata events (M)";
    case 'C': return "counter events (C)";
    case 'b':
    case 'n':
    case 'e': return "nestable async events (b/n/e)";
    case 'S':
    case 'T':
    case 'p':
    case 'F': return "legacy async events (S/T/p/F)";
    case 'O':
    case 'N':
    case 'D': return "object events (O/N/D)";
    case 'P': return "samples (P)";
    case 'R': return "marks (R)";
    case 'c': return "clock syncs (c)";
    case 's':
    case 't':
    case 'f': return "flow events bound to no slice";
    case 'X': return "X events not shown (no or negative dur)";
    case 'E': return "unmatched ends (E)";
    case 'V':
    case 'v': return "memory dumps (V/v)";
    case '(':
    case ')': return "context events";
    case '?': return "entries without ph";
    default: return "events of other phases";
    }
}

} // namespace

std::vector<std::pair<std::string, std::uint64_t>> entryKinds(const Trace& trace)
{
    std::uint64_t slices = 0, asyncRanges = 0, instants = 0, samples = 0;
    for (SliceId s = 0; s < trace.slices().size(); ++s)
        ++(trace.slices().rawLength[s] && trace.isKeptOffset(trace.slices().rawOffset[s]) ? asyncRanges : slices);
    for (std::uint32_t i = 0; i < trace.instants().size(); ++i)
        instants += !(trace.instants().rawLength[i] && trace.isKeptOffset(trace.instants().rawOffset[i]));
    for (const auto& c : trace.counters())
        samples += c.derived ? 0 : c.time.size();
    std::vector<std::pair<std::string, std::uint64_t>> out{
        {"slices", slices},
        {"async ranges (b/e)", asyncRanges},
        {"instants", instants},
        {"flows", trace.flows().size()},
        {"unpaired flow halves", trace.unpairedFlowHalves().size()},
        {"counter samples", samples},
    };
    std::map<std::string, std::uint64_t> kept;
    for (const auto& e : trace.keptEntries())
        ++kept[keptKind(e.phase)];
    for (auto& [kind, n] : kept)
        out.emplace_back(kind, n);
    return out;
}

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
        devices.push_back(
            {{"id", d.id},
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
                              {"kind",
                               t.kind == TrackKind::GpuStream       ? "stream"
                                   : t.kind == TrackKind::CpuThread ? "thread"
                                                                    : "other"},
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
    auto& kinds = out["kinds"] = nlohmann::json::object();
    for (const auto& [kind, n] : entryKinds(trace))
        kinds[kind] = n;
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
                w["severity"] = severityName(d.severity);
                break;
            }
        }
        warnings.push_back(std::move(w));
    }
    // "warnings" lists every code (with its severity); the counts split what is wrong from
    // what is expected of the format (info).
    out["warning_count"] = trace.diagnostics().warningCount();
    out["info_count"] = trace.diagnostics().infoCount();
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
    o << "\nkinds:\n";
    for (const auto& [kind, n] : entryKinds(trace))
        o << "  " << kind << "  " << n << "\n";
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
    const Diagnostics& diagnostics = trace.diagnostics();
    const auto section = [&](const char* title, bool info) {
        if ((info ? diagnostics.infoCount() : diagnostics.warningCount()) == 0)
            return;
        o << "\n" << title << ":\n";
        for (const auto& [code, n] : diagnostics.counts()) {
            if ((diagnostics.severityOf(code) == Diagnostic::Severity::Info) == info)
                o << "  " << diagnostics.summaryLine(code) << "\n";
        }
    };
    section("warnings", false);
    section("information (expected in this format)", true);
    return o.str();
}

} // namespace ks

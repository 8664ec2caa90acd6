// Flow events come back from Save As / convert as the source wrote them: s→t→f chains stay
// one chain, ts stays where it was (inside a slice, not moved to its start), bp, string ids
// and other keys stay; v2 flows keep bind_id / flow_in / flow_out on their slice. Only what
// the writer must change changes: ids that collide in a merged file, and their pids.
#include "core/loading/loader.h"
#include "core/writing/writer.h"

#include <nlohmann/json.hpp>

#include <QTest>

#include <algorithm>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <tuple>
#include <vector>

using namespace ks;
using Json = nlohmann::json;

namespace {

// A legacy chain over three threads (ts inside each slice, a string id, bp "e", extra keys),
// a flow whose s is at its slice's start, a v2 pair, and an ac2g launch → kernel as kineto writes it.
const char* const kSource = R"json({"traceEvents":[
 {"ph":"X","cat":"cpu_op","name":"producer","pid":1,"tid":2,"ts":10,"dur":10},
 {"ph":"s","cat":"chain","name":"hop","id":"0x1f","pid":1,"tid":2,"ts":12,"tts":5,"args":{"note":"start"}},
 {"ph":"X","cat":"cpu_op","name":"relay","pid":1,"tid":3,"ts":20,"dur":10},
 {"ph":"t","cat":"chain","name":"hop","id":"0x1f","pid":1,"tid":3,"ts":25},
 {"ph":"X","cat":"cpu_op","name":"consumer","pid":1,"tid":4,"ts":30,"dur":10},
 {"ph":"f","cat":"chain","name":"hop","id":"0x1f","pid":1,"tid":4,"ts":33,"bp":"e"},
 {"ph":"X","cat":"cpu_op","name":"sender","pid":1,"tid":2,"ts":50,"dur":5},
 {"ph":"s","cat":"msg","name":"m","id":7,"pid":1,"tid":2,"ts":50},
 {"ph":"X","cat":"cpu_op","name":"receiver","pid":1,"tid":3,"ts":60,"dur":5},
 {"ph":"f","cat":"msg","name":"m","id":7,"pid":1,"tid":3,"ts":61,"bp":"e"},
 {"ph":"X","cat":"cpu_op","name":"v2 out","pid":1,"tid":2,"ts":70,"dur":5,"bind_id":"0xa","flow_out":true},
 {"ph":"X","cat":"cpu_op","name":"v2 in","pid":1,"tid":3,"ts":80,"dur":5,"bind_id":"0xa","flow_in":true},
 {"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":1,"tid":2,"ts":90,"dur":5,"args":{"correlation":41}},
 {"ph":"s","cat":"ac2g","name":"ac2g","id":41,"pid":1,"tid":2,"ts":90},
 {"ph":"X","cat":"kernel","name":"k","pid":0,"tid":7,"ts":100,"dur":5,"args":{"correlation":41,"stream":7}},
 {"ph":"f","cat":"ac2g","name":"ac2g","id":41,"pid":0,"tid":7,"ts":100,"bp":"e"}
]})json";

bool isFlowEvent(const Json& e)
{
    const auto ph = e.value("ph", "");
    return ph == "s" || ph == "t" || ph == "f";
}

std::vector<Json> flowEvents(const Json& doc)
{
    std::vector<Json> out;
    for (const auto& e : doc["traceEvents"]) {
        if (isFlowEvent(e))
            out.push_back(e);
    }
    std::sort(out.begin(), out.end());
    return out;
}

// v2 flow fields of the slices, by slice name.
std::map<std::string, Json> v2Fields(const Json& doc)
{
    std::map<std::string, Json> out;
    for (const auto& e : doc["traceEvents"]) {
        if (e.value("ph", "") != "X")
            continue;
        Json fields = Json::object();
        for (const char* key : {"bind_id", "flow_in", "flow_out"}) {
            if (e.contains(key))
                fields[key] = e[key];
        }
        out[e.value("name", "")] = fields;
    }
    return out;
}

// Arrows as (from slice name, to slice name, category).
std::multiset<std::tuple<std::string, std::string, std::string>> arrows(const Trace& t)
{
    std::multiset<std::tuple<std::string, std::string, std::string>> out;
    for (const auto& f : t.flows())
        out.emplace(t.str(t.slices().name[f.from]), t.str(t.slices().name[f.to]), t.str(f.category));
    return out;
}

std::string written(const std::vector<const Trace*>& traces)
{
    std::ostringstream out;
    const auto result = writeMergedTraceJson(traces, out);
    if (!result.ok || !result.lost.empty())
        std::fprintf(stderr, "write failed or lost entries\n");
    return out.str();
}

} // namespace

class TestFlowEvents : public QObject {
    Q_OBJECT

private slots:
    void flowEventsComeBackAsWritten()
    {
        const auto original = loadTraceFromMemory(kSource, "chrome");
        QVERIFY(original.ok());
        // The chain is two arrows through the relay, the message one, v2 one, ac2g one.
        QCOMPARE(original.trace->flows().size(), std::size_t(5));
        const std::string text = written({original.trace.get()});
        const Json source = Json::parse(kSource);
        const Json out = Json::parse(text);
        const auto expected = flowEvents(source);
        QCOMPARE(expected.size(), std::size_t(7));
        QCOMPARE(flowEvents(out), expected); // ph, id (text "0x1f"), ts, bp, tts, args, pid/tid
        QCOMPARE(v2Fields(out), v2Fields(source));
        int t = 0;
        for (const auto& e : out["traceEvents"])
            t += e.value("ph", "") == "t";
        QCOMPARE(t, 1); // the chain was not split into two s/f pairs
        const auto reloaded = loadTraceFromMemory(text, "written");
        QVERIFY(reloaded.ok());
        QCOMPARE(arrows(*reloaded.trace), arrows(*original.trace));
        // Written twice, the file is the same: nothing drifts on each Save As.
        QCOMPARE(written({reloaded.trace.get()}), text);
    }

    // An IPC chain crosses processes (as Chrome's do): convert gives each process its own id
    // space, but the chain is one flow, so its s, t and f keep one id, the source's; so does a
    // chain that starts with a t (its arrow t → f, and the t's dangling incoming half).
    void chainAcrossProcessesKeepsItsId()
    {
        const char* const source = R"json({"traceEvents":[
 {"ph":"X","cat":"ipc","name":"send","pid":1,"tid":1,"ts":10,"dur":10},
 {"ph":"s","cat":"ipc","name":"IPC","id":"8780d402","pid":1,"tid":1,"ts":12},
 {"ph":"X","cat":"ipc","name":"route","pid":2,"tid":1,"ts":20,"dur":10},
 {"ph":"t","cat":"ipc","name":"IPC","id":"8780d402","pid":2,"tid":1,"ts":22},
 {"ph":"X","cat":"ipc","name":"receive","pid":3,"tid":1,"ts":30,"dur":10},
 {"ph":"f","cat":"ipc","name":"IPC","id":"8780d402","pid":3,"tid":1,"ts":33,"bp":"e"},
 {"ph":"X","cat":"ipc","name":"other","pid":2,"tid":1,"ts":40,"dur":10},
 {"ph":"s","cat":"ipc","name":"IPC","id":"0x8780d402","pid":2,"tid":1,"ts":41},
 {"ph":"X","cat":"ipc","name":"other end","pid":2,"tid":2,"ts":50,"dur":10},
 {"ph":"f","cat":"ipc","name":"IPC","id":"0x8780d402","pid":2,"tid":2,"ts":51,"bp":"e"},
 {"ph":"X","cat":"ipc","name":"swap","pid":1,"tid":1,"ts":60,"dur":10},
 {"ph":"t","cat":"ipc","name":"IPC","id":"0xc00001527","pid":1,"tid":1,"ts":61},
 {"ph":"X","cat":"ipc","name":"draw","pid":3,"tid":1,"ts":70,"dur":10},
 {"ph":"f","cat":"ipc","name":"IPC","id":"0xc00001527","pid":3,"tid":1,"ts":71}
]})json";
        const auto original = loadTraceFromMemory(source, "ipc");
        QVERIFY(original.ok());
        const std::string text = written({original.trace.get()});
        QCOMPARE(flowEvents(Json::parse(text)), flowEvents(Json::parse(source)));
        const auto reloaded = loadTraceFromMemory(text, "written");
        QVERIFY(reloaded.ok());
        QCOMPARE(arrows(*reloaded.trace), arrows(*original.trace));
        QCOMPARE(reloaded.trace->flows().size(), std::size_t(4));
    }

    // Merged with itself, the second copy's ids and pids collide: they move, and every other
    // field of its flow events stays as written; the ac2g ids follow the moved correlations.
    void mergedFlowEventsChangeOnlyIds()
    {
        const auto original = loadTraceFromMemory(kSource, "chrome");
        QVERIFY(original.ok());
        const std::string text = written({original.trace.get(), original.trace.get()});
        const Json out = Json::parse(text);
        const auto merged = flowEvents(out);
        QCOMPARE(merged.size(), std::size_t(14));
        const auto strip = [](std::vector<Json> events) {
            for (auto& e : events) {
                e.erase("id");
                e.erase("pid");
            }
            std::sort(events.begin(), events.end());
            return events;
        };
        auto doubled = flowEvents(Json::parse(kSource));
        const auto once = doubled;
        doubled.insert(doubled.end(), once.begin(), once.end());
        QCOMPARE(strip(merged), strip(doubled));
        std::map<std::string, std::set<Json>> idsByCategory;
        for (const auto& e : merged)
            idsByCategory[e["cat"].get<std::string>()].insert(e["id"]);
        QCOMPARE(idsByCategory["chain"], (std::set<Json>{Json("0x1f"), Json(1000031)}));
        QCOMPARE(idsByCategory["msg"], (std::set<Json>{Json(7), Json(1000007)}));
        QCOMPARE(idsByCategory["ac2g"], (std::set<Json>{Json(41), Json(1000041)}));
        for (const auto& e : out["traceEvents"]) {
            if (e.value("cat", "") == "kernel")
                QVERIFY(e["args"]["correlation"] == 41 || e["args"]["correlation"] == 1000041);
        }
        std::multiset<Json> bindIds;
        for (const auto& e : out["traceEvents"]) {
            if (e.contains("bind_id"))
                bindIds.insert(e["bind_id"]);
        }
        QCOMPARE(bindIds, (std::multiset<Json>{Json("0xa"), Json("0xa"), Json(1000010), Json(1000010)}));
        const auto reloaded = loadTraceFromMemory(text, "merged");
        QVERIFY(reloaded.ok());
        auto twice = arrows(*original.trace);
        twice.merge(arrows(*original.trace));
        QCOMPARE(arrows(*reloaded.trace), twice);
    }
};

QTEST_GUILESS_MAIN(TestFlowEvents)
#include "tst_flowevents.moc"

// Writer round trips: every fixture loads, writes and loads back to the same model.
#include "core/loading/loader.h"
#include "core/model/tracebuilder.h"
#include "core/stats/traceinfo.h"
#include "core/writing/writer.h"

#include "testfiles.h"

#include <nlohmann/json.hpp>

#include <QTest>

#include <csignal>
#include <fstream>
#include <limits>
#include <numeric>
#include <set>
#include <sstream>

#include <sys/resource.h>

using namespace ks;

namespace {

std::string fixture(const char* name) { return std::string(KS_TEST_DATA) + "/" + name + ".pt.trace.json.gz"; }

std::shared_ptr<const Trace> load(const std::string& path)
{
    auto result = loadTraceFile(path);
    if (!result.ok())
        std::fprintf(stderr, "load %s failed: %s\n", path.c_str(), result.fatal ? result.fatal->message.c_str() : "?");
    return result.trace;
}

nlohmann::json argsOf(const std::string& eventText)
{
    if (eventText.empty())
        return {};
    auto parsed = nlohmann::json::parse(eventText, nullptr, false);
    return parsed.is_object() ? parsed.value("args", nlohmann::json()) : nlohmann::json();
}

// The args of every slice, read back in one pass.
std::vector<nlohmann::json> allArgs(const Trace& trace)
{
    std::vector<SliceId> ids(trace.slices().size());
    std::iota(ids.begin(), ids.end(), 0u);
    std::vector<nlohmann::json> args(ids.size());
    trace.forEachEventText(ids, [&](SliceId s, std::string_view text) { args[s] = argsOf(std::string(text)); });
    return args;
}

std::string fileContents(const std::string& path)
{
    std::ifstream in(path, std::ios::binary);
    std::ostringstream s;
    s << in.rdbuf();
    return s.str();
}

std::string idText(const Trace& trace, const JsonId& id)
{
    return id.isText ? "s:" + std::string(trace.str(id.text)) : "n:" + std::to_string(id.number);
}

// Field by field, so that a failure names what differs.
// Every traceEvents entry of a kineto trace comes back, but for metadata: kineto declares
// 16 GPU processes whether they exist or not, and names the main thread twice.
std::map<std::string, std::uint64_t> countsWithoutMetadata(const Trace& t)
{
    std::map<std::string, std::uint64_t> m;
    for (const auto& c : t.phaseCategoryCounts()) {
        if (c.key.rfind("M/", 0) != 0)
            m[c.key] = c.count;
    }
    return m;
}

std::map<std::string, std::uint64_t> phaseCounts(const Trace& t)
{
    std::map<std::string, std::uint64_t> m;
    for (const auto& c : t.phaseCategoryCounts())
        m[c.key] = c.count;
    return m;
}

std::shared_ptr<const Trace> loadText(const std::string& text, const char* name)
{
    auto result = loadTraceFromMemory(text, name);
    if (!result.ok())
        std::fprintf(stderr, "load %s failed: %s\n", name, result.fatal ? result.fatal->message.c_str() : "?");
    return result.trace;
}

// Load → write → load; the written text in `written`.
std::shared_ptr<const Trace> roundTripText(const Trace& trace, std::string* written = nullptr,
                                           const TraceWriteOptions& options = {})
{
    std::ostringstream out;
    const auto result = writeTraceJson(trace, out, options);
    if (!result.ok || !result.lost.empty())
        std::fprintf(stderr, "write failed or lost %zu kinds\n", result.lost.size());
    if (written)
        *written = out.str();
    return result.ok ? loadText(out.str(), "written") : nullptr;
}

void compareTraces(const Trace& a, const Trace& b)
{
    QCOMPARE(b.processes().size(), a.processes().size());
    for (std::size_t i = 0; i < a.processes().size(); ++i) {
        const auto& x = a.processes()[i];
        const auto& y = b.processes()[i];
        QCOMPARE(idText(b, y.pid), idText(a, x.pid));
        QCOMPARE(y.isDevice, x.isDevice);
        QCOMPARE(y.name, x.name);
        QCOMPARE(y.labels, x.labels);
        QCOMPARE(y.hasSortIndex, x.hasSortIndex);
        QCOMPARE(y.sortIndex, x.sortIndex);
        QCOMPARE(y.tracks, x.tracks);
    }
    QCOMPARE(b.tracks().size(), a.tracks().size());
    for (std::size_t i = 0; i < a.tracks().size(); ++i) {
        const auto& x = a.tracks()[i];
        const auto& y = b.tracks()[i];
        QCOMPARE(idText(b, y.tid), idText(a, x.tid));
        QCOMPARE(y.process, x.process);
        QCOMPARE(y.kind, x.kind);
        QCOMPARE(y.name, x.name);
        QCOMPARE(y.sortIndex, x.sortIndex);
        QCOMPARE(y.lanes.size(), x.lanes.size());
        QCOMPARE(y.sliceBegin, x.sliceBegin);
        QCOMPARE(y.sliceEnd, x.sliceEnd);
        QCOMPARE(y.instantCount(), x.instantCount());
    }
    QCOMPARE(b.rows().size(), a.rows().size());
    const auto& s = a.slices();
    const auto& t = b.slices();
    QCOMPARE(t.size(), s.size());
    QCOMPARE(t.start, s.start);
    QCOMPARE(t.duration, s.duration);
    QCOMPARE(t.row, s.row);
    QCOMPARE(t.correlation, s.correlation);
    QCOMPARE(t.externalId, s.externalId);
    for (SliceId i = 0; i < s.size(); ++i) {
        QCOMPARE(b.str(t.name[i]), a.str(s.name[i]));
        QCOMPARE(b.str(t.category[i]), a.str(s.category[i]));
        const GpuOpInfo* g = a.gpuOpInfo(i);
        const GpuOpInfo* h = b.gpuOpInfo(i);
        QCOMPARE(h != nullptr, g != nullptr);
        if (g) {
            QCOMPARE(h->stream, g->stream);
            QCOMPARE(h->grid[0], g->grid[0]);
            QCOMPARE(h->registersPerThread, g->registersPerThread);
            QCOMPARE(h->bytes, g->bytes);
            QCOMPARE(h->estAchievedOccupancyPct, g->estAchievedOccupancyPct);
        }
    }
    const auto aArgs = allArgs(a);
    const auto bArgs = allArgs(b);
    for (SliceId i = 0; i < s.size(); ++i) {
        if (aArgs[i] != bArgs[i])
            QFAIL(("args differ for slice " + std::to_string(i) + " (" + std::string(a.str(s.name[i])) + ")").c_str());
    }
    QCOMPARE(b.flows().size(), a.flows().size());
    // Unpaired halves (kineto's orphan f, sync s) are written back too: every count agrees.
    QCOMPARE(b.unpairedFlowHalves().size(), a.unpairedFlowHalves().size());
    QCOMPARE(b.flowStats().size(), a.flowStats().size());
    for (std::size_t i = 0; i < a.flowStats().size(); ++i) {
        QCOMPARE(b.flowStats()[i].paired, a.flowStats()[i].paired);
        QCOMPARE(b.flowStats()[i].unpairedStarts, a.flowStats()[i].unpairedStarts);
        QCOMPARE(b.flowStats()[i].unpairedEnds, a.flowStats()[i].unpairedEnds);
    }
    for (std::size_t i = 0; i < a.flows().size(); ++i) {
        QCOMPARE(b.flows()[i].from, a.flows()[i].from);
        QCOMPARE(b.flows()[i].to, a.flows()[i].to);
        QCOMPARE(b.str(b.flows()[i].category), a.str(a.flows()[i].category));
    }
    QCOMPARE(b.instants().size(), a.instants().size());
    QCOMPARE(b.instants().time, a.instants().time);
    QCOMPARE(b.instants().track, a.instants().track);
    std::vector<std::uint32_t> instants(a.instants().size());
    std::iota(instants.begin(), instants.end(), 0u);
    std::vector<nlohmann::json> instantArgs(instants.size());
    a.forEachInstantText(instants,
                         [&](std::uint32_t i, std::string_view text) { instantArgs[i] = argsOf(std::string(text)); });
    b.forEachInstantText(instants, [&](std::uint32_t i, std::string_view text) {
        QVERIFY(argsOf(std::string(text)) == instantArgs[i]);
    });
    for (std::uint32_t i = 0; i < a.instants().size(); ++i)
        QCOMPARE(b.str(b.instants().name[i]), a.str(a.instants().name[i]));
    QCOMPARE(b.counters().size(), a.counters().size());
    for (std::size_t i = 0; i < a.counters().size(); ++i) {
        QCOMPARE(b.counters()[i].name, a.counters()[i].name);
        QCOMPARE(b.counters()[i].derived, a.counters()[i].derived);
        QCOMPARE(b.counters()[i].time, a.counters()[i].time);
        QCOMPARE(b.counters()[i].value, a.counters()[i].value);
    }
    // The writer adds which Kinetoscope wrote the file; the rest of the metadata comes back as it was.
    const std::string* writtenBy = b.metadataValue("kinetoscopeVersion");
    QVERIFY(writtenBy);
    QCOMPARE(*writtenBy, std::string("\"" KS_VERSION "\""));
    auto metadataB = b.metadata();
    std::erase_if(metadataB, [](const auto& entry) { return entry.first == "kinetoscopeVersion"; });
    QCOMPARE(metadataB.size(), a.metadata().size());
    for (std::size_t i = 0; i < a.metadata().size(); ++i) {
        QCOMPARE(metadataB[i].first, a.metadata()[i].first);
        QVERIFY(nlohmann::json::parse(metadataB[i].second) == nlohmann::json::parse(a.metadata()[i].second));
    }
    QCOMPARE(b.baseTimeNs(), a.baseTimeNs());
    QCOMPARE(b.deviceProperties().size(), a.deviceProperties().size());
    QCOMPARE(b.startTime(), a.startTime());
    QCOMPARE(b.endTime(), a.endTime());
}

} // namespace

class TestWriter : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void formatsMicroseconds_data()
    {
        QTest::addColumn<std::int64_t>("ns");
        QTest::addColumn<std::string>("text");
        QTest::newRow("zero") << std::int64_t(0) << std::string("0.000");
        QTest::newRow("one ns") << std::int64_t(1) << std::string("0.001");
        QTest::newRow("kineto ts") << std::int64_t(4441327422403600) << std::string("4441327422403.600");
        QTest::newRow("negative") << std::int64_t(-1500) << std::string("-1.500");
        QTest::newRow("min") << std::numeric_limits<std::int64_t>::min() << std::string("-9223372036854775.808");
    }
    void formatsMicroseconds()
    {
        QFETCH(std::int64_t, ns);
        QFETCH(std::string, text);
        QCOMPARE(formatMicroseconds(ns), text);
    }

    void roundTrip_data()
    {
        QTest::addColumn<std::string>("name");
        QTest::addColumn<std::string>("extension");
        for (const char* name : {"square", "multistream", "transformer", "mlp_ops", "big"}) {
            QTest::newRow((std::string(name) + " json").c_str()) << std::string(name) << std::string(".pt.trace.json");
            QTest::newRow((std::string(name) + " gz").c_str()) << std::string(name) << std::string(".pt.trace.json.gz");
        }
    }
    void roundTrip()
    {
        QFETCH(std::string, name);
        QFETCH(std::string, extension);
        auto original = load(fixture(name.c_str()));
        QVERIFY(original);
        kstest::TempDir dir;
        const std::string out = dir.filePath(name + extension);
        const auto written = writeTraceFile(*original, out);
        QVERIFY2(written.ok, written.error.c_str());
        QCOMPARE(written.unreadableArgs, 0u);
        const std::string bytes = fileContents(out);
        QCOMPARE(bytes.size() > 2 && std::uint8_t(bytes[0]) == 0x1f && std::uint8_t(bytes[1]) == 0x8b,
                 extension.ends_with(".gz"));
        auto reloaded = load(out);
        QVERIFY(reloaded);
        compareTraces(*original, *reloaded);
        QCOMPARE(countsWithoutMetadata(*reloaded), countsWithoutMetadata(*original));
        // Metadata events are kept verbatim now: kineto's 16 GPU processes and the twice-named
        // main thread come back too, so every "<ph>/<cat>" count agrees.
        QCOMPARE(phaseCounts(*reloaded), phaseCounts(*original));
        QCOMPARE(entryKinds(*reloaded), entryKinds(*original));
        QCOMPARE(kstest::fileNames(dir.path()).size(), 1); // no temporary left behind
    }

    void flowsKeepCorrelationIds()
    {
        auto original = load(fixture("square"));
        QVERIFY(original);
        std::ostringstream out;
        QVERIFY(writeTraceJson(*original, out).ok);
        const auto doc = nlohmann::ordered_json::parse(out.str());
        int starts = 0, ends = 0;
        for (const auto& e : doc["traceEvents"]) {
            if (e.value("cat", "") != "ac2g")
                continue;
            // Every ac2g half carries the correlation id of its slice, as kineto writes it:
            // the three launches and their kernels, and the two syncs (unpaired s).
            (e["ph"] == "s" ? starts : ends)++;
            const std::int64_t id = e["id"].get<std::int64_t>();
            QVERIFY(id == 8 || id == 19 || id == 30
                    || original->slices().correlation.end()
                        != std::find(original->slices().correlation.begin(), original->slices().correlation.end(), id));
        }
        QCOMPARE(starts, 5);
        QCOMPARE(ends, 3);
        QCOMPARE(doc["schemaVersion"].get<int>(), 1);
        QVERIFY(doc.contains("deviceProperties"));
        QCOMPARE(doc.items().begin().key(), std::string("schemaVersion"));
        QCOMPARE((--doc.end()).key(), std::string("traceName"));
    }

    // Generic Chrome features: string pids/tids, B/E pairs, instants of every scope, counters
    // with and without keys, a 1→N flow (graph launch) and flows bound to a child that starts
    // with its parent.
    void roundTripsChromeFeatures()
    {
        const std::string text = R"json({"traceEvents":[
 {"ph":"M","name":"process_name","pid":"host","tid":0,"args":{"name":"the host"}},
 {"ph":"M","name":"thread_name","pid":"host","tid":"main","args":{"name":"main thread"}},
 {"ph":"M","name":"thread_sort_index","pid":"host","tid":"main","args":{"sort_index":3}},
 {"ph":"X","cat":"cpu_op","name":"parent","pid":"host","tid":"main","ts":1.5,"dur":100,"args":{"External id":1,"k":[1,2.25,"x"]}},
 {"ph":"X","cat":"cuda_runtime","name":"cudaGraphLaunch","pid":"host","tid":"main","ts":1.5,"dur":10,"args":{"correlation":77,"External id":1}},
 {"ph":"s","cat":"ac2g","name":"ac2g","id":77,"pid":"host","tid":"main","ts":1.5},
 {"ph":"B","cat":"user_annotation","name":"span","pid":"host","tid":"main","ts":20},
 {"ph":"E","pid":"host","tid":"main","ts":30},
 {"ph":"X","cat":"kernel","name":"k1","pid":0,"tid":7,"ts":40,"dur":5,"args":{"correlation":77,"stream":7,"grid":[1,1,1],"block":[32,1,1]}},
 {"ph":"f","cat":"ac2g","name":"ac2g","id":77,"pid":0,"tid":7,"ts":40,"bp":"e"},
 {"ph":"X","cat":"kernel","name":"k2","pid":0,"tid":7,"ts":46,"dur":5,"args":{"correlation":77,"stream":7}},
 {"ph":"f","cat":"ac2g","name":"ac2g","id":77,"pid":0,"tid":7,"ts":46,"bp":"e"},
 {"ph":"i","s":"t","name":"thread mark","pid":"host","tid":"main","ts":50,"args":{"a":1}},
 {"ph":"i","s":"p","name":"process mark","pid":"host","tid":"main","ts":51},
 {"ph":"i","s":"g","name":"global mark","pid":"Traces","tid":"x","ts":52},
 {"ph":"C","name":"load","pid":"host","ts":60,"args":{"cpu":0.5,"gpu":2}},
 {"ph":"C","name":"temp","pid":"host","ts":61,"args":{"":40.125}}
]})json";
        auto original = loadTraceFromMemory(text, "chrome");
        QVERIFY(original.ok());
        QCOMPARE(original.trace->flows().size(), std::size_t(2));
        std::ostringstream out;
        const auto written = writeTraceJson(*original.trace, out);
        QVERIFY(written.ok);
        QCOMPARE(written.unreadableArgs, 0u);
        auto reloaded = loadTraceFromMemory(out.str(), "written");
        QVERIFY(reloaded.ok());
        compareTraces(*original.trace, *reloaded.trace);
        // One s for the graph launch's two kernels.
        const auto doc = nlohmann::json::parse(out.str());
        int starts = 0;
        for (const auto& e : doc["traceEvents"])
            starts += e["ph"] == "s";
        QCOMPARE(starts, 1);
    }

    // Every phase of the Trace Event Format, and every entry the model cannot show, comes
    // back: counted by kind (the model's slices, async ranges, instants, flows, counter
    // samples, and each kind kept verbatim) and by "<ph>/<cat>".
    void keepsEveryPhaseOfTheTraceEventFormat()
    {
        const std::string text = R"json({"traceEvents":[
 {"ph":"M","name":"process_name","pid":1,"tid":0,"args":{"name":"browser"}},
 {"ph":"M","name":"process_uptime_seconds","pid":1,"tid":0,"args":{"uptime":12}},
 {"ph":"M","name":"thread_name","pid":1,"tid":2,"args":{"name":"main"}},
 {"ph":"X","cat":"c","name":"x","pid":1,"tid":2,"ts":10,"dur":50,"args":{"a":1}},
 {"ph":"B","cat":"c","name":"b","pid":1,"tid":2,"ts":12},
 {"ph":"E","cat":"c","name":"b","pid":1,"tid":2,"ts":14,"args":{"e":2}},
 {"ph":"i","cat":"c","name":"i","s":"t","pid":1,"tid":2,"ts":15},
 {"ph":"I","cat":"c","name":"I","pid":1,"tid":2,"ts":16},
 {"ph":"R","cat":"blink.user_timing","name":"mark","pid":1,"tid":2,"ts":17,"args":{"data":{"x":1}}},
 {"ph":"C","cat":"c","name":"ctr","pid":1,"ts":18,"args":{"a":1,"b":2.5}},
 {"ph":"C","cat":"c","name":"ctr","id":3,"pid":1,"ts":19,"args":{"a":2}},
 {"ph":"s","cat":"flow","name":"f","id":7,"pid":1,"tid":2,"ts":11},
 {"ph":"X","cat":"c","name":"y","pid":1,"tid":3,"ts":20,"dur":5},
 {"ph":"t","cat":"flow","name":"f","id":7,"pid":1,"tid":3,"ts":21},
 {"ph":"X","cat":"c","name":"z","pid":1,"tid":4,"ts":30,"dur":5},
 {"ph":"f","cat":"flow","name":"f","id":7,"pid":1,"tid":4,"ts":31,"bp":"e"},
 {"ph":"s","cat":"flow","name":"lost","id":8,"pid":1,"tid":9,"ts":99},
 {"ph":"b","cat":"net","name":"request","id":"0x1","pid":1,"tid":2,"ts":22,"args":{"url":"u"}},
 {"ph":"n","cat":"net","name":"progress","id":"0x1","pid":1,"tid":2,"ts":23},
 {"ph":"e","cat":"net","name":"request","id":"0x1","pid":1,"tid":2,"ts":28},
 {"ph":"S","cat":"old","name":"legacy","id":5,"pid":1,"tid":2,"ts":24},
 {"ph":"T","cat":"old","name":"legacy","id":5,"pid":1,"tid":2,"ts":25,"args":{"step":"s1"}},
 {"ph":"p","cat":"old","name":"legacy","id":5,"pid":1,"tid":2,"ts":26,"args":{"step":"s2"}},
 {"ph":"F","cat":"old","name":"legacy","id":5,"pid":1,"tid":2,"ts":27},
 {"ph":"N","cat":"obj","name":"Layer","id":"0x10","pid":1,"tid":2,"ts":30},
 {"ph":"O","cat":"obj","name":"Layer","id":"0x10","pid":1,"tid":2,"ts":31,"args":{"snapshot":{"w":640,"h":[1,2]}}},
 {"ph":"D","cat":"obj","name":"Layer","id":"0x10","pid":1,"tid":2,"ts":32},
 {"ph":"P","name":"sample","pid":1,"tid":2,"ts":33,"sf":4},
 {"ph":"c","name":"clock_sync","pid":1,"tid":2,"ts":34,"args":{"sync_id":"abc","issue_ts":33}},
 {"ph":"V","name":"dump","pid":1,"tid":2,"ts":35,"id":"d1"},
 {"ph":"v","name":"dump","pid":1,"tid":2,"ts":35,"id":"d1","args":{"dumps":{}}},
 {"ph":"(","name":"ctx","pid":1,"tid":2,"ts":36,"id":"c1"},
 {"ph":")","name":"ctx","pid":1,"tid":2,"ts":37,"id":"c1"},
 {"ph":"Z","name":"unknown","pid":1,"tid":2,"ts":38},
 {"name":"no phase","pid":1,"tid":2,"ts":39},
 {"ph":"X","name":"no dur","pid":1,"tid":2,"ts":40},
 {"ph":"X","name":"negative dur","pid":1,"tid":2,"ts":41,"dur":-3},
 {"ph":"X","name":"no ts","pid":1,"tid":2,"dur":1},
 {"ph":"E","name":"stray end","pid":1,"tid":5,"ts":42},
 {"ph":"s","cat":"flow","name":"no id","pid":1,"tid":2,"ts":43},
 7
]})json";
        const auto original = loadText(text, "every phase");
        QVERIFY(original);
        std::string written;
        const auto reloaded = roundTripText(*original, &written);
        QVERIFY(reloaded);
        // Independent count of the source (nlohmann, not our loader), per kind.
        std::map<std::string, int> source, output;
        const auto count = [](const std::string& json, std::map<std::string, int>& into) {
            const auto doc = nlohmann::json::parse(json);
            for (const auto& e : doc["traceEvents"])
                ++into[e.is_object() && e.contains("ph") ? e["ph"].get<std::string>() : "?"];
        };
        count(text, source);
        count(written, output);
        // A B/E pair becomes one X and I is written as its alias i; everything else verbatim.
        for (const auto& [ph, n] : source) {
            if (ph == "B" || ph == "E" || ph == "X" || ph == "I" || ph == "i")
                continue;
            QVERIFY2(output[ph] == n, ph.c_str());
        }
        QCOMPARE(output["X"], source["X"] + 1);
        QCOMPARE(output["E"], 1); // the stray end
        QCOMPARE(output["i"], 2);
        QCOMPARE(output["t"], 1); // the flow step, between its s and f
        QCOMPARE(entryKinds(*reloaded), entryKinds(*original));
        QCOMPARE(phaseCounts(*reloaded).at("O/obj"), std::uint64_t(1));
        QCOMPARE(reloaded->flows().size(), std::size_t(2));
        QCOMPARE(reloaded->slices().size(), original->slices().size());
        QCOMPARE(reloaded->instants().size(), original->instants().size());
        QCOMPARE(reloaded->counters().size(), std::size_t(3)); // ctr a, ctr b, ctr 3 a
        // Kept entries are byte for byte the source's.
        QVERIFY(
            written.find(
                R"({"ph":"O","cat":"obj","name":"Layer","id":"0x10","pid":1,"tid":2,"ts":31,"args":{"snapshot":{"w":640,"h":[1,2]}}})")
            != std::string::npos);
        QVERIFY(written.find(R"({"ph":"M","name":"process_uptime_seconds","pid":1,"tid":0,"args":{"uptime":12}})")
                != std::string::npos);
        // The kinds seen by `info`, with real numbers.
        const auto kinds = entryKinds(*original);
        const std::map<std::string, std::uint64_t> byName(kinds.begin(), kinds.end());
        QCOMPARE(byName.at("slices"), std::uint64_t(4)); // x, b, y, z
        QCOMPARE(byName.at("async ranges (b/e)"), std::uint64_t(1));
        QCOMPARE(byName.at("instants"), std::uint64_t(2));
        QCOMPARE(byName.at("flows"), std::uint64_t(2)); // x→y, y→z through the step
        QCOMPARE(byName.at("object events (O/N/D)"), std::uint64_t(3));
        QCOMPARE(byName.at("legacy async events (S/T/p/F)"), std::uint64_t(4));
        QCOMPARE(byName.at("nestable async events (b/n/e)"), std::uint64_t(3));
        QCOMPARE(byName.at("samples (P)"), std::uint64_t(1));
        QCOMPARE(byName.at("marks (R)"), std::uint64_t(1));
        QCOMPARE(byName.at("clock syncs (c)"), std::uint64_t(1));
        QCOMPARE(byName.at("metadata events (M)"), std::uint64_t(3));
        QCOMPARE(byName.at("counter events (C)"), std::uint64_t(2));
        QCOMPARE(byName.at("flow events bound to no slice"), std::uint64_t(2)); // no slice at tid 9; no id
        QCOMPARE(byName.at("entries without ph"), std::uint64_t(2)); // the object without ph and the 7
        QCOMPARE(byName.at("unmatched ends (E)"), std::uint64_t(1));
        QVERIFY(unwritableParts(*original).empty());
    }

    // A trace of object snapshots alone (nothing the timeline draws) is not written empty.
    void keepsATraceOfObjectsOnly()
    {
        std::string text = R"({"traceEvents":[)";
        for (int i = 0; i < 104; ++i) {
            const std::string id = "\"0x" + std::to_string(i) + "\"";
            text += (i ? "," : "") + std::string(R"({"ph":"N","cat":"cc","name":"Tile","pid":3,"tid":3,"ts":)")
                + std::to_string(i) + R"(,"id":)" + id + "}"
                + R"(,{"ph":"O","cat":"cc","name":"Tile","pid":3,"tid":3,"ts":)" + std::to_string(i + 1) + R"(,"id":)"
                + id + R"(,"args":{"snapshot":{"layer":)" + std::to_string(i) + "}}}"
                + R"(,{"ph":"D","cat":"cc","name":"Tile","pid":3,"tid":3,"ts":)" + std::to_string(i + 2) + R"(,"id":)"
                + id + "}";
        }
        text += "]}";
        const auto original = loadText(text, "objects");
        QVERIFY(original);
        QCOMPARE(original->slices().size(), std::size_t(0));
        QCOMPARE(original->keptEntries().size(), std::size_t(312));
        std::string written;
        const auto reloaded = roundTripText(*original, &written);
        QVERIFY(reloaded);
        QCOMPARE(reloaded->keptEntries().size(), std::size_t(312));
        QVERIFY(nlohmann::json::parse(written)["traceEvents"] == nlohmann::json::parse(text)["traceEvents"]);
    }

    // Inputs the loader warns about: what it could not show is still written back.
    void roundTripsMalformedClasses_data()
    {
        QTest::addColumn<std::string>("text");
        QTest::newRow("missing ph and {}")
            << std::string(R"({"traceEvents":[{},{"ph":"X","name":"a","pid":1,"tid":1,"ts":1,"dur":1,},],})");
        QTest::newRow("missing ts") << std::string(R"({"traceEvents":[{"ph":"X","name":"a","pid":1,"dur":1}]})");
        QTest::newRow("X without dur") << std::string(R"({"traceEvents":[{"ph":"X","name":"a","pid":1,"ts":1}]})");
        QTest::newRow("NaN ts") << std::string(R"({"traceEvents":[{"ph":"X","name":"a","pid":1,"ts":NaN,"dur":1}]})");
        QTest::newRow("ts beyond 2^62 ns")
            << std::string(R"({"traceEvents":[{"ph":"X","name":"a","pid":1,"ts":1e17,"dur":1}]})");
        QTest::newRow("numeric strings") << std::string(
            R"({"traceEvents":[{"ph":"X","name":7,"pid":1.0,"tid":"1","ts":"12.5","dur":"1"}]})");
        QTest::newRow("entry not an object")
            << std::string(R"({"traceEvents":[1,"x",{"ph":"X","name":"a","pid":1,"ts":1,"dur":1}]})");
        QTest::newRow("negative dur") << std::string(
            R"({"traceEvents":[{"ph":"X","name":"a","pid":1,"ts":1,"dur":-1}]})");
        QTest::newRow("duplicate key") << std::string(
            R"({"traceEvents":[{"ph":"X","name":"a","pid":1,"ts":1,"ts":2,"dur":1}]})");
        QTest::newRow("unknown ph") << std::string(R"({"traceEvents":[{"ph":"Z","name":"a","pid":1,"ts":1}]})");
        QTest::newRow("E without B") << std::string(R"({"traceEvents":[{"ph":"E","pid":1,"tid":1,"ts":1}]})");
        QTest::newRow("unclosed B") << std::string(
            R"({"traceEvents":[{"ph":"B","name":"a","pid":1,"tid":1,"ts":1},{"ph":"i","name":"m","pid":1,"tid":1,"ts":9}]})");
        QTest::newRow("flow without id") << std::string(
            R"({"traceEvents":[{"ph":"s","cat":"c","name":"f","pid":1,"tid":1,"ts":1}]})");
        QTest::newRow("invalid UTF-8 kept")
            << std::string("{\"traceEvents\":[{\"ph\":\"O\",\"name\":\"\xff\xfe\",\"pid\":1,\"id\":1,\"ts\":1}]}");
        QTest::newRow("invalid UTF-8 in args") << std::string(
            "{\"traceEvents\":[{\"ph\":\"X\",\"name\":\"a\",\"pid\":1,\"ts\":1,\"dur\":1,\"args\":{\"s\":\"\xc3\"}}]}");
        QTest::newRow("bad escape decoded")
            << std::string("{\"traceEvents\":[{\"ph\":\"X\",\"name\":\"\\ud800\\q\",\"pid\":1,\"ts\":1,\"dur\":1}]}");
        QTest::newRow("text pids") << std::string(
            R"({"traceEvents":[{"ph":"X","name":"a","pid":"p","tid":"t","ts":1,"dur":1},{"ph":"C","name":"c","pid":"p","ts":1,"args":{"":1}}]})");
    }
    void roundTripsMalformedClasses()
    {
        QFETCH(std::string, text);
        const auto original = loadText(text, "malformed");
        QVERIFY(original);
        std::string written;
        const auto reloaded = roundTripText(*original, &written);
        QVERIFY2(reloaded, written.c_str());
        QCOMPARE(entryKinds(*reloaded), entryKinds(*original));
        QCOMPARE(reloaded->traceEventCount(), original->traceEventCount());
        QCOMPARE(reloaded->slices().size(), original->slices().size());
        // Written files are valid JSON for every other tool.
        QVERIFY(nlohmann::json::accept(written));
    }

    // Merged files: integer pids (text pids named in metadata), correlation ids unique per
    // process, ac2g flow ids equal to the correlation id of their launch, and nothing lost.
    void mergeGivesIntegerPidsAndUniqueIds()
    {
        const auto a = load(fixture("square"));
        const auto b = load(fixture("multistream"));
        QVERIFY(a && b);
        const auto c = loadText(R"({"traceEvents":[
 {"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":"rank 1","tid":"main","ts":1,"dur":2,"args":{"correlation":8}},
 {"ph":"s","cat":"ac2g","name":"ac2g","id":8,"pid":"rank 1","tid":"main","ts":1},
 {"ph":"X","cat":"kernel","name":"k","pid":0,"tid":7,"ts":5,"dur":2,"args":{"correlation":8,"stream":7}},
 {"ph":"f","cat":"ac2g","name":"ac2g","id":8,"pid":0,"tid":7,"ts":5,"bp":"e"}]})",
                                "rank 1");
        QVERIFY(c);
        kstest::TempDir dir;
        const std::string path = dir.filePath("merged.pt.trace.json");
        const auto result = writeMergedTraceFile({a.get(), b.get(), c.get()}, path);
        QVERIFY2(result.ok, result.error.c_str());
        QVERIFY(result.lost.empty());
        const auto merged = load(path);
        QVERIFY(merged);

        for (const auto& p : merged->processes())
            QVERIFY(!p.pid.isText);
        // Every kind is the sum of the inputs' kinds.
        std::map<std::string, std::uint64_t> expected;
        for (const Trace* t : {a.get(), b.get(), c.get()}) {
            for (const auto& [kind, n] : entryKinds(*t))
                expected[kind] += n;
        }
        std::map<std::string, std::uint64_t> got;
        for (const auto& [kind, n] : entryKinds(*merged))
            got[kind] += n;
        for (const auto& [kind, n] : expected) {
            if (kind != "metadata events (M)") // text pids that became integers get a process_name
                QCOMPARE(got[kind], n);
        }
        QVERIFY(got["metadata events (M)"] > expected["metadata events (M)"]);

        // Independently, from the JSON: correlation ids of CPU calls never repeat across
        // processes, and each ac2g s carries its slice's correlation id.
        const auto doc = nlohmann::json::parse(fileContents(path));
        std::map<std::int64_t, std::set<std::int64_t>> pidsOfCorrelation;
        std::map<std::int64_t, std::int64_t> kernelsByCorrelation;
        std::int64_t lastCorrelation = -1;
        int ac2gStarts = 0;
        std::set<std::string> names;
        for (const auto& e : doc["traceEvents"]) {
            QVERIFY(e["pid"].is_number_integer());
            const std::string ph = e.value("ph", "");
            if (ph == "M" && e.value("name", "") == "process_name")
                names.insert(e["args"]["name"].get<std::string>());
            if (ph == "X") {
                lastCorrelation = e.contains("args") ? e["args"].value("correlation", std::int64_t(-1)) : -1;
                if (lastCorrelation >= 0 && e.value("cat", "") == "cuda_runtime")
                    pidsOfCorrelation[lastCorrelation].insert(e["pid"].get<std::int64_t>());
            }
            if (ph == "s" && e.value("cat", "") == "ac2g") {
                ++ac2gStarts;
                QCOMPARE(e["id"].get<std::int64_t>(), lastCorrelation);
            }
        }
        QVERIFY(names.count("rank 1"));
        QVERIFY(ac2gStarts > 0);
        for (const auto& [corr, pids] : pidsOfCorrelation)
            QCOMPARE(pids.size(), std::size_t(1));
        // Input 3's correlation 8 collides with square's (a launch there has 8): it moved.
        QVERIFY(pidsOfCorrelation.count(8));
        QVERIFY(pidsOfCorrelation.count(1000008));
        // Flows still join each launch to its kernel.
        QCOMPARE(merged->flows().size(), a->flows().size() + b->flows().size() + c->flows().size());
        for (const auto& f : merged->flows()) {
            if (merged->str(f.category) == "ac2g")
                QCOMPARE(merged->slices().correlation[f.to], merged->slices().correlation[f.from]);
        }
    }

    // Converted and merged files have no partially overlapping slices on one row (Perfetto
    // drops them): overhead slices in an overflow lane go on a tid of their own.
    void overlappingOverheadGoesOnItsOwnTid()
    {
        const auto original = loadText(R"({"traceEvents":[
 {"ph":"X","cat":"overhead","name":"Activity Buffer Request","pid":-1,"tid":0,"ts":10,"dur":10},
 {"ph":"X","cat":"overhead","name":"Activity Buffer Request","pid":-1,"tid":0,"ts":15,"dur":10},
 {"ph":"X","cat":"overhead","name":"Activity Buffer Flush","pid":-1,"tid":0,"ts":30,"dur":2}]})",
                                       "overhead");
        QVERIFY(original);
        QCOMPARE(original->tracks().size(), std::size_t(1));
        QCOMPARE(original->tracks()[0].lanes.size(), std::size_t(2)); // main + overflow
        TraceWriteOptions normalized;
        normalized.normalizeIds = true;
        std::string written;
        const auto reloaded = roundTripText(*original, &written, normalized);
        QVERIFY(reloaded);
        QCOMPARE(reloaded->slices().size(), std::size_t(3));
        QCOMPARE(reloaded->tracks().size(), std::size_t(2));
        for (const auto& track : reloaded->tracks())
            QCOMPARE(track.lanes.size(), std::size_t(1));
        // Plain Save As keeps the file's rows as they were.
        const auto plain = roundTripText(*original);
        QVERIFY(plain);
        QCOMPARE(plain->tracks().size(), std::size_t(1));
    }

    // Slices built without JSON text (the collector's path) get their args from the model.
    void synthesizesArgsForBuiltTraces()
    {
        TraceBuilder builder;
        GpuOpInfo info;
        info.device = 0;
        info.stream = 7;
        info.grid[0] = 264;
        info.grid[1] = info.grid[2] = 1;
        info.block[0] = 256;
        info.block[1] = info.block[2] = 1;
        info.registersPerThread = 32;
        info.sharedMemory = 4096;
        SliceEvent launch;
        launch.pid = launch.tid = JsonId::fromNumber(100);
        launch.start = 1000;
        launch.duration = 500;
        launch.name = builder.strings().intern("cudaLaunchKernel");
        launch.category = builder.strings().intern("cuda_runtime");
        launch.correlation = 42;
        launch.externalId = 9;
        const auto launchIndex = builder.addSlice(launch);
        SliceEvent kernel;
        kernel.pid = JsonId::fromNumber(0);
        kernel.tid = JsonId::fromNumber(7);
        kernel.device = true;
        kernel.start = 3001;
        kernel.duration = 12345;
        kernel.name = builder.strings().intern("my_kernel");
        kernel.category = builder.strings().intern("kernel");
        kernel.correlation = 42;
        kernel.externalId = 9;
        kernel.gpuOp = &info;
        const auto kernelIndex = builder.addSlice(kernel);
        FlowEvent s;
        s.category = s.name = builder.strings().intern("ac2g");
        s.id = 42;
        s.pid = s.tid = launch.pid;
        s.time = launch.start;
        s.pendingSlice = launchIndex;
        builder.addFlowEvent(s);
        FlowEvent f = s;
        f.phase = FlowPhase::End;
        f.pid = kernel.pid;
        f.tid = kernel.tid;
        f.device = true;
        f.time = kernel.start;
        f.bindEnclosing = true;
        f.pendingSlice = kernelIndex;
        builder.addFlowEvent(f);
        builder.setBaseTimeNs(1790857026000000000);
        const Trace built = builder.finish();

        std::ostringstream out;
        QVERIFY(writeTraceJson(built, out).ok);
        auto reloaded = loadTraceFromMemory(out.str(), "built");
        QVERIFY(reloaded.ok());
        const Trace& t = *reloaded.trace;
        QCOMPARE(t.baseTimeNs(), std::int64_t(1790857026000000000));
        QCOMPARE(t.slices().size(), std::size_t(2));
        QCOMPARE(t.flows().size(), std::size_t(1));
        for (SliceId i = 0; i < 2; ++i) {
            QCOMPARE(t.slices().correlation[i], std::int64_t(42));
            QCOMPARE(t.slices().externalId[i], std::int64_t(9));
        }
        const SliceId k = t.str(t.slices().name[0]) == "my_kernel" ? 0 : 1;
        QCOMPARE(t.slices().start[k], TimeNs(3001));
        QCOMPARE(t.slices().duration[k], TimeNs(12345));
        const GpuOpInfo* g = t.gpuOpInfo(k);
        QVERIFY(g);
        QCOMPARE(g->stream, std::int64_t(7));
        QCOMPARE(g->grid[0], 264);
        QCOMPARE(g->block[0], 256);
        QCOMPARE(g->registersPerThread, 32);
        QCOMPARE(g->sharedMemory, std::int64_t(4096));
        QCOMPARE(t.flows()[0].to, k);
    }

    // The file-size limit makes the write fail half way (EFBIG), like a full disk would.
    void failedWriteKeepsOldFile()
    {
        auto trace = load(fixture("transformer"));
        QVERIFY(trace);
        kstest::TempDir dir;
        const std::string path = dir.filePath("keep.pt.trace.json");
        const std::string good = "{\"traceEvents\": []}\n";
        std::ofstream(path) << good;

        rlimit old{};
        QCOMPARE(getrlimit(RLIMIT_FSIZE, &old), 0);
        const auto oldHandler = std::signal(SIGXFSZ, SIG_IGN);
        rlimit small = old;
        small.rlim_cur = 64 * 1024;
        QCOMPARE(setrlimit(RLIMIT_FSIZE, &small), 0);
        const auto result = writeTraceFile(*trace, path);
        setrlimit(RLIMIT_FSIZE, &old);
        std::signal(SIGXFSZ, oldHandler);

        QVERIFY(!result.ok);
        QVERIFY(!result.error.empty());
        QCOMPARE(fileContents(path), good);
        QCOMPARE(kstest::fileNames(dir.path()), std::vector<std::string>{"keep.pt.trace.json"});
    }

    void unwritableDirectoryIsAnError()
    {
        auto trace = load(fixture("square"));
        QVERIFY(trace);
        const auto result = writeTraceFile(*trace, "/nonexistent-dir/x.pt.trace.json");
        QVERIFY(!result.ok);
        QVERIFY(result.error.find("/nonexistent-dir/x.pt.trace.json") != std::string::npos);
    }
};

QTEST_GUILESS_MAIN(TestWriter)
#include "tst_writer.moc"

// Loader on the real fixtures: every traceEvents entry accounted for, tracks, flows,
// exact timestamps, on-demand args (plain and gzip), truncation and chunk splitting.
#include "hostilefiles.h"
#include "testfiles.h"
#include "testtext.h"
#include "testtraces.h"

#include "core/analysis/shapeargs.h"
#include "core/loading/bytesource.h"
#include "core/loading/loader.h"

#include <QtTest>

#include <set>

using namespace ks;

namespace {

std::map<std::string, std::uint64_t> modelCounts(const Trace& t)
{
    std::map<std::string, std::uint64_t> m;
    for (const auto& c : t.phaseCategoryCounts())
        m[c.key] = c.count;
    return m;
}

const FlowCategoryStats* flowStats(const Trace& t, std::string_view category)
{
    for (const auto& f : t.flowStats()) {
        if (t.str(f.category) == category)
            return &f;
    }
    return nullptr;
}

// Same model: the string pool, every column of every slice, tracks, flows, instants, kept
// entries and diagnostics, ids included (not just their texts).
void compareModels(const Trace& a, const Trace& b)
{
    QCOMPARE(a.strings().size(), b.strings().size());
    for (StringId id = 0; id < a.strings().size(); ++id)
        QCOMPARE(a.str(id), b.str(id));
    QCOMPARE(a.slices().size(), b.slices().size());
    QCOMPARE(a.tracks().size(), b.tracks().size());
    QCOMPARE(a.rows().size(), b.rows().size());
    QCOMPARE(a.flows().size(), b.flows().size());
    QCOMPARE(a.instants().size(), b.instants().size());
    QCOMPARE(a.traceEventCount(), b.traceEventCount());
    for (SliceId s = 0; s < a.slices().size(); ++s) {
        QCOMPARE(a.slices().start[s], b.slices().start[s]);
        QCOMPARE(a.slices().duration[s], b.slices().duration[s]);
        QCOMPARE(a.slices().name[s], b.slices().name[s]);
        QCOMPARE(a.slices().category[s], b.slices().category[s]);
        QCOMPARE(a.slices().row[s], b.slices().row[s]);
        QCOMPARE(a.slices().rawOffset[s], b.slices().rawOffset[s]);
        QCOMPARE(a.slices().rawLength[s], b.slices().rawLength[s]);
        QCOMPARE(a.slices().correlation[s], b.slices().correlation[s]);
        QCOMPARE(a.slices().externalId[s], b.slices().externalId[s]);
        QCOMPARE(a.slices().shapeArgs[s], b.slices().shapeArgs[s]);
    }
    QCOMPARE(a.shapeArgs().size(), b.shapeArgs().size());
    for (std::uint32_t id = 0; id < a.shapeArgs().size(); ++id)
        QVERIFY(a.shapeArgs().view(id) == b.shapeArgs().view(id));
    for (std::size_t f = 0; f < a.flows().size(); ++f) {
        QCOMPARE(a.flows()[f].from, b.flows()[f].from);
        QCOMPARE(a.flows()[f].to, b.flows()[f].to);
        QCOMPARE(a.flows()[f].id, b.flows()[f].id);
        QCOMPARE(a.flows()[f].name, b.flows()[f].name);
        QCOMPARE(a.flows()[f].category, b.flows()[f].category);
    }
    QCOMPARE(a.unpairedFlowHalves().size(), b.unpairedFlowHalves().size());
    for (std::uint32_t i = 0; i < a.instants().size(); ++i) {
        QCOMPARE(a.instants().time[i], b.instants().time[i]);
        QCOMPARE(a.instants().name[i], b.instants().name[i]);
        QCOMPARE(a.instants().track[i], b.instants().track[i]);
        QCOMPARE(a.instants().rawOffset[i], b.instants().rawOffset[i]);
    }
    QCOMPARE(a.counters().size(), b.counters().size());
    for (std::size_t c = 0; c < a.counters().size(); ++c)
        QCOMPARE(a.counters()[c].time, b.counters()[c].time);
    QCOMPARE(a.keptEntries().size(), b.keptEntries().size());
    for (std::size_t k = 0; k < a.keptEntries().size(); ++k)
        QCOMPARE(a.keptEntries()[k].offset, b.keptEntries()[k].offset);
    QCOMPARE(a.diagnostics().counts(), b.diagnostics().counts());
    QCOMPARE(a.diagnostics().items().size(), b.diagnostics().items().size());
    for (std::size_t d = 0; d < a.diagnostics().items().size(); ++d) {
        const auto& x = a.diagnostics().items()[d];
        const auto& y = b.diagnostics().items()[d];
        QCOMPARE(x.located(), y.located());
        QCOMPARE(x.code, y.code);
    }
    QCOMPARE(a.metadata(), b.metadata());
    QCOMPARE(a.baseTimeNs(), b.baseTimeNs());
}

// Every op's kept shape args are what the FLOP pass would find in its text read back.
void checkKeptShapeArgs(const Trace& t)
{
    std::vector<SliceId> kept;
    for (SliceId s = 0; s < t.slices().size(); ++s) {
        if (t.slices().shapeArgs[s] != kNoIndex)
            kept.push_back(s);
    }
    std::size_t differ = 0;
    t.forEachEventText(kept, [&](SliceId s, std::string_view text) {
        const auto raw = analysis::findShapeArgs(text);
        differ += raw && *raw == t.shapeArgs().view(t.slices().shapeArgs[s]) ? 0 : 1;
    });
    QCOMPARE(differ, std::size_t(0));
}

// The loaders other than the one-thread, one-entry-at-a-time `serial`: events cut into chunks
// parsed on the reading thread, and on workers with the model assembled on a thread of its own.
std::vector<LoadOptions> otherLoaders(const LoadOptions& serial)
{
    LoadOptions chunked = serial;
    chunked.parseInChunks = true;
    LoadOptions threaded = chunked;
    threaded.assembleInParallel = true;
    threaded.readInBackgroundThread = true;
    LoadOptions assembledOnAThread = threaded;
    assembledOnAThread.parseInChunks = false;
    return {chunked, threaded, assembledOnAThread};
}

} // namespace

class TestLoader : public QObject {
    Q_OBJECT
private slots:
    void everyEntryCounted_data()
    {
        QTest::addColumn<std::string>("name");
        for (const char* n : {"square", "multistream", "transformer", "mlp_ops", "big"})
            QTest::newRow(n) << std::string(n);
    }
    void everyEntryCounted()
    {
        QFETCH(std::string, name);
        const auto path = kstest::fixture(name.c_str());
        const auto expected = kstest::domPhaseCategoryCounts(kstest::gunzipFile(path));
        const auto result = loadTraceFile(path);
        QVERIFY(result.ok());
        QCOMPARE(modelCounts(*result.trace), expected);
        std::uint64_t total = 0;
        for (const auto& [k, n] : expected)
            total += n;
        QCOMPARE(result.trace->traceEventCount(), total);
    }

    void flowPairing_data()
    {
        // trace-format.md §3.1: pairs, s only (syncs), f only (CPU calls); fwdbwd all paired.
        QTest::addColumn<std::string>("name");
        QTest::addColumn<int>("pairs");
        QTest::addColumn<int>("startsOnly");
        QTest::addColumn<int>("endsOnly");
        QTest::addColumn<int>("fwdbwd");
        QTest::newRow("square") << std::string("square") << 3 << 2 << 0 << 0;
        QTest::newRow("multistream") << std::string("multistream") << 40 << 14 << 50 << 0;
        QTest::newRow("transformer") << std::string("transformer") << 240 << 4 << 24 << 135;
        QTest::newRow("big") << std::string("big") << 5148 << 2 << 816 << 3300;
    }
    void flowPairing()
    {
        QFETCH(std::string, name);
        QFETCH(int, pairs);
        QFETCH(int, startsOnly);
        QFETCH(int, endsOnly);
        QFETCH(int, fwdbwd);
        const auto result = loadTraceFile(kstest::fixture(name.c_str()));
        QVERIFY(result.ok());
        const auto& t = *result.trace;
        const auto* ac2g = flowStats(t, "ac2g");
        QVERIFY(ac2g);
        QCOMPARE(int(ac2g->paired), pairs);
        QCOMPARE(int(ac2g->unpairedStarts), startsOnly);
        QCOMPARE(int(ac2g->unpairedEnds), endsOnly);
        QCOMPARE(int(ac2g->unbound), 0);
        const auto* fb = flowStats(t, "fwdbwd");
        QCOMPARE(fb ? int(fb->paired) : 0, fwdbwd);
        // Every ac2g arrow joins a CPU launch to a GPU op with the same correlation id.
        for (const auto& f : t.flows()) {
            if (t.str(f.category) != "ac2g")
                continue;
            QCOMPARE(t.slices().correlation[f.from], t.slices().correlation[f.to]);
            QVERIFY(!t.processes()[t.tracks()[t.trackOf(f.from)].process].isDevice);
            QVERIFY(t.processes()[t.tracks()[t.trackOf(f.to)].process].isDevice);
        }
    }

    void transformerTracks()
    {
        const auto result = loadTraceFile(kstest::fixture("transformer"));
        QVERIFY(result.ok());
        const auto& t = *result.trace;
        // One CPU process (main + autograd thread), GPU 0 with stream 7, the Spans row;
        // kineto's 16 declared GPU processes without events are not there.
        QCOMPARE(t.processes().size(), std::size_t(3));
        QCOMPARE(t.processDisplayName(0), std::string("python3 (572)"));
        QCOMPARE(t.processes()[0].tracks.size(), std::size_t(2));
        QCOMPARE(t.trackDisplayName(t.processes()[0].tracks[0]), std::string("thread 572 (python3)"));
        QCOMPARE(t.trackDisplayName(t.processes()[0].tracks[1]), std::string("thread 602 (pt_autograd_0)"));
        QCOMPARE(t.processDisplayName(1), std::string("GPU 0 · NVIDIA H200"));
        QCOMPARE(t.processes()[1].tracks.size(), std::size_t(1));
        QCOMPARE(t.trackDisplayName(t.processes()[1].tracks[0]), std::string("stream 7"));
        QCOMPARE(t.tracks()[t.processes()[1].tracks[0]].sliceCount(), 258u); // 213 kernels + 12 + 15 + 18
        // Exact ns parsing leaves no false partial overlaps: ops nest in one lane and
        // python frames in their own (trace-format.md §4.1, §5).
        for (const auto& track : t.tracks()) {
            for (const auto& lane : track.lanes)
                QVERIFY(lane.kind != LaneKind::Overflow);
        }
        const auto& mainThread = t.tracks()[t.processes()[0].tracks[0]];
        QCOMPARE(mainThread.lanes.size(), std::size_t(2));
        QCOMPARE(mainThread.lanes[0].kind, LaneKind::Main); // ops above the Python frames
        QCOMPARE(mainThread.lanes[1].kind, LaneKind::Python);
        QCOMPARE(t.diagnostics().count("overlap-moved-to-lane"), 0u);
        QCOMPARE(t.deviceProperties().size(), std::size_t(1));
        QCOMPARE(t.deviceProperties()[0].numSms, 132);
        QCOMPARE(t.baseTimeNs() > 0, true);
    }

    void memoryCurvesFromMemoryInstants()
    {
        const auto path = kstest::fixture("transformer");
        const auto result = loadTraceFile(path);
        QVERIFY(result.ok());
        // Oracle: the [memory] instants read through a DOM, GPU ones sorted by time.
        std::vector<std::pair<double, double>> gpu; // (ts, Total Allocated)
        int cpu = 0;
        const auto doc = nlohmann::json::parse(kstest::gunzipFile(path));
        for (const auto& e : doc["traceEvents"]) {
            if (e.value("name", "") != "[memory]")
                continue;
            if (e["args"]["Device Type"] == 1)
                gpu.emplace_back(e["ts"].get<double>(), e["args"]["Total Allocated"].get<double>());
            else
                ++cpu;
        }
        std::stable_sort(gpu.begin(), gpu.end(), [](auto& a, auto& b) { return a.first < b.first; });
        const CounterSeries* allocated = nullptr;
        const CounterSeries* cpuSeries = nullptr;
        for (const auto& c : result.trace->counters()) {
            if (c.name == "GPU 0 memory allocated")
                allocated = &c;
            if (c.name == "CPU memory allocated")
                cpuSeries = &c;
        }
        QVERIFY(allocated && cpuSeries);
        QCOMPARE(allocated->value.size(), gpu.size());
        QCOMPARE(int(cpuSeries->value.size()), cpu);
        QCOMPARE(allocated->value.back(), gpu.back().second);
        QCOMPARE(
            *std::max_element(allocated->value.begin(), allocated->value.end()),
            std::max_element(gpu.begin(), gpu.end(), [](auto& a, auto& b) { return a.second < b.second; })->second);
        QCOMPARE(allocated->process, 0u); // drawn in the CPU process that allocated
    }

    void kernelFieldsAndArgsOnDemand()
    {
        const auto result = loadTraceFile(kstest::fixture("transformer"));
        QVERIFY(result.ok());
        const auto& t = *result.trace;
        int kernels = 0;
        for (SliceId s = 0; s < t.slices().size(); ++s) {
            if (t.classOf(s) != SliceClass::Kernel)
                continue;
            ++kernels;
            const auto* info = t.gpuOpInfo(s);
            QVERIFY(info);
            const auto args = nlohmann::json::parse(t.eventText(s))["args"];
            QCOMPARE(info->grid[0], args["grid"][0].get<int>());
            QCOMPARE(info->block[0], args["block"][0].get<int>());
            QCOMPARE(info->registersPerThread, args["registers per thread"].get<int>());
            QCOMPARE(t.slices().correlation[s], args["correlation"].get<std::int64_t>());
            QCOMPARE(info->device, 0);
        }
        QCOMPARE(kernels, 213);
    }

    void gzipSeekIndexReadsArgsBack()
    {
        // big is 35 MB uncompressed: reading the last events back goes through checkpoints.
        const auto result = loadTraceFile(kstest::fixture("big"));
        QVERIFY(result.ok());
        const auto& t = *result.trace;
        SliceId last = 0;
        for (SliceId s = 0; s < t.slices().size(); ++s) {
            if (t.slices().rawOffset[s] > t.slices().rawOffset[last])
                last = s;
        }
        QVERIFY(t.slices().rawOffset[last] > 30'000'000);
        for (SliceId s : {SliceId(0), last, SliceId(t.slices().size() / 2)}) {
            const auto ev = nlohmann::json::parse(t.eventText(s));
            QCOMPARE(ev["name"].get<std::string>(), std::string(t.str(t.slices().name[s])));
        }
    }

    void gzipAndPlainGiveTheSameModel()
    {
        const auto path = kstest::fixture("multistream");
        const auto gz = loadTraceFile(path);
        const auto plain = loadTraceFromMemory(kstest::gunzipFile(path), "multistream.json");
        QVERIFY(gz.ok() && plain.ok());
        compareModels(*gz.trace, *plain.trace);
    }

    void multiMemberGzip()
    {
        // gzip files may hold several members (e.g. `cat a.gz b.gz`): one stream of JSON.
        const auto text = kstest::gunzipFile(kstest::fixture("multistream"));
        const std::string path = (std::filesystem::temp_directory_path() / "ks-two-members.json.gz").string();
        const std::size_t half = text.size() / 2;
        for (int member = 0; member < 2; ++member) {
            gzFile f = gzopen(path.c_str(), member == 0 ? "wb" : "ab");
            QVERIFY(f);
            const std::string part = member == 0 ? text.substr(0, half) : text.substr(half);
            gzwrite(f, part.data(), static_cast<unsigned>(part.size()));
            gzclose(f);
        }
        const auto two = loadTraceFile(path);
        const auto one = loadTraceFromMemory(text, "one");
        QVERIFY(two.ok() && one.ok());
        QCOMPARE(two.trace->diagnostics().count("truncated"), 0u);
        compareModels(*two.trace, *one.trace);
        const SliceId last = SliceId(two.trace->slices().size() - 1);
        QCOMPARE(two.trace->eventText(last), one.trace->eventText(last));
    }

    // The gzip trailer's size (mod 4 GiB) sizes the model up front, but it is the file's word:
    // a trailer claiming 4 GiB, or incompressible bytes (the trailer then reads as wrapped),
    // must not reserve columns for tens of millions of events (a fuzz input did: 1 s a load).
    void gzipTrailerCannotInflateTheModel_data()
    {
        QTest::addColumn<bool>("lyingTrailer");
        QTest::newRow("trailer claims 4 GiB") << true;
        QTest::newRow("incompressible input") << false;
    }
    void gzipTrailerCannotInflateTheModel()
    {
        QFETCH(bool, lyingTrailer);
        std::string text = "{\"traceEvents\":[{\"ph\":\"X\",\"name\":\"a\",\"pid\":1,\"tid\":1,\"ts\":1,\"dur\":2}],"
                           "\"junk\":\"";
        std::uint32_t noise = 12345; // bytes gzip cannot shrink: compressed > uncompressed / 2
        for (int i = 0; i < 3000; ++i) {
            noise = noise * 1103515245u + 12345u;
            text += static_cast<char>('A' + (noise >> 16) % 26);
        }
        text += "\"}";
        const std::string path = (std::filesystem::temp_directory_path() / "ks-gzip-trailer.json.gz").string();
        gzFile f = gzopen(path.c_str(), "wb");
        QVERIFY(f);
        gzwrite(f, text.data(), static_cast<unsigned>(text.size()));
        gzclose(f);
        if (lyingTrailer) {
            std::fstream file(path, std::ios::in | std::ios::out | std::ios::binary);
            QVERIFY(file.is_open());
            file.seekp(-4, std::ios::end);
            QVERIFY(file.write("\xff\xff\xff\xff", 4));
        }
        const auto fileBytes = static_cast<std::uint64_t>(std::filesystem::file_size(path));
        auto opened = openFileSource(path);
        QVERIFY(opened.source);
        QVERIFY2(opened.source->expectedSize() <= 64 * fileBytes,
                 std::to_string(opened.source->expectedSize()).c_str());
        const auto loaded = loadTraceFile(path);
        QVERIFY(loaded.ok());
        QCOMPARE(loaded.trace->slices().size(), std::size_t(1));
        // Columns for 64 x 3 KB / 128 B = 1.5 k events at most, not 33 M (about 2 GB).
        QVERIFY2(loaded.trace->memoryUse().slices < (std::size_t(1) << 20),
                 std::to_string(loaded.trace->memoryUse().slices).c_str());
    }

    // The shape args of CPU ops are kept as written, one entry per distinct triple, where the
    // text reads back as the loader saw it; other slices and other texts get none.
    void opShapeArgsKeptWhereTheTextReadsBackTheSame()
    {
        const std::string ops[] = {
            // 0, 1: the same args (the second in older torch's spelling, spaced): one entry
            R"({"ph":"X","cat":"cpu_op","name":"aten::mm","pid":1,"tid":1,"ts":1,"dur":1,"args":{"Input Dims": [[2, 3], [3, 4]], "Input type": ["float", "float"], "Concrete Inputs": ["", ""]}})",
            R"({"ph":"X","cat":"cpu_op","name":"aten::mm","pid":1,"tid":1,"ts":3,"dur":1,"args":{"Concrete Inputs": ["", ""], "Input dims": [[2, 3], [3, 4]],"Input type": ["float", "float"]}})",
            // 2: no shape args at all: the empty entry
            R"({"ph":"X","cat":"cpu_op","name":"aten::relu","pid":1,"tid":1,"ts":5,"dur":1,"args":{"External id": 3}})",
            // 3: B/E op, the last of a repeated key
            R"({"ph":"B","cat":"cpu_op","name":"aten::add","pid":1,"tid":1,"ts":7,"args":{"Input Dims": [[1]], "Input Dims": [[5]]}})",
            R"({"ph":"E","pid":1,"tid":1,"ts":8})",
            // none: an escape, a non-ASCII byte, dims that are no array, a kernel
            "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"a\\\"b\",\"pid\":1,\"tid\":1,\"ts\":9,\"dur\":1,"
            "\"args\":{\"Input Dims\": [[2]]}}",
            "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"\xc3\xa9\",\"pid\":1,\"tid\":1,\"ts\":11,\"dur\":1,"
            "\"args\":{\"Input Dims\": [[2]]}}",
            R"({"ph":"X","cat":"cpu_op","name":"aten::mm","pid":1,"tid":1,"ts":13,"dur":1,"args":{"Input Dims": 3}})",
            R"({"ph":"X","cat":"kernel","name":"k","pid":0,"tid":7,"ts":15,"dur":1,"args":{"Input Dims": [[2]]}})",
        };
        std::string text = R"({"traceEvents":[)";
        for (const auto& op : ops)
            text += op + (&op == &ops[std::size(ops) - 1] ? "" : ",");
        text += "]}";
        LoadOptions oneEntryAtATime;
        oneEntryAtATime.parseInChunks = false;
        auto loaders = otherLoaders(oneEntryAtATime);
        loaders.push_back(oneEntryAtATime);
        for (const LoadOptions& options : loaders) {
            const auto loaded = loadTraceFromMemory(text, "shapes.json", nullptr, options);
            QVERIFY(loaded.ok());
            const Trace& t = *loaded.trace;
            std::map<TimeNs, std::uint32_t> idAt;
            for (SliceId s = 0; s < t.slices().size(); ++s)
                idAt[t.slices().start[s]] = t.slices().shapeArgs[s];
            QCOMPARE(t.shapeArgs().size(), std::size_t(3));
            QCOMPARE(idAt.at(1000), idAt.at(3000));
            const ShapeArgsText mm = t.shapeArgs().view(idAt.at(1000));
            QCOMPARE(mm.dims, std::string_view("[[2, 3], [3, 4]]"));
            QCOMPARE(mm.types, std::string_view(R"(["float", "float"])"));
            QCOMPARE(mm.concrete, std::string_view(R"(["", ""])"));
            QVERIFY(t.shapeArgs().view(idAt.at(5000)) == ShapeArgsText());
            QCOMPARE(t.shapeArgs().view(idAt.at(7000)).dims, std::string_view("[[5]]"));
            for (TimeNs none : {9000, 11000, 13000})
                QCOMPARE(idAt.at(none), kNoIndex);
            QCOMPARE(std::count(t.slices().shapeArgs.begin(), t.slices().shapeArgs.end(), kNoIndex), 4);
            checkKeptShapeArgs(t);
        }
        // Text the parser bends (missing and stray commas, brackets closed by a brace, keys in
        // arrays, args twice): whatever is kept is what the text gives.
        const std::string bent = R"({"traceEvents":[
            {"ph":"X","cat":"cpu_op","name":"a","ts":1,"dur":1,"args":{"Input Dims": [[1]] "Input type": ["float"],,}},
            {"ph":"X","cat":"cpu_op","name":"b","ts":2,"dur":1,"args":{"Input Dims": [[1}], "x": ["Input type": [2]]}},
            {"ph":"X","cat":"cpu_op","name":"c","ts":3,"dur":1,"args":{"Input Dims": [[3]]},"args":{"Input type": ["int"]}},
            {"ph":"X","cat":"cpu_op","name":"d","ts":4,"dur":1,"Input Dims": [[4]],"args":{"Concrete Inputs": 5}}]})";
        const auto loaded = loadTraceFromMemory(bent, "bent.json");
        QVERIFY(loaded.ok());
        QCOMPARE(loaded.trace->slices().size(), std::size_t(4));
        checkKeptShapeArgs(*loaded.trace);
    }

    void chunkSplitsDoNotMatter_data()
    {
        QTest::addColumn<int>("chunk");
        for (int c : {1, 2, 3, 7, 61, 1000, 4096})
            QTest::newRow(std::to_string(c).c_str()) << c;
    }
    void chunkSplitsDoNotMatter()
    {
        QFETCH(int, chunk);
        const auto text = kstest::gunzipFile(kstest::fixture("multistream"));
        const auto reference = loadTraceFromMemory(text, "ref");
        LoadOptions options;
        options.chunkBytes = static_cast<std::size_t>(chunk);
        options.readInBackgroundThread = chunk % 2 == 1;
        const auto split = loadTraceFromMemory(text, "split", nullptr, options);
        QVERIFY(reference.ok() && split.ok());
        compareModels(*reference.trace, *split.trace);
    }

    // The model is assembled on a thread of its own while parsing goes on, and read ahead on
    // another; it must be the model that the single-threaded loader gives, ids included, for
    // every fixture and window size.
    void parallelAssemblyMatchesSerial_data()
    {
        QTest::addColumn<std::string>("path");
        QTest::addColumn<int>("chunk");
        std::vector<std::string> files = kstest::fileNames(KS_TEST_DATA);
        std::erase_if(files, [](const std::string& f) { return !f.ends_with(".json.gz"); });
        QVERIFY(files.size() >= 10);
        for (const auto& f : files) {
            for (int chunk : {997, 1 << 20})
                QTest::newRow((f + " " + std::to_string(chunk)).c_str()) << std::string(KS_TEST_DATA "/") + f << chunk;
        }
    }
    void parallelAssemblyMatchesSerial()
    {
        QFETCH(std::string, path);
        QFETCH(int, chunk);
        LoadOptions serial;
        serial.chunkBytes = static_cast<std::size_t>(chunk);
        serial.assembleInParallel = false;
        serial.readInBackgroundThread = false;
        serial.parseInChunks = false;
        const auto a = loadTraceFile(path, nullptr, serial);
        QVERIFY(a.ok());
        QVERIFY(a.trace->slices().size() > 0);
        for (const LoadOptions& other : otherLoaders(serial)) {
            const auto b = loadTraceFile(path, nullptr, other);
            QVERIFY(b.ok());
            compareModels(*a.trace, *b.trace);
        }
    }

    // Every hostile input (malformed classes, fuzz reproducers) gives the result of one window
    // on one thread, fatal error or model with its warnings, at window sizes that cut inside and
    // between entries, whether traceEvents is cut into chunks parsed on workers or not.
    void hostileInputsLoadTheSameOnEveryPath_data() { QVERIFY(kstest::addHostileFileRows() > 30); }
    void hostileInputsLoadTheSameOnEveryPath()
    {
        QFETCH(std::string, path);
        bool read = false;
        const std::string text = kstest::readFile(path, &read);
        QVERIFY(read);
        LoadOptions whole;
        whole.assembleInParallel = false;
        whole.readInBackgroundThread = false;
        whole.parseInChunks = false;
        const auto a = loadTraceFromMemory(text, "hostile", nullptr, whole);
        if (a.ok())
            checkKeptShapeArgs(*a.trace);
        for (std::size_t chunk : {7, 4096}) {
            LoadOptions serial = whole;
            serial.chunkBytes = chunk;
            auto loaders = otherLoaders(serial);
            loaders.push_back(serial);
            for (const LoadOptions& other : loaders) {
                const auto b = loadTraceFromMemory(text, "hostile", nullptr, other);
                QCOMPARE(a.ok(), b.ok());
                if (!a.ok()) {
                    QCOMPARE(a.fatal->located(), b.fatal->located());
                    continue;
                }
                compareModels(*a.trace, *b.trace);
            }
        }
    }

    // A syntax error deep in the events: what came before it loads, nothing after it, and the
    // error is reported once, at the same byte and entry, however the events were parsed.
    void syntaxErrorInALaterChunkStopsTheLoadThere()
    {
        std::string text = kstest::gunzipFile(kstest::fixture("multistream"));
        const std::size_t at = text.find("\"ph\"", text.size() * 3 / 5);
        QVERIFY(at != std::string::npos);
        text[at + 4] = ' '; // "ph" "X": the ':' is gone
        LoadOptions serial;
        serial.chunkBytes = 997;
        serial.assembleInParallel = false;
        serial.readInBackgroundThread = false;
        serial.parseInChunks = false;
        const auto a = loadTraceFromMemory(text, "broken", nullptr, serial);
        QVERIFY(a.ok());
        QCOMPARE(a.trace->diagnostics().count("syntax-error"), 1u);
        QCOMPARE(a.trace->diagnostics().count("truncated"), 0u);
        const auto& items = a.trace->diagnostics().items();
        const auto error =
            *std::find_if(items.begin(), items.end(), [](const Diagnostic& d) { return d.code == "syntax-error"; });
        QVERIFY(error.byteOffset > at && error.byteOffset < at + 16);
        QVERIFY(error.eventIndex > 100);
        QCOMPARE(a.trace->traceEventCount(), static_cast<std::uint64_t>(error.eventIndex));
        for (const LoadOptions& other : otherLoaders(serial))
            compareModels(*a.trace, *loadTraceFromMemory(text, "broken", nullptr, other).trace);
    }

    void truncationKeepsEveryCompleteEvent()
    {
        const auto text = kstest::gunzipFile(kstest::fixture("multistream"));
        const auto full = loadTraceFromMemory(text, "full");
        QVERIFY(full.ok());
        const auto& f = *full.trace;
        std::vector<std::uint64_t> sliceEnds;
        for (SliceId s = 0; s < f.slices().size(); ++s)
            sliceEnds.push_back(f.slices().rawOffset[s] + f.slices().rawLength[s]);
        std::sort(sliceEnds.begin(), sliceEnds.end());
        const auto firstEvent = text.find("\"traceEvents\"");
        const auto early = loadTraceFromMemory(text.substr(0, firstEvent), "early");
        QVERIFY(!early.ok());
        QVERIFY(kstest::contains(early.fatal->message, "truncated"));
        for (std::size_t cut = firstEvent + 20; cut < text.size(); cut += 997) {
            const auto r = loadTraceFromMemory(text.substr(0, cut), "cut");
            QVERIFY2(r.ok(), ("cut at " + std::to_string(cut)).c_str());
            const auto expected = std::upper_bound(sliceEnds.begin(), sliceEnds.end(), cut) - sliceEnds.begin();
            QCOMPARE(std::int64_t(r.trace->slices().size()), std::int64_t(expected));
            QCOMPARE(r.trace->diagnostics().count("truncated"), 1u);
            const auto& warning = r.trace->diagnostics().items().front();
            QVERIFY(warning.byteOffset <= cut);
        }
    }

    void progressAndCancel()
    {
        LoadProgress progress;
        const auto done = loadTraceFile(kstest::fixture("big"), &progress);
        QVERIFY(done.ok());
        QCOMPARE(progress.bytesDone.load(), progress.bytesTotal.load());
        QVERIFY(progress.eventsDone.load() > 100000);
        LoadProgress cancelled;
        cancelled.cancelRequested = true;
        const auto r = loadTraceFile(kstest::fixture("big"), &cancelled);
        QVERIFY(!r.ok());
        QVERIFY(r.cancelled);
    }
};

QTEST_APPLESS_MAIN(TestLoader)
#include "tst_loader.moc"

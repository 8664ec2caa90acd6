// The notes sidecar (issue 41): marks and views come back as written, for the same trace
// file only; another trace's sidecar (size or head/tail bytes), another version's, or a
// malformed one is refused with a message that says why.
#include "core/loading/loader.h"
#include "core/notes/sidecar.h"
#include "testfiles.h"
#include "testtraces.h"

#include <nlohmann/json.hpp>

#include <QTest>

#include <filesystem>
#include <fstream>

using namespace ks;
using namespace ks::notes;
namespace fs = std::filesystem;

namespace {

std::string readFile(const std::string& path)
{
    std::ifstream in(path, std::ios::binary);
    return {std::istreambuf_iterator<char>(in), {}};
}

void writeFile(const std::string& path, const std::string& text)
{
    std::ofstream(path, std::ios::binary | std::ios::trunc) << text;
}

// FNV-1a 64 of a whole text, written out here independently of the sidecar's code.
std::string fnvHex(const std::string& text)
{
    std::uint64_t h = 0xcbf29ce484222325ull;
    for (unsigned char c : text) {
        h ^= c;
        h *= 0x100000001b3ull;
    }
    char hex[17];
    std::snprintf(hex, sizeof hex, "%016llx", static_cast<unsigned long long>(h));
    return hex;
}

TraceNotes sampleNotes()
{
    TraceNotes notes;
    notes.marks.push_back({1000, 1000, "the stall starts here"});
    notes.marks.push_back({2000, 5000, "Optimizer.step — 3 ms, µs-scale gaps"});
    SavedView view;
    view.name = "slow step";
    view.visible = {1500, 9000};
    view.selectedRange = TimeExtent{2000, 4000};
    view.selectedSlice = 7;
    view.layout.gpuFirst = true;
    view.layout.pinnedTracks = {3, 1};
    view.layout.groupOrder = {2, 0};
    view.layout.foldedPythonLanes = {false, true, false, true};
    view.layout.collapsedMetrics = {0, 0b101};
    view.layout.collapsedCounters = {false, true};
    view.collapsedProcesses = {1};
    view.scrollY = 120;
    notes.views.push_back(view);
    SavedView plain;
    plain.name = "whole";
    plain.visible = {0, 100};
    notes.views.push_back(plain);
    return notes;
}

} // namespace

class TestSidecar : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void init()
    {
        m_dir = std::make_unique<kstest::TempDir>();
        QVERIFY(m_dir->isValid());
        m_trace = m_dir->path() + "/train.pt.trace.json.gz";
        fs::copy_file(kstest::fixture("train_baseline"), m_trace);
    }

    void fingerprintHashesHeadAndTail()
    {
        const std::string small = m_dir->path() + "/small.json";
        writeFile(small, "{\"traceEvents\": []}");
        const auto print = fingerprintFile(small);
        QVERIFY(print);
        QCOMPARE(print->size, std::uint64_t(19));
        QCOMPARE(print->headTailHash, fnvHex("{\"traceEvents\": []}"));
        QCOMPARE(fnvHex("a"), std::string("af63dc4c8601ec8c")); // the published FNV-1a 64 of "a"

        // A large file: its first and last 64 KiB, not the middle.
        const std::string text = readFile(m_trace);
        QVERIFY(text.size() > 2 * kFingerprintBytes);
        const auto large = fingerprintFile(m_trace);
        QVERIFY(large);
        QCOMPARE(large->size, std::uint64_t(fs::file_size(m_trace)));
        QCOMPARE(large->headTailHash,
                 fnvHex(text.substr(0, kFingerprintBytes) + text.substr(text.size() - kFingerprintBytes)));
        std::string middle = text;
        middle[text.size() / 2] ^= 0x20;
        writeFile(small, middle);
        QCOMPARE(fingerprintFile(small)->headTailHash, large->headTailHash);

        std::string error;
        QVERIFY(!fingerprintFile(m_dir->path() + "/none", &error));
        QVERIFY(error.find("cannot open") != std::string::npos);
    }

    void roundTrip()
    {
        QCOMPARE(readSidecar(m_trace).status, SidecarRead::Status::Missing);
        const TraceNotes notes = sampleNotes();
        std::string error;
        QVERIFY2(writeSidecar(m_trace, notes, &error), error.c_str());
        QCOMPARE(sidecarPath(m_trace), m_trace + ".kinetoscope.json");
        QVERIFY(fs::exists(m_trace + ".kinetoscope.json"));
        QVERIFY(!fs::exists(m_trace + ".kinetoscope.json.tmp"));

        const auto json = nlohmann::json::parse(readFile(sidecarPath(m_trace)));
        QCOMPARE(json["format"].get<std::string>(), std::string("kinetoscope-notes"));
        QCOMPARE(json["version"].get<int>(), 1);
        QCOMPARE(json["trace"]["size"].get<std::uint64_t>(), std::uint64_t(fs::file_size(m_trace)));
        QVERIFY(json["views"][0]["layout"]["folded_python_tracks"] == nlohmann::json({1, 3}));
        QVERIFY(json["views"][0]["layout"]["collapsed_metrics"] == nlohmann::json({{1, 0}, {1, 2}}));

        const SidecarRead read = readSidecar(m_trace);
        QCOMPARE(read.status, SidecarRead::Status::Loaded);
        QCOMPARE(read.notes.marks.size(), std::size_t(2));
        QCOMPARE(read.notes.marks[1].start, TimeNs(2000));
        QCOMPARE(read.notes.marks[1].end, TimeNs(5000));
        QCOMPARE(read.notes.marks[1].note, notes.marks[1].note);
        QVERIFY(!read.notes.marks[0].isRange());
        QCOMPARE(read.notes.views.size(), std::size_t(2));
        const SavedView* view = read.notes.view("slow step");
        QVERIFY(view);
        QCOMPARE(view->visible.start, TimeNs(1500));
        QCOMPARE(view->visible.end, TimeNs(9000));
        QVERIFY(view->selectedRange);
        QCOMPARE(view->selectedRange->end, TimeNs(4000));
        QCOMPARE(view->selectedSlice, SliceId(7));
        QVERIFY(view->layout.gpuFirst);
        QCOMPARE(view->layout.pinnedTracks, (std::vector<std::uint32_t>{3, 1}));
        QCOMPARE(view->layout.groupOrder, (std::vector<std::uint32_t>{2, 0}));
        QCOMPARE(view->layout.foldedPythonLanes, (std::vector<bool>{false, true, false, true}));
        QCOMPARE(view->layout.collapsedMetrics, (std::vector<std::uint8_t>{0, 0b101}));
        QCOMPARE(view->layout.collapsedCounters, (std::vector<bool>{false, true}));
        QCOMPARE(view->collapsedProcesses, (std::vector<std::uint32_t>{1}));
        QCOMPARE(view->scrollY, 120);
        const SavedView* whole = read.notes.view("whole");
        QVERIFY(whole && !whole->selectedRange && whole->selectedSlice == kNoSlice);
    }

    void putViewReplacesByName()
    {
        TraceNotes notes = sampleNotes();
        SavedView again;
        again.name = "whole";
        again.visible = {5, 50};
        notes.putView(again);
        QCOMPARE(notes.views.size(), std::size_t(2));
        QCOMPARE(notes.view("whole")->visible.end, TimeNs(50));
    }

    void refusesAnotherTracesSidecar()
    {
        QVERIFY(writeSidecar(m_trace, sampleNotes()));
        // Another trace under a name that has these notes.
        const std::string other = m_dir->path() + "/other.pt.trace.json.gz";
        fs::copy_file(kstest::fixture("train_optimized"), other);
        fs::copy_file(sidecarPath(m_trace), sidecarPath(other));
        SidecarRead read = readSidecar(other);
        QCOMPARE(read.status, SidecarRead::Status::Refused);
        QVERIFY(read.notes.empty());
        QVERIFY2(read.message.find("another trace") != std::string::npos, read.message.c_str());

        // Same size, one byte changed in the last 64 KiB: the hash tells them apart.
        std::string text = readFile(m_trace);
        text[text.size() - 10] ^= 0x01;
        writeFile(m_trace, text);
        read = readSidecar(m_trace);
        QCOMPARE(read.status, SidecarRead::Status::Refused);
        QVERIFY(read.message.find("another trace") != std::string::npos);
    }

    void refusesAnotherVersion()
    {
        QVERIFY(writeSidecar(m_trace, sampleNotes()));
        auto json = nlohmann::json::parse(readFile(sidecarPath(m_trace)));
        json["version"] = 2;
        writeFile(sidecarPath(m_trace), json.dump());
        const SidecarRead read = readSidecar(m_trace);
        QCOMPARE(read.status, SidecarRead::Status::Refused);
        QVERIFY2(read.message.find("version 2") != std::string::npos, read.message.c_str());
    }

    void saysWhatIsWrongWithAMalformedOne()
    {
        writeFile(sidecarPath(m_trace), "{\"format\": \"kinetoscope-notes\", \"version\": 1,");
        SidecarRead read = readSidecar(m_trace);
        QCOMPARE(read.status, SidecarRead::Status::Unreadable);
        QCOMPARE(read.message, std::string("not valid JSON"));

        writeFile(sidecarPath(m_trace), "[1, 2]");
        QCOMPARE(readSidecar(m_trace).status, SidecarRead::Status::Unreadable);

        QVERIFY(writeSidecar(m_trace, sampleNotes()));
        auto json = nlohmann::json::parse(readFile(sidecarPath(m_trace)));
        json["marks"][0]["start_ns"] = "soon";
        writeFile(sidecarPath(m_trace), json.dump());
        read = readSidecar(m_trace);
        QCOMPARE(read.status, SidecarRead::Status::Unreadable);
        QVERIFY(read.notes.empty());
        QVERIFY2(read.message.find("malformed notes") == 0, read.message.c_str());

        json = nlohmann::json::parse(readFile(m_trace + ".kinetoscope.json"));
        json["marks"][0]["start_ns"] = 1;
        json["views"][0]["layout"]["collapsed_metrics"] = {{0, 9}};
        writeFile(sidecarPath(m_trace), json.dump());
        QCOMPARE(readSidecar(m_trace).status, SidecarRead::Status::Unreadable);
    }

    void writeFailsWithAMessage()
    {
        std::string error;
        QVERIFY(!writeSidecar(m_dir->path() + "/missing.json", sampleNotes(), &error));
        QVERIFY(error.find("cannot fingerprint") == 0);
    }

    void fitToTraceDropsWhatTheTraceLacks()
    {
        const LoadResult loaded = loadTraceFile(m_trace);
        QVERIFY(loaded.ok());
        const Trace& trace = *loaded.trace;
        TraceNotes notes = sampleNotes();
        const auto tracks = std::uint32_t(trace.tracks().size());
        const auto processes = std::uint32_t(trace.processes().size());
        notes.marks.push_back({500, 400, "backwards"});
        SavedView& view = notes.views[0];
        view.layout.pinnedTracks = {0, tracks, tracks + 7};
        view.layout.groupOrder = {processes};
        view.collapsedProcesses = {0, processes};
        view.layout.foldedPythonLanes.assign(tracks + 2, true);
        view.selectedSlice = SliceId(trace.slices().size());
        QCOMPARE(fitToTrace(notes, trace), std::size_t(1 + 2 + 1 + 1 + 2 + 1));
        QCOMPARE(notes.marks.size(), std::size_t(2));
        QCOMPARE(view.layout.pinnedTracks, std::vector<std::uint32_t>{0});
        QVERIFY(view.layout.groupOrder.empty());
        QCOMPARE(view.collapsedProcesses, std::vector<std::uint32_t>{0});
        QCOMPARE(view.layout.foldedPythonLanes.size(), std::size_t(tracks));
        QCOMPARE(view.selectedSlice, kNoSlice);
        QCOMPARE(fitToTrace(notes, trace), std::size_t(0));
    }

private:
    std::unique_ptr<kstest::TempDir> m_dir;
    std::string m_trace;
};

QTEST_GUILESS_MAIN(TestSidecar)
#include "tst_sidecar.moc"

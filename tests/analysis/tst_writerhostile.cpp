// Save As of hostile files (issue 10): every fuzz seed and committed reproducer is written
// and reloads with as many slices and instants, as JSON any other tool accepts. The
// reproducers of fuzz_passes' findings are checked one by one with their real contents.
#include "core/loading/loader.h"
#include "core/writing/eventtext.h"
#include "core/writing/writer.h"

#include <nlohmann/json.hpp>

#include "hostilefiles.h"

#include <QDir>
#include <QFile>
#include <QTest>

#include <algorithm>
#include <set>
#include <sstream>

using namespace ks;

namespace {

const QString kReproducers = QStringLiteral(KS_FUZZ_DIR "/reproducers/trace/");

struct RoundTrip {
    std::shared_ptr<const Trace> original, reloaded;
    TraceWriteResult result;
    std::string written;
};

RoundTrip saveAndReload(const QString& path)
{
    RoundTrip r;
    r.original = loadTraceFile(path.toStdString()).trace;
    if (!r.original)
        return r;
    std::ostringstream out;
    r.result = writeTraceJson(*r.original, out);
    r.written = out.str();
    r.reloaded = loadTraceFromMemory(r.written, "written.json").trace;
    return r;
}

std::multiset<std::string> instantNames(const Trace& trace)
{
    std::multiset<std::string> names;
    for (const StringId name : trace.instants().name)
        names.insert(std::string(trace.str(name)));
    return names;
}

// Deepest bracket nesting outside strings.
int nestingDepth(std::string_view text)
{
    int depth = 0, deepest = 0;
    bool inString = false;
    for (std::size_t i = 0; i < text.size(); ++i) {
        const char c = text[i];
        if (inString) {
            if (c == '\\')
                ++i;
            else if (c == '"')
                inString = false;
        } else if (c == '"') {
            inString = true;
        } else if (c == '[' || c == '{') {
            deepest = std::max(deepest, ++depth);
        } else if (c == ']' || c == '}') {
            --depth;
        }
    }
    return deepest;
}

std::uint64_t lostCount(const TraceWriteResult& result, const char* what)
{
    for (const auto& loss : result.lost) {
        if (loss.what.find(what) != std::string::npos)
            return loss.count;
    }
    return 0;
}

} // namespace

class TestWriterHostile : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void savesEveryHostileFile_data()
    {
        QVERIFY(kstest::addHostileFileRows() >= 24);
    }
    void savesEveryHostileFile()
    {
        QFETCH(QString, path);
        const RoundTrip r = saveAndReload(path);
        if (!r.original)
            QSKIP("a fatal load error: nothing to save (tst_hostileinputs checks its message)");
        QVERIFY2(r.result.ok, r.result.error.c_str());
        QVERIFY(nlohmann::json::accept(r.written));
        QVERIFY(r.reloaded);
        QCOMPARE(r.reloaded->slices().size(), r.original->slices().size());
        QCOMPARE(instantNames(*r.reloaded), instantNames(*r.original));
    }

    // A "n" (async instant) entry, kept verbatim, whose name holds 103 raw NUL bytes: the loader
    // reads it, strict JSON does not, and the writer used to leave it out (instants 2 -> 1).
    void rawControlCharactersAreEscapedNotDropped()
    {
        const RoundTrip r = saveAndReload(kReproducers + "save-as-drops-an-instant.json");
        QVERIFY(r.original && r.reloaded);
        QCOMPARE(r.original->instants().size(), 2u);
        const std::string nulName = std::string(103, '\0') + "yctr";
        QCOMPARE(instantNames(*r.original), (std::multiset<std::string>{nulName, "m"}));
        QCOMPARE(instantNames(*r.reloaded), instantNames(*r.original));
        QCOMPARE(r.result.lost.size(), 0u);
        QVERIFY(r.written.find("\\u0000\\u0000yctr") != std::string::npos);
    }

    // Args nested 30,000 deep overflowed the stack in nlohmann's copy and dump: rewritten
    // entries now stop at 200 levels and the writer says what it left out.
    void deepInstantArgsAreCutAndCounted()
    {
        const QString path = kReproducers + "deep-instant-args-save-as.json";
        QFile file(path);
        QVERIFY(file.open(QIODevice::ReadOnly));
        QCOMPARE(nestingDepth(file.readAll().toStdString()), 30004); // file, traceEvents, the instant, args, 30,000 arrays
        const RoundTrip r = saveAndReload(path);
        QVERIFY(r.original && r.reloaded);
        QCOMPARE(r.original->instants().size(), 1u);
        QCOMPARE(r.reloaded->instants().size(), 1u);
        QCOMPARE(lostCount(r.result, "nested deeper than 200"), 1u);
        QCOMPARE(nestingDepth(r.written), 203); // file, traceEvents, then the instant's levels 0-200
    }
    void deepMetadataIsCutAndCounted()
    {
        const RoundTrip r = saveAndReload(kReproducers + "deep-metadata-save-as.json");
        QVERIFY(r.original && r.reloaded);
        QCOMPARE(r.reloaded->slices().size(), 1u);
        QCOMPARE(lostCount(r.result, "nested deeper than 200"), 1u);
        QVERIFY(r.reloaded->metadataValue("x"));
        QCOMPARE(nestingDepth(*r.reloaded->metadataValue("x")), 201); // the value's outer levels 0-200
    }

    // Found by fuzz_passes: NaN as a phase read as 'N' (object event), the writer's NaN ->
    // null repair then read as 'n' (async instant): instants 0 -> 1. Only strings are phases.
    void phaseThatIsNoStringKeepsItsKind()
    {
        const RoundTrip r = saveAndReload(kReproducers + "phase-nan-save-as.json");
        QVERIFY(r.original && r.reloaded);
        QCOMPARE(r.original->instants().size(), 0u);
        QCOMPARE(r.reloaded->instants().size(), 0u);
        const auto phases = [](const Trace& t) {
            std::multiset<std::string> keys;
            for (const auto& c : t.phaseCategoryCounts())
                keys.insert(c.key);
            return keys;
        };
        QCOMPARE(phases(*r.original), (std::multiset<std::string>{"?/cpu_op"}));
        QCOMPARE(phases(*r.reloaded), phases(*r.original));
    }

    void repairsWhatStrictJsonRejects_data()
    {
        QTest::addColumn<QByteArray>("text");
        QTest::addColumn<QByteArray>("expected");
        QTest::addColumn<bool>("nulled");
        // Plain literals: moc does not lex raw strings holding \".
        QTest::newRow("raw control characters") << QByteArray("{\"a\":\"x\x01y\tz\"}") << QByteArray("{\"a\":\"x\\u0001y\\u0009z\"}") << false;
        QTest::newRow("NaN and Infinity, not in strings") << QByteArray("[NaN,-Infinity,inf,\"NaN\",1.5,true]") << QByteArray("[null,null,null,\"NaN\",1.5,true]") << true;
        QTest::newRow("unknown escape") << QByteArray("[\"a\\qb\"]") << QByteArray("[\"a\\ufffdb\"]") << false;
        QTest::newRow("short \\u escape") << QByteArray("[\"\\u12\"]") << QByteArray("[\"\\ufffd12\"]") << false;
        QTest::newRow("lone surrogate escape") << QByteArray("[\"\\ud800x\"]") << QByteArray("[\"\\ufffdx\"]") << false;
        QTest::newRow("invalid UTF-8") << QByteArray("[\"a\xff\"]") << QByteArray("[\"a\xEF\xBF\xBD\"]") << false;
        QTest::newRow("repeated and trailing commas") << QByteArray("{\"a\":1,,, \"b\":[1,],}") << QByteArray("{\"a\":1, \"b\":[1]}") << false;
        QTest::newRow("a bare word") << QByteArray("{\"id\":x\xff,\"t\":true}") << QByteArray("{\"id\":\"x\xEF\xBF\xBD\",\"t\":true}") << false;
        const QByteArray valid("{\"k\":[\"\\\"\\\\\\/\\b\\f\\n\\r\\t\\u00e9\",-1e3]}");
        QTest::newRow("valid text unchanged") << valid << valid << false;
    }
    void repairsWhatStrictJsonRejects()
    {
        QFETCH(QByteArray, text);
        QFETCH(QByteArray, expected);
        QFETCH(bool, nulled);
        const RepairedJson repaired = repairJson(text.toStdString());
        QCOMPARE(QByteArray::fromStdString(repaired.text), expected);
        QCOMPARE(repaired.nulledNonFinite, nulled);
        QVERIFY(nlohmann::json::accept(repaired.text));
    }
};

QTEST_GUILESS_MAIN(TestWriterHostile)
#include "tst_writerhostile.moc"

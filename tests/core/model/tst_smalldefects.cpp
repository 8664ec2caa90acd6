// Small defects found by reading: absurd numbers from any path end in clear values, never
// undefined behaviour (the collector path's times are bounded in the builder the JSON
// path shares; durations format at the extremes of int64), and a saved trace gets the
// mode the user's umask asks for.
#include "core/model/timelimits.h"
#include "core/model/tracebuilder.h"
#include "core/writing/writer.h"
#include "testfiles.h"

#include <QTest>

#include <cstdint>
#include <limits>
#include <sys/stat.h>

using namespace ks;

class TestSmallDefects : public QObject {
    Q_OBJECT
private slots:
    void formatsTheExtremesOfInt64()
    {
        // std::llabs(INT64_MIN) was undefined behaviour (UBSan reports it).
        QCOMPARE(formatDuration(INT64_MIN), std::string("-9223372036.855 s"));
        QCOMPARE(formatDuration(INT64_MAX), std::string("9223372036.855 s"));
        QCOMPARE(formatDuration(-1500), std::string("-1.500 µs"));
    }

    void builderBoundsTimesFromAnyPath()
    {
        TraceBuilder builder;
        SliceEvent slice;
        slice.pid = JsonId::fromNumber(1);
        slice.tid = JsonId::fromNumber(1);
        slice.name = builder.strings().intern("absurd");
        slice.start = std::numeric_limits<std::int64_t>::max() - 5; // a garbage CUPTI timestamp
        slice.duration = std::numeric_limits<std::int64_t>::max();
        builder.addSlice(slice);
        slice.start = std::numeric_limits<std::int64_t>::min();
        slice.duration = 10;
        builder.addSlice(slice);
        const Trace trace = builder.finish();
        QCOMPARE(trace.slices().size(), std::size_t(2));
        TimeNs lowest = 0, highest = 0;
        for (std::size_t i = 0; i < 2; ++i) {
            const TimeNs start = trace.slices().start[i];
            const TimeNs duration = trace.slices().duration[i];
            QVERIFY(start >= -kMaxTimeNs && start <= kMaxTimeNs);
            QVERIFY(duration >= 0 && duration <= kMaxTimeNs);
            lowest = std::min(lowest, start);
            highest = std::max(highest, start + duration); // no overflow
        }
        QCOMPARE(lowest, -kMaxTimeNs);
        QCOMPARE(highest, kMaxTimeNs); // ends are capped too (a span beyond would overflow)
    }

    void savedTraceHonoursUmask()
    {
        const kstest::TempDir dir;
        QVERIFY(dir.isValid());
        const std::string path = dir.filePath("saved.pt.trace.json");
        const Trace trace = TraceBuilder().finish();
        const mode_t previous = umask(027);
        const TraceWriteResult result = writeTraceFile(trace, path);
        umask(previous);
        struct stat st { };
        const int statResult = stat(path.c_str(), &st);
        QVERIFY(result.ok);
        QCOMPARE(statResult, 0);
        QCOMPARE(int(st.st_mode & 0777), 0640); // was 0644 whatever the umask
    }
};

QTEST_APPLESS_MAIN(TestSmallDefects)
#include "tst_smalldefects.moc"

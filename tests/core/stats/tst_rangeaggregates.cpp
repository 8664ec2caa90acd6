// Range aggregates on a tiny inline trace, with sums worked out by hand.
#include "core/loading/loader.h"
#include "core/stats/rangeaggregates.h"

#include <QTest>

using namespace ks;

namespace {

// CPU thread: outer [10,110] holding inner [20,50] and [60,100]; outer [200,250];
// a zero-length "zero" at 40 on another thread. GPU: kernels k [30,50], [55,65] on stream 7,
// a copy [70,90] on stream 8. All in µs.
const char* kTrace = R"json({"traceEvents":[
 {"ph":"X","cat":"cpu_op","name":"outer","pid":1,"tid":1,"ts":10,"dur":100},
 {"ph":"X","cat":"cpu_op","name":"inner","pid":1,"tid":1,"ts":20,"dur":30},
 {"ph":"X","cat":"cpu_op","name":"inner","pid":1,"tid":1,"ts":60,"dur":40},
 {"ph":"X","cat":"cpu_op","name":"outer","pid":1,"tid":1,"ts":200,"dur":50},
 {"ph":"X","cat":"cpu_op","name":"zero","pid":1,"tid":2,"ts":40,"dur":0},
 {"ph":"X","cat":"kernel","name":"k","pid":0,"tid":7,"ts":30,"dur":20},
 {"ph":"X","cat":"kernel","name":"k","pid":0,"tid":7,"ts":55,"dur":10},
 {"ph":"X","cat":"gpu_memcpy","name":"Memcpy HtoD (Pageable -> Device)","pid":0,"tid":8,"ts":70,"dur":20}
]})json";

constexpr TimeNs us(TimeNs v) { return v * 1000; }

const RangeAggregateRow* find(const RangeAggregates& a, std::string_view name)
{
    for (const auto& r : a.rows) {
        if (r.name == name)
            return &r;
    }
    return nullptr;
}

} // namespace

class TestRangeAggregates : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void initTestCase()
    {
        auto loaded = loadTraceFromMemory(kTrace, "tiny");
        QVERIFY(loaded.ok());
        m_trace = loaded.trace;
        QCOMPARE(m_trace->tracks().size(), std::size_t(4));
        for (std::uint32_t t = 0; t < m_trace->tracks().size(); ++t)
            m_allTracks.push_back(t);
    }

    void clipsToRange()
    {
        const auto a = computeRangeAggregates(*m_trace, us(40), us(220), m_allTracks);
        const auto* outer = find(a, "outer");
        QVERIFY(outer);
        QCOMPARE(outer->count, 2u);
        QCOMPARE(outer->total, us(70 + 20)); // [40,110] and [200,220]
        QCOMPARE(outer->self, us(20 + 20)); // 70 minus the children's 10 + 40
        QCOMPARE(outer->min, us(20));
        QCOMPARE(outer->max, us(70));
        QCOMPARE(outer->average(), us(45));
        const auto* inner = find(a, "inner");
        QVERIFY(inner);
        QCOMPARE(inner->count, 2u);
        QCOMPARE(inner->total, us(10 + 40));
        QCOMPARE(inner->self, us(50));
        QCOMPARE(inner->min, us(10));
        const auto* zero = find(a, "zero");
        QVERIFY(zero);
        QCOMPARE(zero->count, 1u);
        QCOMPARE(zero->total, TimeNs(0));
        const auto* k = find(a, "k");
        QVERIFY(k);
        QCOMPARE(k->count, 2u);
        QCOMPARE(k->total, us(10 + 10));
        QCOMPARE(a.rows.front().name, std::string("outer"));

        QCOMPARE(a.streams.size(), std::size_t(2));
        for (const auto& s : a.streams) {
            QCOMPARE(m_trace->tracks()[s.track].kind, TrackKind::GpuStream);
            QCOMPARE(s.busy, us(20)); // stream 7: 10 + 10; stream 8: the copy
        }
    }

    void selectsTracks()
    {
        std::uint32_t cpuThread = 0;
        for (std::uint32_t t = 0; t < m_trace->tracks().size(); ++t) {
            if (m_trace->tracks()[t].kind == TrackKind::CpuThread && m_trace->tracks()[t].tid.number == 1)
                cpuThread = t;
        }
        const std::uint32_t only[] = {cpuThread};
        const auto a = computeRangeAggregates(*m_trace, us(0), us(1000), only);
        QCOMPARE(a.rows.size(), std::size_t(2));
        QCOMPARE(find(a, "outer")->total, us(150));
        QCOMPARE(find(a, "outer")->self, us(80));
        QVERIFY(a.streams.empty());
    }

    void emptyRange()
    {
        const auto a = computeRangeAggregates(*m_trace, us(300), us(400), m_allTracks);
        QVERIFY(a.rows.empty());
        QCOMPARE(a.streams.size(), std::size_t(2));
        QCOMPARE(a.streams[0].busy, TimeNs(0));
    }

    // A stream whose kernels overlap lies in several rows (nested and overflow lanes): its busy
    // time is their union inside the range, each stretch counted once.
    void busyTimeUnitesOverlappingRows()
    {
        const auto loaded = loadTraceFromMemory(R"json({"traceEvents":[
 {"ph":"X","cat":"kernel","name":"a","pid":0,"tid":9,"ts":0,"dur":50},
 {"ph":"X","cat":"kernel","name":"b","pid":0,"tid":9,"ts":20,"dur":60},
 {"ph":"X","cat":"kernel","name":"c","pid":0,"tid":9,"ts":30,"dur":10},
 {"ph":"X","cat":"kernel","name":"d","pid":0,"tid":9,"ts":100,"dur":20},
 {"ph":"X","cat":"gpu_memset","name":"Memset (Device)","pid":0,"tid":9,"ts":110,"dur":40},
 {"ph":"X","cat":"kernel","name":"e","pid":0,"tid":9,"ts":200,"dur":10},
 {"ph":"X","cat":"kernel","name":"f","pid":0,"tid":9,"ts":300,"dur":10}
]})json",
                                                "overlapping");
        QVERIFY(loaded.ok());
        QCOMPARE(loaded.trace->tracks().size(), std::size_t(1));
        QVERIFY(loaded.trace->tracks()[0].rowEnd - loaded.trace->tracks()[0].rowBegin >= 3);
        const std::uint32_t stream[] = {0};
        const auto a = computeRangeAggregates(*loaded.trace, us(10), us(205), stream);
        QCOMPARE(a.streams.size(), std::size_t(1));
        QCOMPARE(a.streams[0].busy, us(70 + 50 + 5)); // [10,80], [100,150], [200,205]
        QCOMPARE(computeRangeAggregates(*loaded.trace, us(0), us(400), stream).streams[0].busy, us(80 + 50 + 10 + 10));
    }

private:
    std::shared_ptr<const Trace> m_trace;
    std::vector<std::uint32_t> m_allTracks;
};

QTEST_GUILESS_MAIN(TestRangeAggregates)
#include "tst_rangeaggregates.moc"

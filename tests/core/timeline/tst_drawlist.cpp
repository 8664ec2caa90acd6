#include "core/model/tracebuilder.h"
#include "core/timeline/drawlist.h"
#include "fixture.h"

#include <QTest>

using namespace ks;

namespace {

// Slices of the row that intersect [viewStart, viewEnd), counted one by one.
std::size_t visibleSlices(const Trace& trace, std::uint32_t row, TimeNs viewStart, TimeNs viewEnd)
{
    const Row& r = trace.rows()[row];
    std::size_t n = 0;
    for (SliceId s = r.begin; s < r.end; ++s) {
        if (trace.slices().end(s) > viewStart && trace.slices().start[s] < viewEnd)
            ++n;
    }
    return n;
}

} // namespace

class TestDrawList : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void foldsRunsPerPixelColumn()
    {
        TraceBuilder builder;
        const StringId name = builder.strings().intern("tiny");
        const StringId wide = builder.strings().intern("wide");
        const StringId cat = builder.strings().intern("cpu_op");
        SliceEvent e;
        e.pid = JsonId::fromNumber(1);
        e.tid = JsonId::fromNumber(1);
        e.category = cat;
        e.name = name;
        e.duration = 1;
        for (int i = 0; i < 1000; ++i) {
            e.start = i * 10;
            builder.addSlice(e);
        }
        e.name = wide;
        e.start = 10'000;
        e.duration = 10'000;
        builder.addSlice(e);
        const Trace trace = builder.finish();
        QCOMPARE(trace.rows().size(), std::size_t(1));

        std::vector<DrawItem> items;
        appendRowDrawList(trace, 0, TimeScale(0, 100.0), 2000, items);
        // 100 columns of ten 1-ns slices each, then the 100-px wide slice on its own.
        QCOMPARE(items.size(), std::size_t(101));
        for (int i = 0; i < 100; ++i) {
            QCOMPARE(items[i].count, 10u);
            QCOMPARE(items[i].first, SliceId(i * 10));
            QCOMPARE(std::floor(items[i].x0), double(i));
        }
        QCOMPARE(items[100].count, 1u);
        QCOMPARE(trace.str(trace.slices().name[items[100].first]), std::string_view("wide"));
        QCOMPARE(items[100].x0, 100.0);
        QCOMPARE(items[100].x1, 200.0);

        // Zoomed in to 1 ns per pixel, nothing folds: every visible slice is its own item.
        items.clear();
        appendRowDrawList(trace, 0, TimeScale(0, 0.25), 400, items);
        QCOMPARE(items.size(), std::size_t(10));
        for (const DrawItem& item : items)
            QCOMPARE(item.count, 1u);
    }

    void conservesEventsOnRealTrace_data()
    {
        QTest::addColumn<double>("zoom"); // fraction of the trace shown
        QTest::addColumn<double>("offset"); // where the view starts, as a fraction
        QTest::newRow("full") << 1.0 << 0.0;
        QTest::newRow("tenth") << 0.1 << 0.45;
        QTest::newRow("thousandth") << 0.001 << 0.3;
        QTest::newRow("1us-ish") << 0.000003 << 0.62;
    }

    void conservesEventsOnRealTrace()
    {
        QFETCH(double, zoom);
        QFETCH(double, offset);
        static const auto trace = test::loadFixture("big");
        const double width = 1920;
        const double span = double(trace->endTime() - trace->startTime());
        const TimeNs viewStart = trace->startTime() + TimeNs(span * offset);
        const TimeScale scale(viewStart, span * zoom / width);
        const TimeNs viewEnd = scale.viewEnd(width);
        std::vector<DrawItem> items;
        std::size_t drawn = 0, folded = 0, visible = 0, itemCount = 0;
        for (std::uint32_t row = 0; row < trace->rows().size(); ++row) {
            items.clear();
            appendRowDrawList(*trace, row, scale, width, items);
            for (std::size_t i = 0; i < items.size(); ++i) {
                const DrawItem& item = items[i];
                QVERIFY(item.count >= 1);
                if (i > 0) // sorted and disjoint runs of consecutive slices
                    QCOMPARE(item.first, items[i - 1].first + items[i - 1].count);
                (item.folded() ? folded : drawn) += item.count;
            }
            // One item per pixel column at most, plus wide slices (>= 3 px each).
            QVERIFY(items.size() <= std::size_t(width) + 2);
            itemCount += items.size();
            visible += visibleSlices(*trace, row, viewStart, viewEnd);
        }
        QCOMPARE(drawn + folded, visible);
        QVERIFY(visible > 0);
        if (zoom == 1.0) {
            // Fully zoomed out, far fewer items than events are drawn.
            QCOMPARE(visible, trace->slices().size());
            QVERIFY2(itemCount * 4 < visible, std::to_string(itemCount).c_str());
        }
    }

    void hitTestFindsItem()
    {
        std::vector<DrawItem> items{{0, 10, 0, 1}, {10.2, 10.5, 1, 5}, {20, 40, 6, 1}};
        QCOMPARE(drawItemAt(items, 0, items.size(), 5)->first, SliceId(0));
        QCOMPARE(drawItemAt(items, 0, items.size(), 30)->first, SliceId(6));
        QCOMPARE(drawItemAt(items, 0, items.size(), 15.5), nullptr);
        QCOMPARE(drawItemAt(items, 0, items.size(), 50), nullptr);
        // A thin run stays clickable a pixel around it.
        QVERIFY(drawItemAt(items, 0, items.size(), 11.8) != nullptr);
    }
};

QTEST_APPLESS_MAIN(TestDrawList)
#include "tst_drawlist.moc"

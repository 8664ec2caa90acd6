// `collect --collector-options` and KINETOSCOPE_COLLECTOR_OPTIONS: one parser for the host
// (which rejects bad lists with a message) and the injection.
#include "collector/protocol/injectionoptions.h"

#include <QTest>

using ks::wire::InjectionOptions;
using ks::wire::parseInjectionOptions;

class TestInjectionOptions : public QObject {
    Q_OBJECT
private slots:
    void defaultsAndEveryKey()
    {
        InjectionOptions o;
        std::string error;
        QVERIFY(parseInjectionOptions("", o, error));
        QCOMPARE(o.bufferBytes, std::size_t(8u << 20));
        QVERIFY(!o.dropBuffers && !o.kinetoKindsOnly && o.systemThreadIds && o.ownNvtx && !o.allApiCalls && !o.stats);
        QVERIFY(o.torchObserver && !o.cuptiClock);
        QVERIFY(parseInjectionOptions("buffer_mb=4,max_buffers=64,flush_ms=250,consumer=drop,kinds=kineto,"
                                      "thread_ids=cupti,nvtx=cupti,api=all,stats=1,ops=nvtx,clock=cupti",
                                      o, error));
        QCOMPARE(o.bufferBytes, std::size_t(4u << 20));
        QCOMPARE(o.maxBuffers, std::size_t(64));
        QCOMPARE(o.flushPeriodMs, 250);
        QVERIFY(o.dropBuffers && o.kinetoKindsOnly && !o.systemThreadIds && !o.ownNvtx && o.allApiCalls && o.stats);
        QVERIFY(!o.torchObserver && o.cuptiClock);
        QVERIFY(parseInjectionOptions("consumer=translate,kinds=all,nvtx=own,stats=0,ops=observer,clock=realtime", o,
                                      error));
        QVERIFY(!o.dropBuffers && !o.kinetoKindsOnly && o.ownNvtx && !o.stats && o.torchObserver && !o.cuptiClock);
    }

    void badItemsAreRejectedWithTheirText()
    {
        for (const char* bad :
             {"consumer=none", "consumer", "flush_ms=0", "flush_ms=10x", "buffer_mb=-1", "buffer_mb=99999",
              "kinds=some", "api=none", "stats=yes", "ops=kineto", "clock=tsc", "speed=11", "=1"}) {
            InjectionOptions o;
            std::string error;
            QVERIFY(!parseInjectionOptions(std::string("flush_ms=20,") + bad, o, error));
            QVERIFY(error.find(std::string("'") + bad + "'") != std::string::npos);
            QVERIFY(error.find("consumer=translate|drop") != std::string::npos);
            QCOMPARE(o.flushPeriodMs, 20); // what came before the bad item was read
        }
    }
};

QTEST_APPLESS_MAIN(TestInjectionOptions)
#include "tst_injectionoptions.moc"

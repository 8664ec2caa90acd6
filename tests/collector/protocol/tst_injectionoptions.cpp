// `collect --collector-options` and KINETOSCOPE_COLLECTOR_OPTIONS: one parser for the host
// (which rejects bad lists with a message) and the injection.
#include "minitest.h"

#include "collector/protocol/injectionoptions.h"

using ks::wire::InjectionOptions;
using ks::wire::parseInjectionOptions;

KS_TEST(defaultsAndEveryKey)
{
    InjectionOptions o;
    std::string error;
    KS_CHECK(parseInjectionOptions("", o, error));
    KS_CHECK_EQ(o.bufferBytes, std::size_t(8u << 20));
    KS_CHECK(!o.dropBuffers && !o.kinetoKindsOnly && o.systemThreadIds && o.ownNvtx && !o.allApiCalls && !o.stats);
    KS_CHECK(o.torchObserver && !o.cuptiClock);
    KS_CHECK(parseInjectionOptions("buffer_mb=4,max_buffers=64,flush_ms=250,consumer=drop,kinds=kineto,"
                                   "thread_ids=cupti,nvtx=cupti,api=all,stats=1,ops=nvtx,clock=cupti",
                                   o, error));
    KS_CHECK_EQ(o.bufferBytes, std::size_t(4u << 20));
    KS_CHECK_EQ(o.maxBuffers, std::size_t(64));
    KS_CHECK_EQ(o.flushPeriodMs, 250);
    KS_CHECK(o.dropBuffers && o.kinetoKindsOnly && !o.systemThreadIds && !o.ownNvtx && o.allApiCalls && o.stats);
    KS_CHECK(!o.torchObserver && o.cuptiClock);
    KS_CHECK(
        parseInjectionOptions("consumer=translate,kinds=all,nvtx=own,stats=0,ops=observer,clock=realtime", o, error));
    KS_CHECK(!o.dropBuffers && !o.kinetoKindsOnly && o.ownNvtx && !o.stats && o.torchObserver && !o.cuptiClock);
}

KS_TEST(badItemsAreRejectedWithTheirText)
{
    for (const char* bad :
         {"consumer=none", "consumer", "flush_ms=0", "flush_ms=10x", "buffer_mb=-1", "buffer_mb=99999", "kinds=some",
          "api=none", "stats=yes", "ops=kineto", "clock=tsc", "speed=11", "=1"}) {
        InjectionOptions o;
        std::string error;
        KS_CHECK(!parseInjectionOptions(std::string("flush_ms=20,") + bad, o, error));
        KS_CHECK(error.find(std::string("'") + bad + "'") != std::string::npos);
        KS_CHECK(error.find("consumer=translate|drop") != std::string::npos);
        KS_CHECK_EQ(o.flushPeriodMs, 20); // what came before the bad item was read
    }
}

KS_TEST_MAIN()

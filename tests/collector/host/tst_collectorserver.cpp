// Transport: the private directory is 0700 and removed, a peer with a wrong token or
// garbage is turned away, a good peer's records reach the session's trace, and a peer
// that disappears mid-stream is marked terminated.
#include "collector/host/collectorsession.h"
#include "core/writing/writer.h"

#include <QTest>

#include <atomic>
#include <mutex>
#include <sstream>
#include <stdexcept>

#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

using namespace ks;
using namespace ks::collector;

namespace {

// A stand-in for the injection library's end of the socket.
class FakeTarget {
public:
    explicit FakeTarget(const std::string& path)
    {
        m_fd = socket(AF_UNIX, SOCK_STREAM, 0);
        sockaddr_un address{};
        address.sun_family = AF_UNIX;
        std::snprintf(address.sun_path, sizeof address.sun_path, "%s", path.c_str());
        m_connected = ::connect(m_fd, reinterpret_cast<const sockaddr*>(&address), sizeof address) == 0;
    }
    ~FakeTarget() { close(); }
    bool connected() const { return m_connected; }
    int fd() const { return m_fd; }
    template <class Record>
    void send(const Record& r)
    {
        std::vector<std::uint8_t> bytes;
        wire::appendFrame(bytes, r);
        sendRaw(bytes.data(), bytes.size());
    }
    void sendRaw(const void* data, std::size_t n) { QCOMPARE(::send(m_fd, data, n, MSG_NOSIGNAL), ssize_t(n)); }
    void close()
    {
        if (m_fd >= 0)
            ::close(m_fd);
        m_fd = -1;
    }

private:
    int m_fd = -1;
    bool m_connected = false;
};

wire::Hello helloWith(const std::string& token, std::int64_t pid = 777)
{
    wire::Hello h;
    h.token = token;
    h.pid = pid;
    h.executable = "/usr/bin/fake";
    return h;
}

// A sink that fails on the first record, as a sink out of memory would.
class ThrowingSink : public RecordSink {
public:
    void connectionAccepted(ConnectionId, wire::Hello) override { ++accepted; }
    void frameReceived(ConnectionId, const wire::Frame&) override { throw std::runtime_error("no room for records"); }
    void connectionClosed(ConnectionId, bool) override { }
    void connectionRejected(const std::string&) override { }
    void receiverFailed(const std::string& error) override
    {
        std::lock_guard lock(mutex);
        failure = error;
    }
    std::string failureText()
    {
        std::lock_guard lock(mutex);
        return failure;
    }
    std::atomic<int> accepted{0};

private:
    std::mutex mutex;
    std::string failure;
};

} // namespace

class TestCollectorServer : public QObject {
    Q_OBJECT
private slots:
    void privateDirectoryIsRemoved()
    {
        CollectorSession session;
        std::string error;
        QVERIFY2(session.listen(error), error.c_str());
        const std::string dir = session.server().directory();
        struct stat st { };
        QCOMPARE(stat(dir.c_str(), &st), 0);
        QCOMPARE(int(st.st_mode & 0777), 0700);
        QCOMPARE(stat(session.server().socketPath().c_str(), &st), 0);
        QVERIFY(S_ISSOCK(st.st_mode));
        QCOMPARE(session.server().token().size(), std::size_t(32));
        session.stopReceiving();
        QVERIFY(stat(dir.c_str(), &st) != 0);
    }

    void tokensAreRandom() { QVERIFY(randomToken() != randomToken()); }

    // An exception on the receiving thread is reported, never std::terminate; the traced
    // process sees its connection closed and runs on.
    void receiverExceptionIsReported()
    {
        ThrowingSink sink;
        CollectorServer server(sink);
        std::string error;
        QVERIFY2(server.listen(error), error.c_str());
        FakeTarget target(server.socketPath());
        QVERIFY(target.connected());
        target.send(helloWith(server.token()));
        target.send(wire::StringDef{1, "kernel"});
        QTRY_COMPARE(sink.failureText(), "the collector stopped receiving: no room for records");
        QCOMPARE(sink.accepted.load(), 1);
        QCOMPARE(server.openConnections(), 0);
        char byte = 0;
        QCOMPARE(::recv(target.fd(), &byte, 1, 0), ssize_t(0)); // EOF: our end was closed
        server.stop();
    }

    void wrongTokenIsRejected()
    {
        CollectorSession session;
        std::string error;
        QVERIFY(session.listen(error));
        FakeTarget target(session.server().socketPath());
        QVERIFY(target.connected());
        target.send(helloWith("ffffffffffffffffffffffffffffffff"));
        QTRY_COMPARE(session.stats().rejections.size(), std::size_t(1));
        QVERIFY(session.stats().rejections[0].find("wrong token") != std::string::npos);
        QCOMPARE(session.stats().processes, 0);
    }

    void garbageIsRejected()
    {
        CollectorSession session;
        std::string error;
        QVERIFY(session.listen(error));
        FakeTarget target(session.server().socketPath());
        const std::string garbage(64, '\xff');
        target.sendRaw(garbage.data(), garbage.size());
        QTRY_COMPARE(session.stats().rejections.size(), std::size_t(1));
        QCOMPARE(session.stats().processes, 0);
    }

    void recordsReachTheTrace()
    {
        CollectorSession session;
        std::string error;
        QVERIFY(session.listen(error));
        FakeTarget target(session.server().socketPath());
        target.send(helloWith(session.server().token()));
        target.send(wire::StringDef{1, "_Z4busyPfi"});
        wire::Kernel k;
        k.start = session.baseTimeNs() + 5000;
        k.end = k.start + 1000;
        k.stream = 7;
        k.correlation = 3;
        k.name = 1;
        k.grid[0] = k.block[0] = 1;
        for (int i = 0; i < 3; ++i)
            target.send(k);
        target.send(wire::Goodbye{4, 1, 1});
        target.close();
        QTRY_COMPARE(session.stats().kernels, std::uint64_t(3));
        QVERIFY(session.waitForConnectionsClosed(5000));
        const auto stats = session.stats();
        QCOMPARE(stats.processes, 1);
        QCOMPARE(stats.terminatedProcesses, 0);
        const Trace trace = session.snapshot();
        std::size_t kernels = 0;
        for (SliceId s = 0; s < trace.slices().size(); ++s)
            kernels += trace.str(trace.slices().name[s]) == "busy(float*, int)";
        QCOMPARE(kernels, std::size_t(3));
        QCOMPARE(trace.slices().start[0], TimeNs(5000));
    }

    // The GUI's snapshots copy only what arrived since the last one (LiveCopy): after each
    // batch of records, from two processes that connect at different times, with a pause in
    // between, each equals the whole recording built at once, written byte for byte.
    void liveSnapshotsEqualWholeSnapshots()
    {
        CollectorSession session;
        std::string error;
        QVERIFY(session.listen(error));
        LiveCopy live;
        const auto written = [](const Trace& trace) {
            std::ostringstream json;
            return writeTraceJson(trace, json).ok ? json.str() : std::string();
        };
        const auto compare = [&](std::uint64_t kernels) {
            QTRY_COMPARE(session.stats().kernels, kernels);
            const Trace incremental = session.snapshot(live);
            const Trace whole = session.snapshot();
            QCOMPARE(incremental.slices().size(), whole.slices().size());
            QCOMPARE(incremental.flows().size(), whole.flows().size());
            QCOMPARE(written(incremental), written(whole));
        };
        const auto launches = [&](FakeTarget& target, std::uint32_t first, int n) {
            for (std::uint32_t c = first; c < first + std::uint32_t(n); ++c) {
                wire::Api api;
                api.start = session.baseTimeNs() + std::int64_t(c) * 10000;
                api.end = api.start + 3000;
                api.domain = 1;
                api.name = 2;
                api.correlation = c;
                api.threadId = 99;
                wire::Kernel k;
                k.start = api.end + 1000;
                k.end = k.start + 2000;
                k.stream = 7;
                k.correlation = c;
                k.name = 1;
                k.grid[0] = k.block[0] = 1;
                // Kernels before their launches every other time, as CUPTI's buffers deliver them.
                if (c % 2) {
                    target.send(k);
                    target.send(api);
                } else {
                    target.send(api);
                    target.send(k);
                }
            }
        };
        FakeTarget first(session.server().socketPath());
        first.send(helloWith(session.server().token(), 700));
        first.send(wire::StringDef{1, "_Z4busyPfi"});
        first.send(wire::StringDef{2, "cudaLaunchKernel_v7000"});
        launches(first, 1, 5);
        compare(5);
        launches(first, 6, 7);
        compare(12);
        FakeTarget second(session.server().socketPath()); // a second process: names become per-pid
        second.send(helloWith(session.server().token(), 800));
        second.send(wire::StringDef{1, "_Z5otherPfi"});
        second.send(wire::StringDef{2, "cudaLaunchKernel_v7000"});
        launches(second, 1, 3);
        compare(15);
        session.setPaused(true); // a capture filter: built from a copy, the live one keeps growing
        launches(second, 4, 2);
        compare(17);
        session.setPaused(false);
        launches(first, 13, 4);
        first.send(wire::Goodbye{4, 1, 1});
        first.close();
        compare(21);
        second.close(); // without GOODBYE: terminated
        QTRY_COMPARE(session.stats().terminatedProcesses, 1);
        compare(21);
    }

    void vanishedPeerIsTerminated()
    {
        CollectorSession session;
        std::string error;
        QVERIFY(session.listen(error));
        {
            FakeTarget target(session.server().socketPath());
            target.send(helloWith(session.server().token()));
            target.send(wire::Clock{});
        }
        QTRY_COMPARE(session.stats().terminatedProcesses, 1);
        QTRY_COMPARE(session.stats().openConnections, 0); // closed just after the count (slower under ASan)
    }

    void manyConnections()
    {
        CollectorSession session;
        std::string error;
        QVERIFY(session.listen(error));
        std::vector<std::unique_ptr<FakeTarget>> targets;
        for (int i = 0; i < 8; ++i) {
            targets.push_back(std::make_unique<FakeTarget>(session.server().socketPath()));
            targets.back()->send(helloWith(session.server().token(), 1000 + i));
        }
        QTRY_COMPARE(session.stats().processes, 8);
        QCOMPARE(session.stats().openConnections, 8);
        // Stopping closes every connection: the targets see EOF/EPIPE and detach.
        session.stopReceiving();
        QCOMPARE(session.stats().openConnections, 0);
        QCOMPARE(session.stats().processes, 8);
        QCOMPARE(session.stats().terminatedProcesses, 0); // detached by us, not crashed
    }
};

QTEST_GUILESS_MAIN(TestCollectorServer)
#include "tst_collectorserver.moc"

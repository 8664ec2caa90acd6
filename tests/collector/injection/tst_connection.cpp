// The traced process's socket end: a collector that stops accepting or stops reading must
// not hang the application (connect and HELLO run inside its cuInit).
#include "collector/injection/connection.h"

#include "testfiles.h"

#include <QTest>

#include <chrono>

#include <cerrno>
#include <cstring>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>
#include <vector>

using ks::injection::Connection;

namespace {

sockaddr_un addressOf(const std::string& path)
{
    sockaddr_un address{};
    address.sun_family = AF_UNIX;
    std::memcpy(address.sun_path, path.c_str(), path.size() + 1);
    return address;
}

// A listening socket that never accepts unless asked to.
struct Listener {
    explicit Listener(const std::string& path, int backlog)
    {
        fd = ::socket(AF_UNIX, SOCK_STREAM, 0);
        const sockaddr_un address = addressOf(path);
        ok = fd >= 0 && ::bind(fd, reinterpret_cast<const sockaddr*>(&address), sizeof address) == 0
            && ::listen(fd, backlog) == 0;
    }
    ~Listener()
    {
        for (int c : clients)
            ::close(c);
        ::close(fd);
    }
    // Fills the backlog with connections nobody accepts.
    bool fillBacklog(const std::string& path)
    {
        const sockaddr_un address = addressOf(path);
        for (int i = 0; i < 64; ++i) {
            const int c = ::socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK, 0);
            if (::connect(c, reinterpret_cast<const sockaddr*>(&address), sizeof address) != 0) {
                const bool full = errno == EAGAIN;
                ::close(c);
                return full;
            }
            clients.push_back(c);
        }
        return false;
    }
    int fd = -1;
    bool ok = false;
    std::vector<int> clients;
};

// Milliseconds since it was made.
class Stopwatch {
public:
    long long elapsed() const
    {
        return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - m_start)
            .count();
    }

private:
    std::chrono::steady_clock::time_point m_start = std::chrono::steady_clock::now();
};

} // namespace

class TestConnection : public QObject {
    Q_OBJECT
private slots:
    void sendsToAnAcceptingCollector()
    {
        kstest::TempDir dir;
        const std::string path = dir.filePath("s");
        Listener listener(path, 4);
        QVERIFY(listener.ok);
        Connection connection;
        std::string error;
        QVERIFY2(connection.connect(path, 1000, error), error.c_str());
        const int peer = ::accept(listener.fd, nullptr, nullptr);
        QVERIFY(peer >= 0);
        const std::uint8_t hello[] = {'h', 'e', 'l', 'l', 'o'};
        QVERIFY(connection.sendAll(hello, sizeof hello));
        char received[8] = {};
        QCOMPARE(::read(peer, received, sizeof received), ssize_t(5));
        QCOMPARE(std::string(received), std::string("hello"));
        connection.close();
        QVERIFY(!connection.isOpen());
        ::close(peer);
    }

    void missingSocketFailsAtOnce()
    {
        kstest::TempDir dir;
        Connection connection;
        std::string error;
        const Stopwatch timer;
        QVERIFY(!connection.connect(dir.filePath("none"), 1000, error));
        QVERIFY(timer.elapsed() < 500);
        QCOMPARE(error, std::string(std::strerror(ENOENT)));
        QVERIFY(!connection.isOpen());
    }

    // Before: connect() blocked for as long as the collector did not accept.
    void collectorThatStopsAcceptingTimesOut()
    {
        kstest::TempDir dir;
        const std::string path = dir.filePath("s");
        Listener listener(path, 0);
        QVERIFY(listener.ok);
        QVERIFY(listener.fillBacklog(path));
        Connection connection;
        std::string error;
        const Stopwatch timer;
        QVERIFY(!connection.connect(path, 300, error));
        QVERIFY2(timer.elapsed() >= 250 && timer.elapsed() < 2000, std::to_string(timer.elapsed()).c_str());
        QCOMPARE(error, std::string("timed out connecting to the collector"));
        QVERIFY(!connection.isOpen());
    }

    // Before: sendAll() blocked forever once the socket buffer was full.
    void collectorThatStopsReadingTimesOut()
    {
        kstest::TempDir dir;
        const std::string path = dir.filePath("s");
        Listener listener(path, 4);
        QVERIFY(listener.ok);
        Connection connection;
        std::string error;
        QVERIFY2(connection.connect(path, 1000, error), error.c_str());
        const int peer = ::accept(listener.fd, nullptr, nullptr); // and never read
        QVERIFY(peer >= 0);
        QVERIFY(connection.setSendTimeout(200));
        const std::vector<std::uint8_t> data(64u << 20, 0x5a);
        const Stopwatch timer;
        QVERIFY(!connection.sendAll(data.data(), data.size()));
        QVERIFY2(timer.elapsed() >= 150 && timer.elapsed() < 3000, std::to_string(timer.elapsed()).c_str());
        ::close(peer);
    }
};

QTEST_GUILESS_MAIN(TestConnection)
#include "tst_connection.moc"

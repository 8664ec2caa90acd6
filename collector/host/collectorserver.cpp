#include "collector/host/collectorserver.h"

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <fcntl.h>
#include <map>
#include <poll.h>
#include <sys/eventfd.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>
#include <vector>

namespace ks::collector {
namespace {

std::string systemError(const std::string& what) { return what + ": " + std::strerror(errno); }

bool sameToken(const std::string& a, const std::string& b)
{
    if (a.size() != b.size())
        return false;
    unsigned char diff = 0; // no early exit: do not leak how much of the token matched
    for (std::size_t i = 0; i < a.size(); ++i)
        diff |= static_cast<unsigned char>(a[i] ^ b[i]);
    return diff == 0;
}

// Owns its socket: an exception that unwinds the receiving loop closes every connection.
struct Peer {
    Peer() = default;
    Peer(const Peer&) = delete;
    Peer& operator=(const Peer&) = delete;
    ~Peer()
    {
        if (fd >= 0)
            close(fd);
    }
    int fd = -1;
    ConnectionId id = 0;
    bool accepted = false; // HELLO with the right token seen
    wire::FrameDecoder decoder;
};

} // namespace

std::string randomToken()
{
    unsigned char bytes[16] = {};
    std::size_t filled = 0;
    while (filled < sizeof bytes) {
        const ssize_t n = getrandom(bytes + filled, sizeof bytes - filled, 0);
        if (n > 0)
            filled += static_cast<std::size_t>(n);
        else if (errno != EINTR)
            std::abort(); // no entropy source: refuse to run with a guessable token
    }
    std::string token;
    char hex[3];
    for (unsigned char b : bytes) {
        std::snprintf(hex, sizeof hex, "%02x", b);
        token += hex;
    }
    return token;
}

CollectorServer::CollectorServer(RecordSink& sink)
    : m_sink(sink)
{
}

CollectorServer::~CollectorServer() { stop(); }

bool CollectorServer::listen(std::string& error)
{
    const char* runtimeDir = std::getenv("XDG_RUNTIME_DIR");
    std::string base = runtimeDir && *runtimeDir && access(runtimeDir, W_OK) == 0 ? runtimeDir : "/tmp";
    std::string pattern = base + "/kinetoscope-XXXXXX";
    if (!mkdtemp(pattern.data())) {
        error = systemError("cannot create a private directory under " + base);
        return false;
    }
    m_directory = pattern;
    // mkdtemp already creates it 0700; make sure whatever the umask.
    chmod(m_directory.c_str(), 0700);
    m_socketPath = m_directory + "/c.sock";
    m_token = randomToken();

    sockaddr_un address{};
    address.sun_family = AF_UNIX;
    if (m_socketPath.size() >= sizeof(address.sun_path)) {
        error = "socket path too long: " + m_socketPath;
        removeDirectory();
        return false;
    }
    std::memcpy(address.sun_path, m_socketPath.c_str(), m_socketPath.size() + 1);
    m_listenFd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
    if (m_listenFd < 0 || bind(m_listenFd, reinterpret_cast<const sockaddr*>(&address), sizeof address) != 0
        || ::listen(m_listenFd, 64) != 0) {
        error = systemError("cannot listen on " + m_socketPath);
        stop();
        return false;
    }
    m_wakeFd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
    if (m_wakeFd < 0) {
        error = systemError("eventfd");
        stop();
        return false;
    }
    m_thread = std::thread([this] { run(); });
    return true;
}

void CollectorServer::stop()
{
    if (m_thread.joinable()) {
        const std::uint64_t one = 1;
        (void)!write(m_wakeFd, &one, sizeof one);
        m_thread.join();
    }
    if (m_wakeFd >= 0)
        close(m_wakeFd);
    if (m_listenFd >= 0)
        close(m_listenFd);
    m_wakeFd = m_listenFd = -1;
    removeDirectory();
}

void CollectorServer::removeDirectory()
{
    if (m_directory.empty())
        return;
    unlink(m_socketPath.c_str());
    rmdir(m_directory.c_str());
    m_directory.clear();
}

void CollectorServer::run() noexcept
{
    try {
        receive();
    } catch (...) {
        m_openConnections = 0; // receive()'s peers closed their sockets while unwinding
        const std::exception_ptr failure = std::current_exception();
        try {
            std::string error = "the collector stopped receiving";
            try {
                std::rethrow_exception(failure);
            } catch (const std::exception& e) {
                error += std::string(": ") + e.what();
            } catch (...) {
            }
            m_sink.receiverFailed(error);
        } catch (...) {
            // out of memory or a sink that throws again: nobody left to tell
        }
    }
}

void CollectorServer::receive()
{
    std::map<int, Peer> peers; // by fd
    ConnectionId nextId = 1;
    std::vector<std::uint8_t> buffer(1 << 16);

    const auto closePeer = [&](int fd, const std::string& rejection, bool byCollector = false) {
        Peer& peer = peers[fd];
        if (peer.accepted) {
            m_sink.connectionClosed(peer.id, byCollector);
            --m_openConnections;
        } else if (!rejection.empty()) {
            m_sink.connectionRejected(rejection);
        }
        peers.erase(fd); // closes it
    };

    for (;;) {
        std::vector<pollfd> fds;
        fds.push_back({m_wakeFd, POLLIN, 0});
        fds.push_back({m_listenFd, POLLIN, 0});
        for (const auto& [fd, peer] : peers)
            fds.push_back({fd, POLLIN, 0});
        if (poll(fds.data(), fds.size(), -1) < 0) {
            if (errno == EINTR)
                continue;
            break;
        }
        if (fds[0].revents)
            break;
        if (fds[1].revents & POLLIN) {
            for (;;) {
                const int fd = accept4(m_listenFd, nullptr, nullptr, SOCK_CLOEXEC);
                if (fd < 0)
                    break;
                ucred credentials{};
                socklen_t length = sizeof credentials;
                if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &credentials, &length) != 0
                    || credentials.uid != getuid()) {
                    m_sink.connectionRejected("a process of another user (uid " + std::to_string(credentials.uid)
                                              + ") tried to connect");
                    close(fd);
                    continue;
                }
                Peer& peer = peers[fd];
                peer.fd = fd;
                peer.id = nextId++;
            }
        }
        for (std::size_t i = 2; i < fds.size(); ++i) {
            if (!fds[i].revents)
                continue;
            const int fd = fds[i].fd;
            const ssize_t n = read(fd, buffer.data(), buffer.size());
            if (n == 0 || (n < 0 && errno != EINTR && errno != EAGAIN)) {
                closePeer(fd, peers[fd].accepted ? "" : "a process disconnected before HELLO");
                continue;
            }
            if (n < 0)
                continue;
            const auto busySince = std::chrono::steady_clock::now();
            m_bytesReceived.fetch_add(static_cast<std::uint64_t>(n), std::memory_order_relaxed);
            Peer& peer = peers[fd];
            peer.decoder.append(buffer.data(), static_cast<std::size_t>(n));
            wire::Frame frame;
            std::string rejection;
            bool drop = false;
            for (;;) {
                const auto status = peer.decoder.next(frame);
                if (status == wire::FrameDecoder::Status::NeedMore)
                    break;
                if (status == wire::FrameDecoder::Status::Corrupt) {
                    rejection = "corrupt stream: " + peer.decoder.error();
                    drop = true;
                    break;
                }
                if (peer.accepted) {
                    m_sink.frameReceived(peer.id, frame);
                    continue;
                }
                wire::Hello hello;
                if (frame.type != wire::RecordType::Hello || !wire::decodePayload(frame.payload, hello)
                    || hello.magic != wire::kMagic) {
                    rejection = "a peer did not start with HELLO";
                } else if (hello.version != wire::kProtocolVersion) {
                    rejection = "process " + std::to_string(hello.pid) + " speaks protocol version "
                        + std::to_string(hello.version) + ", expected " + std::to_string(wire::kProtocolVersion);
                } else if (!sameToken(hello.token, m_token)) {
                    rejection = "process " + std::to_string(hello.pid) + " presented a wrong token";
                }
                if (!rejection.empty()) {
                    drop = true;
                    break;
                }
                peer.accepted = true;
                ++m_openConnections;
                m_sink.connectionAccepted(peer.id, std::move(hello));
            }
            m_busyNs.fetch_add(static_cast<std::uint64_t>((std::chrono::steady_clock::now() - busySince).count()),
                               std::memory_order_relaxed);
            if (drop) {
                if (peer.accepted) { // garbage after a good start: keep what came, report it
                    m_sink.connectionRejected(rejection);
                    rejection.clear();
                }
                closePeer(fd, rejection);
            }
        }
    }
    for (auto it = peers.begin(); it != peers.end();) {
        const int fd = it->first;
        ++it;
        closePeer(fd, "", true);
    }
}

} // namespace ks::collector

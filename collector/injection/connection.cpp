#include "collector/injection/connection.h"

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <fcntl.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <sys/un.h>
#include <unistd.h>

namespace ks::injection {
namespace {

bool setBlocking(int fd, bool blocking)
{
    const int flags = ::fcntl(fd, F_GETFL);
    if (flags < 0)
        return false;
    return ::fcntl(fd, F_SETFL, blocking ? flags & ~O_NONBLOCK : flags | O_NONBLOCK) == 0;
}

// A non-blocking connect to a Unix socket fails with EAGAIN while the listener's backlog is
// full (a collector that stopped accepting); it is retried until the deadline.
bool connectBefore(int fd, const sockaddr_un& address, std::chrono::steady_clock::time_point deadline,
                   std::string& error)
{
    using namespace std::chrono;
    for (;;) {
        if (::connect(fd, reinterpret_cast<const sockaddr*>(&address), sizeof address) == 0)
            return true;
        const int failure = errno;
        const auto left = duration_cast<milliseconds>(deadline - steady_clock::now()).count();
        if (failure == EISCONN) // an interrupted attempt completed meanwhile
            return true;
        if (failure == EINTR)
            continue;
        if (failure == EAGAIN && left > 0) {
            ::poll(nullptr, 0, static_cast<int>(std::min<long long>(left, 10)));
            continue;
        }
        if (failure == EINPROGRESS && left > 0) {
            pollfd p{fd, POLLOUT, 0};
            int result = 0;
            do {
                result = ::poll(&p, 1, static_cast<int>(left));
            } while (result < 0 && errno == EINTR);
            if (result <= 0) {
                error = result == 0 ? "timed out connecting to the collector" : std::strerror(errno);
                return false;
            }
            int socketError = 0;
            socklen_t length = sizeof socketError;
            if (::getsockopt(fd, SOL_SOCKET, SO_ERROR, &socketError, &length) != 0)
                socketError = errno;
            if (socketError == 0)
                return true;
            error = std::strerror(socketError);
            return false;
        }
        error = failure == EAGAIN || failure == EINPROGRESS ? "timed out connecting to the collector"
                                                            : std::strerror(failure);
        return false;
    }
}

} // namespace

bool Connection::connect(const std::string& path, int timeoutMs, std::string& error)
{
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(timeoutMs);
    sockaddr_un address{};
    address.sun_family = AF_UNIX;
    if (path.empty() || path.size() >= sizeof(address.sun_path)) {
        error = "bad socket path";
        return false;
    }
    std::memcpy(address.sun_path, path.c_str(), path.size() + 1);
    const int fd = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
    if (fd < 0) {
        error = std::strerror(errno);
        return false;
    }
    m_fd = fd;
    if (!connectBefore(fd, address, deadline, error) || !setBlocking(fd, true) || !setSendTimeout(timeoutMs)) {
        if (error.empty())
            error = std::strerror(errno);
        close();
        return false;
    }
    return true;
}

bool Connection::setSendTimeout(int timeoutMs)
{
    timeval timeout{};
    timeout.tv_sec = timeoutMs / 1000;
    timeout.tv_usec = (timeoutMs % 1000) * 1000;
    return m_fd >= 0 && ::setsockopt(m_fd, SOL_SOCKET, SO_SNDTIMEO, &timeout, sizeof timeout) == 0;
}

bool Connection::sendAll(const std::uint8_t* data, std::size_t bytes)
{
    while (bytes > 0 && m_fd >= 0) {
        const ssize_t n = ::send(m_fd, data, bytes, MSG_NOSIGNAL);
        if (n < 0) {
            if (errno == EINTR)
                continue;
            return false; // EAGAIN: nothing taken within the send timeout
        }
        data += n;
        bytes -= static_cast<std::size_t>(n);
    }
    return m_fd >= 0;
}

void Connection::close()
{
    if (m_fd >= 0)
        ::close(m_fd);
    m_fd = -1;
}

} // namespace ks::injection

#pragma once
// The traced process's end of the Unix socket. Writes use MSG_NOSIGNAL: a collector that
// went away must never kill the application with SIGPIPE. Nothing blocks without a bound:
// connect gives up after its timeout and each write after the send timeout (SO_SNDTIMEO),
// so a collector that stalls cannot hang the application.
#include <cstddef>
#include <cstdint>
#include <string>

namespace ks::injection {

class Connection {
public:
    // Also sets the send timeout to `timeoutMs`.
    bool connect(const std::string& path, int timeoutMs, std::string& error);
    // How long one write may wait for the collector to take data before sendAll fails.
    bool setSendTimeout(int timeoutMs);
    // Blocks until everything is written; false once the collector is gone or took nothing
    // for the send timeout.
    bool sendAll(const std::uint8_t* data, std::size_t bytes);
    // Closes our descriptor only (no shutdown()): in a forked child this leaves the
    // parent's connection intact.
    void close();
    bool isOpen() const { return m_fd >= 0; }

private:
    int m_fd = -1;
};

} // namespace ks::injection

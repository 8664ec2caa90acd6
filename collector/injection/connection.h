#pragma once
// The traced process's end of the Unix socket. Writes use MSG_NOSIGNAL: a collector that
// went away must never kill the application with SIGPIPE.
#include <cstddef>
#include <cstdint>
#include <string>

namespace ks::injection {

class Connection {
public:
    bool connect(const std::string& path, std::string& error);
    // Blocks until everything is written; false once the collector is gone.
    bool sendAll(const std::uint8_t* data, std::size_t bytes);
    // Closes our descriptor only (no shutdown()): in a forked child this leaves the
    // parent's connection intact.
    void close();
    bool isOpen() const { return m_fd >= 0; }

private:
    int m_fd = -1;
};

} // namespace ks::injection

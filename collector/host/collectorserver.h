#pragma once
// The collector's listening end: a Unix socket in a private 0700 directory, a random token
// that each traced process must present in its HELLO, and one receiving thread that reads
// every connection (one per traced process) and hands complete frames to a sink.
// Plain POSIX, shared by the CLI and the GUI.
#include "collector/host/recordsink.h"

#include <atomic>
#include <cstdint>
#include <mutex>
#include <string>
#include <thread>

namespace ks::collector {

class CollectorServer {
public:
    explicit CollectorServer(RecordSink& sink);
    ~CollectorServer();
    CollectorServer(const CollectorServer&) = delete;
    CollectorServer& operator=(const CollectorServer&) = delete;

    // Creates the directory (under $XDG_RUNTIME_DIR, else /tmp), the socket and the token,
    // and starts the receiving thread.
    bool listen(std::string& error);
    // Closes the listener and every connection (traced processes detach and run on),
    // joins the thread and removes the directory. Idempotent.
    void stop();

    const std::string& directory() const { return m_directory; }
    const std::string& socketPath() const { return m_socketPath; }
    const std::string& token() const { return m_token; }
    int openConnections() const { return m_openConnections.load(); }
    // The receiving thread's work so far: bytes read and the time spent decoding them and in the
    // sink (not waiting for data), for the collector's stage timers (`collect` with stats=1).
    std::uint64_t bytesReceived() const { return m_bytesReceived.load(std::memory_order_relaxed); }
    std::uint64_t busyNs() const { return m_busyNs.load(std::memory_order_relaxed); }

private:
    // The thread's body: receive() until stop(); an exception is reported, never terminates.
    void run() noexcept;
    void receive();
    void removeDirectory();

    RecordSink& m_sink;
    std::string m_directory;
    std::string m_socketPath;
    std::string m_token;
    int m_listenFd = -1;
    int m_wakeFd = -1; // eventfd: stop() wakes the poll loop
    std::thread m_thread;
    std::atomic<int> m_openConnections{0};
    std::atomic<std::uint64_t> m_bytesReceived{0};
    std::atomic<std::uint64_t> m_busyNs{0};
};

// 128 random bits as 32 hex digits.
std::string randomToken();

} // namespace ks::collector

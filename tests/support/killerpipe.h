#pragma once
// A file that kills the process reading it, for tests of how a program survives a dying helper
// (Linux only): a named pipe posing as a trace file. A reader that opens it waits for bytes that
// never come; a thread of the test finds that reader (the process with the pipe open, through
// /proc), waits until `ready(reader)` says so, and kills it, or its parent, with SIGKILL (what the
// kernel's out-of-memory killer sends). No hook in the program under test is needed.
#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <functional>
#include <string>
#include <thread>

namespace kstest {

class KillerPipe {
public:
    enum class Victim { Reader, ReadersParent };

    KillerPipe(std::string path, Victim victim, std::function<bool(pid_t reader)> ready = {})
        : m_path(std::move(path))
        , m_victim(victim)
        , m_ready(std::move(ready))
    {
        if (::mkfifo(m_path.c_str(), 0600) == 0)
            m_thread = std::thread([this] { run(); });
    }
    ~KillerPipe() { join(); }
    KillerPipe(const KillerPipe&) = delete;
    KillerPipe& operator=(const KillerPipe&) = delete;

    // Stops the thread and closes the pipe's writing end (call it once the program under test has ended).
    void join()
    {
        m_stop = true;
        if (m_thread.joinable())
            m_thread.join();
    }
    const std::string& path() const { return m_path; }
    pid_t reader() const { return m_reader; } // the process that opened the pipe, 0 if none did
    pid_t killed() const { return m_killed; } // the process killed, 0 if none was

    // The parent of `pid` (field 4 of /proc/PID/stat), 0 when it is gone.
    static pid_t parentOf(pid_t pid)
    {
        std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
        std::string text((std::istreambuf_iterator<char>(stat)), std::istreambuf_iterator<char>());
        const auto afterName = text.rfind(") ");
        if (afterName == std::string::npos || text.size() < afterName + 4)
            return 0;
        return static_cast<pid_t>(std::atoi(text.c_str() + afterName + 4)); // ") S PPID"
    }

    // Where `pid` waits in the kernel (/proc/PID/wchan: "pipe_read" or "anon_pipe_read" for a read on a pipe).
    static std::string waitsIn(pid_t pid)
    {
        std::ifstream wchan("/proc/" + std::to_string(pid) + "/wchan");
        std::string text;
        std::getline(wchan, text);
        return text;
    }

    // True when `pid` has ended (gone, or a zombie nobody reaped).
    static bool ended(pid_t pid)
    {
        std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
        std::string text((std::istreambuf_iterator<char>(stat)), std::istreambuf_iterator<char>());
        const auto afterName = text.rfind(") ");
        return afterName == std::string::npos || text.compare(afterName + 2, 1, "Z") == 0;
    }

private:
    std::string m_path;
    Victim m_victim;
    std::function<bool(pid_t reader)> m_ready;
    std::thread m_thread;
    std::atomic<bool> m_stop = false;
    pid_t m_reader = 0, m_killed = 0;

    // The process other than this one with the file `id` open.
    static pid_t processWithOpen(const struct stat& id)
    {
        namespace fs = std::filesystem;
        std::error_code ec;
        for (const auto& process : fs::directory_iterator("/proc", ec)) {
            const std::string name = process.path().filename().string();
            if (name.find_first_not_of("0123456789") != std::string::npos || std::stoi(name) == ::getpid())
                continue;
            std::error_code fdError;
            for (const auto& fd : fs::directory_iterator(process.path() / "fd", fdError)) {
                struct stat open { };
                if (::stat(fd.path().c_str(), &open) == 0 && open.st_dev == id.st_dev && open.st_ino == id.st_ino)
                    return static_cast<pid_t>(std::stoi(name));
            }
        }
        return 0;
    }

    void run()
    {
        using namespace std::chrono;
        const auto deadline = steady_clock::now() + seconds(60);
        const auto pause = [&] {
            std::this_thread::sleep_for(milliseconds(10));
            return !m_stop && steady_clock::now() < deadline;
        };
        int fd = -1; // a writer's end, opened once a reader waits (else ENXIO)
        while ((fd = ::open(m_path.c_str(), O_WRONLY | O_NONBLOCK)) < 0 && pause()) { }
        struct stat id { };
        if (fd < 0 || ::stat(m_path.c_str(), &id) != 0)
            return;
        while ((m_reader = processWithOpen(id)) == 0 && pause()) { }
        while (m_ready && !m_ready(m_reader) && pause()) { }
        const pid_t victim = m_victim == Victim::Reader || m_reader == 0 ? m_reader : parentOf(m_reader);
        if (victim > 0 && ::kill(victim, SIGKILL) == 0)
            m_killed = victim;
        while (pause()) { } // the reader, if alive, still waits: held open, the pipe gives it no end of file
        ::close(fd);
    }
};

} // namespace kstest

#pragma once
// Starts the program to trace: no shell, the user's environment plus their additions plus
// the injection variables; refuses to run under another injection (nsys, ncu, sanitizer).
#include <optional>
#include <string>
#include <sys/types.h>
#include <utility>
#include <vector>

namespace ks::collector {

struct LaunchRequest {
    std::string program;
    std::vector<std::string> arguments;
    std::string workingDirectory; // empty: ours
    std::vector<std::pair<std::string, std::string>> environment; // added or overridden
};

struct InjectionSettings {
    std::string libraryPath; // absolute path of libkinetoscope_injection.so
    std::string socketPath;
    std::string token;
    std::string options; // KINETOSCOPE_COLLECTOR_OPTIONS, may be empty
};

struct ExitStatus {
    bool signaled = false;
    int code = 0; // exit code, or the signal number when signaled
    bool coreDumped = false;
    // The shell's convention: the code, or 128 + signal.
    int shellCode() const { return signaled ? 128 + code : code; }
    std::string describe() const; // "exited with code 3", "killed by signal 9 (Killed)"
};

// Finds the program like execvp would (PATH search when it has no slash) and checks that
// it is an executable regular file; returns the path or nullopt with an error message.
std::optional<std::string> resolveProgram(const std::string& program, std::string& error,
                                          const char* searchPath = nullptr);

// `base` is the environment to start from ("K=V" entries, usually environ).
std::optional<std::vector<std::string>> buildEnvironment(const std::vector<std::string>& base,
                                                         const LaunchRequest& request,
                                                         const InjectionSettings& injection, std::string& error);

// The injection library next to this executable (build tree or install prefix), or the
// one named by KINETOSCOPE_INJECTION_LIBRARY; nullopt with a message if none exists.
std::optional<std::string> findInjectionLibrary(std::string& error);

// The first readable `name` in the given folders (relative to this executable's directory,
// each starting and ending with '/'), as an absolute path; `executableDirectory` is set for
// messages.
std::optional<std::string> findNextToExecutable(const std::vector<std::string>& folders, const std::string& name,
                                                std::string& executableDirectory);

std::vector<std::string> currentEnvironment();

class ChildProcess {
public:
    ChildProcess() = default;
    ~ChildProcess();
    ChildProcess(const ChildProcess&) = delete;
    ChildProcess& operator=(const ChildProcess&) = delete;

    bool start(const LaunchRequest& request, const std::vector<std::string>& environment, std::string& error);
    // Non-blocking; the status once the child has ended.
    std::optional<ExitStatus> poll();
    std::optional<ExitStatus> waitFor(int timeoutMs);
    void signal(int signalNumber) const;
    pid_t pid() const { return m_pid; }
    bool running() const { return m_pid > 0 && !m_status; }

private:
    pid_t m_pid = -1;
    std::optional<ExitStatus> m_status;
};

} // namespace ks::collector

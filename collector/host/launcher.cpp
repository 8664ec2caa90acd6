#include "collector/host/launcher.h"

#include "collector/protocol/environment.h"

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <spawn.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>

// POSIX has the program declare it; glibc's <unistd.h> does too, but only under _GNU_SOURCE.
extern char** environ; // NOLINT(readability-redundant-declaration)

namespace ks::collector {
namespace {

bool isExecutableFile(const std::string& path, std::string& why)
{
    struct stat st { };
    if (stat(path.c_str(), &st) != 0) {
        why = path + ": " + std::strerror(errno);
        return false;
    }
    if (!S_ISREG(st.st_mode)) {
        why = path + " is not a regular file";
        return false;
    }
    if (access(path.c_str(), X_OK) != 0) {
        why = path + " is not executable";
        return false;
    }
    return true;
}

std::string keyOf(const std::string& entry) { return entry.substr(0, entry.find('=')); }

std::string directoryOf(const std::string& path)
{
    const auto slash = path.rfind('/');
    return slash == std::string::npos ? "." : path.substr(0, slash);
}

} // namespace

std::string ExitStatus::describe() const
{
    if (!signaled)
        return "exited with code " + std::to_string(code);
    const char* name = strsignal(code);
    return "killed by signal " + std::to_string(code) + " (" + (name ? name : "?") + ")"
        + (coreDumped ? ", core dumped" : "");
}

std::optional<std::string> resolveProgram(const std::string& program, std::string& error, const char* searchPath)
{
    if (program.empty()) {
        error = "no program given";
        return std::nullopt;
    }
    if (program.find('/') != std::string::npos) {
        if (!isExecutableFile(program, error))
            return std::nullopt;
        return program;
    }
    const char* path = searchPath ? searchPath : std::getenv("PATH");
    std::string list = path ? path : "/usr/local/bin:/usr/bin:/bin";
    std::string firstProblem;
    std::size_t begin = 0;
    while (begin <= list.size()) {
        const auto end = std::min(list.find(':', begin), list.size());
        const std::string dir = end > begin ? list.substr(begin, end - begin) : ".";
        const std::string candidate = dir + "/" + program;
        std::string why;
        if (isExecutableFile(candidate, why))
            return candidate;
        if (firstProblem.empty() && access(candidate.c_str(), F_OK) == 0)
            firstProblem = why;
        begin = end + 1;
    }
    error = firstProblem.empty() ? program + ": command not found" : firstProblem;
    return std::nullopt;
}

std::vector<std::string> currentEnvironment()
{
    std::vector<std::string> env;
    for (char** e = environ; e && *e; ++e)
        env.emplace_back(*e);
    return env;
}

std::optional<std::vector<std::string>> buildEnvironment(const std::vector<std::string>& base,
                                                         const LaunchRequest& request,
                                                         const InjectionSettings& injection, std::string& error)
{
    const auto isInjectionKey = [](const std::string& key) { return key == wire::kCudaInjectionEnv; };
    for (const auto& entry : base) {
        if (isInjectionKey(keyOf(entry))) {
            error = std::string(wire::kCudaInjectionEnv) + " is already set (" + entry.substr(entry.find('=') + 1)
                + "): another tool (Nsight Systems, Nsight Compute, compute-sanitizer) is injecting into "
                  "CUDA processes; unset it to record with Kinetoscope";
            return std::nullopt;
        }
    }
    for (const auto& [key, value] : request.environment) {
        if (key.empty() || key.find('=') != std::string::npos) {
            error = "invalid environment variable name '" + key + "'";
            return std::nullopt;
        }
        if (isInjectionKey(key)) {
            error = std::string(wire::kCudaInjectionEnv) + " cannot be set for a recorded program";
            return std::nullopt;
        }
    }
    if (injection.libraryPath.empty() || injection.libraryPath.front() != '/') {
        error = "the injection library path must be absolute";
        return std::nullopt;
    }
    std::vector<std::pair<std::string, std::string>> overrides = request.environment;
    overrides.emplace_back(wire::kCudaInjectionEnv, injection.libraryPath);
    overrides.emplace_back(wire::kNvtxInjectionEnv, injection.libraryPath);
    overrides.emplace_back(wire::kSocketEnv, injection.socketPath);
    overrides.emplace_back(wire::kTokenEnv, injection.token);
    if (!injection.options.empty())
        overrides.emplace_back(wire::kOptionsEnv, injection.options);

    std::vector<std::string> env;
    for (const auto& entry : base) {
        const std::string key = keyOf(entry);
        if (std::none_of(overrides.begin(), overrides.end(), [&](const auto& o) { return o.first == key; }))
            env.push_back(entry);
    }
    for (const auto& override : overrides) {
        // A later override of the same key wins: drop an earlier one. (No structured binding:
        // clang 14, used for the fuzz build, cannot capture one in a lambda.)
        std::erase_if(env, [&](const std::string& e) { return keyOf(e) == override.first; });
        env.push_back(override.first + "=" + override.second);
    }
    return env;
}

std::optional<std::string> findInjectionLibrary(std::string& error)
{
    constexpr const char* kName = "libkinetoscope_injection.so";
    if (const char* explicitPath = std::getenv("KINETOSCOPE_INJECTION_LIBRARY"); explicitPath && *explicitPath) {
        if (access(explicitPath, R_OK) == 0 && explicitPath[0] == '/')
            return std::string(explicitPath);
        error = std::string("KINETOSCOPE_INJECTION_LIBRARY=") + explicitPath + " is not a readable absolute path";
        return std::nullopt;
    }
    const std::string installed = std::string("/") + KS_INJECTION_INSTALL_DIR + "/";
    // Build tree (cli/, app/ and collector/ are siblings), then where `install` puts it
    // (KS_INJECTION_INSTALL_DIR: relative to the installed executables, e.g. ../lib/<triplet>/kinetoscope).
    std::string dir;
    if (auto found = findNextToExecutable({"/../collector/injection/", installed}, kName, dir))
        return found;
    error = std::string("the collector's injection library is missing: no ") + dir + installed + kName
        + " (this Kinetoscope was built without CUPTI, which comes with NVIDIA's CUDA toolkit; "
          "or set KINETOSCOPE_INJECTION_LIBRARY to its path)";
    return std::nullopt;
}

std::optional<std::string> findNextToExecutable(const std::vector<std::string>& folders, const std::string& name,
                                                std::string& executableDirectory)
{
    char self[4096];
    const ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
    if (n <= 0)
        return std::nullopt;
    executableDirectory = directoryOf(std::string(self, static_cast<std::size_t>(n)));
    for (const std::string& folder : folders) {
        const std::string candidate = executableDirectory + folder + name;
        if (access(candidate.c_str(), R_OK) == 0) {
            char resolved[4096];
            if (realpath(candidate.c_str(), resolved))
                return std::string(resolved);
        }
    }
    return std::nullopt;
}

ChildProcess::~ChildProcess()
{
    // Reap a child that already ended; a running one is left alone (never killed by us).
    if (running())
        poll();
}

bool ChildProcess::start(const LaunchRequest& request, const std::vector<std::string>& environment, std::string& error)
{
    const auto program = resolveProgram(request.program, error);
    if (!program)
        return false;
    if (!request.workingDirectory.empty()) {
        struct stat st { };
        if (stat(request.workingDirectory.c_str(), &st) != 0 || !S_ISDIR(st.st_mode)) {
            error = "working directory " + request.workingDirectory + " does not exist";
            return false;
        }
    }
    std::vector<std::string> argvStorage{request.program};
    argvStorage.insert(argvStorage.end(), request.arguments.begin(), request.arguments.end());
    std::vector<char*> argv, envp;
    for (auto& a : argvStorage)
        argv.push_back(a.data());
    argv.push_back(nullptr);
    std::vector<std::string> envStorage = environment;
    for (auto& e : envStorage)
        envp.push_back(e.data());
    envp.push_back(nullptr);

    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    if (!request.workingDirectory.empty())
        posix_spawn_file_actions_addchdir_np(&actions, request.workingDirectory.c_str());
    // The child gets default signal dispositions (we ignore SIGPIPE ourselves).
    posix_spawnattr_t attributes;
    posix_spawnattr_init(&attributes);
    sigset_t defaults;
    sigemptyset(&defaults);
    sigaddset(&defaults, SIGPIPE);
    sigaddset(&defaults, SIGINT);
    posix_spawnattr_setsigdefault(&attributes, &defaults);
    sigset_t none;
    sigemptyset(&none);
    posix_spawnattr_setsigmask(&attributes, &none);
    posix_spawnattr_setflags(&attributes, POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK);
    const int rc = posix_spawn(&m_pid, program->c_str(), &actions, &attributes, argv.data(), envp.data());
    posix_spawn_file_actions_destroy(&actions);
    posix_spawnattr_destroy(&attributes);
    if (rc != 0) {
        m_pid = -1;
        error = "cannot start " + request.program + ": " + std::strerror(rc);
        return false;
    }
    m_status.reset();
    return true;
}

std::optional<ExitStatus> ChildProcess::poll()
{
    if (m_status || m_pid <= 0)
        return m_status;
    int status = 0;
    const pid_t r = waitpid(m_pid, &status, WNOHANG);
    if (r != m_pid)
        return std::nullopt;
    ExitStatus s;
    if (WIFSIGNALED(status)) {
        s.signaled = true;
        s.code = WTERMSIG(status);
        s.coreDumped = WCOREDUMP(status);
    } else {
        s.code = WEXITSTATUS(status);
    }
    m_status = s;
    return m_status;
}

std::optional<ExitStatus> ChildProcess::waitFor(int timeoutMs)
{
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(timeoutMs);
    while (!poll() && std::chrono::steady_clock::now() < deadline)
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
    return m_status;
}

void ChildProcess::signal(int signalNumber) const
{
    if (m_pid > 0 && !m_status)
        kill(m_pid, signalNumber);
}

} // namespace ks::collector

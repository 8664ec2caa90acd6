#pragma once
// Test helpers for the command line: kinetoscope-cli (or any program) run as a process, its
// exit status and output, and its --json output parsed. Tests that use runCli() define KS_CLI
// (the binary's path) in CMake.
#include "testtext.h"

#include <nlohmann/json.hpp>

#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

extern char** environ;

namespace kstest {

struct ProgramRun {
    int exitCode = -1; // -1 when it did not start or finish in time, or was killed by a signal
    bool crashed = false; // ended by a signal (abort, segmentation fault)
    std::string out, err; // with mergeOutput, err is written to out
};

struct ProgramOptions {
    std::vector<std::string> environment; // "NAME=value" set, "NAME" removed
    bool mergeOutput = false;
    int timeoutMs = 120000;
};

// The path of the executable name in PATH; empty when there is none.
inline std::string findExecutable(const std::string& name)
{
    const char* path = std::getenv("PATH");
    for (const std::string& dir : split(path ? path : "", ':', true)) {
        const std::string candidate = dir + "/" + name;
        if (::access(candidate.c_str(), X_OK) == 0)
            return candidate;
    }
    return {};
}

// `program args` run to its end (killed after the timeout), with what it wrote.
inline ProgramRun runProgram(const std::string& program, const std::vector<std::string>& args,
                             const ProgramOptions& options = {})
{
    std::vector<std::string> env;
    for (char** e = environ; *e; ++e)
        env.emplace_back(*e);
    for (const std::string& change : options.environment) {
        const std::string name = change.substr(0, change.find('=')) + "=";
        std::erase_if(env, [&](const std::string& e) { return e.starts_with(name); });
        if (change.find('=') != std::string::npos)
            env.push_back(change);
    }
    std::vector<char*> argv{const_cast<char*>(program.c_str())}, envp;
    for (const std::string& a : args)
        argv.push_back(const_cast<char*>(a.c_str()));
    argv.push_back(nullptr);
    for (std::string& e : env)
        envp.push_back(e.data());
    envp.push_back(nullptr);

    ProgramRun run;
    int outPipe[2], errPipe[2];
    if (::pipe(outPipe) != 0 || ::pipe(errPipe) != 0)
        return run;
    const pid_t pid = ::fork();
    if (pid == 0) {
        ::dup2(outPipe[1], 1);
        ::dup2(options.mergeOutput ? outPipe[1] : errPipe[1], 2);
        for (int fd : {outPipe[0], outPipe[1], errPipe[0], errPipe[1]})
            ::close(fd);
        ::execvpe(program.c_str(), argv.data(), envp.data()); // as QProcess: a bare name is looked up in PATH
        ::_exit(127);
    }
    ::close(outPipe[1]);
    ::close(errPipe[1]);
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(options.timeoutMs);
    pollfd fds[2] = {{outPipe[0], POLLIN, 0}, {errPipe[0], POLLIN, 0}};
    std::string* sinks[2] = {&run.out, &run.err};
    bool timedOut = false;
    while (pid > 0 && (fds[0].fd >= 0 || fds[1].fd >= 0)) {
        const auto left =
            std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
        if (left.count() <= 0) {
            timedOut = true;
            ::kill(pid, SIGKILL);
            break;
        }
        if (::poll(fds, 2, int(left.count())) < 0)
            continue;
        for (int i = 0; i < 2; ++i) {
            if (fds[i].fd < 0 || !fds[i].revents)
                continue;
            char buffer[65536];
            const ssize_t n = ::read(fds[i].fd, buffer, sizeof buffer);
            if (n > 0)
                sinks[i]->append(buffer, std::size_t(n));
            else {
                ::close(fds[i].fd);
                fds[i].fd = -1;
            }
        }
    }
    for (const pollfd& fd : fds) {
        if (fd.fd >= 0)
            ::close(fd.fd);
    }
    int status = 0;
    if (pid <= 0 || ::waitpid(pid, &status, 0) != pid || timedOut)
        return run;
    run.crashed = WIFSIGNALED(status);
    run.exitCode = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    return run;
}

// The exit status of `program args` (-1 when it did not finish in time), with what it wrote.
inline int runProgram(const std::string& program, const std::vector<std::string>& args, std::string* out,
                      std::string* err = nullptr, int timeoutMs = 120000)
{
    ProgramRun run = runProgram(program, args, ProgramOptions{{}, false, timeoutMs});
    if (out)
        *out = std::move(run.out);
    if (err)
        *err = std::move(run.err);
    return run.exitCode;
}

#ifdef KS_CLI
inline int runCli(const std::vector<std::string>& args, std::string* out = nullptr, std::string* err = nullptr,
                  int timeoutMs = 120000)
{
    return runProgram(KS_CLI, args, out, err, timeoutMs);
}

// Its standard output as JSON; null (with its standard error as a warning) when it fails.
inline nlohmann::json runCliJson(const std::vector<std::string>& args)
{
    std::string out, err;
    if (runCli(args, &out, &err) != 0) {
        std::fprintf(stderr, "kinetoscope-cli failed: %s\n", err.c_str());
        return nullptr;
    }
    return nlohmann::json::parse(out);
}
#endif

} // namespace kstest

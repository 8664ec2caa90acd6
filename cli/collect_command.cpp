// kinetoscope-cli collect: runs a program under the CUPTI collector and writes a
// kineto-compatible trace (one file per traced process, or one merged file).
#include "cli/command.h"

#include "collector/host/collectorsession.h"
#include "core/writing/writer.h"

#include <atomic>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <thread>

namespace ks::cli {
namespace {

constexpr const char* kUsage =
    "usage: kinetoscope-cli collect [-o FILE] [--duration S] [--env K=V]... [--merge]\n"
    "                               [--collector-options K=V,...] -- PROGRAM [ARGS...]\n\n"
    "Runs PROGRAM (no shell) with the CUPTI collector injected into it and every CUDA process\n"
    "it starts, forwarding its output, until it exits, Ctrl+C or --duration seconds. Writes a\n"
    "kineto-compatible trace (.pt.trace.json, gzip when FILE ends in .gz): one file per traced\n"
    "process (FILE with .<pid> inserted when there are several), or one with --merge.\n"
    "Exit status: PROGRAM's (128 + signal when it was killed); 1 when nothing was recorded.\n\n"
    "  -o FILE               output (default: PROGRAM.pt.trace.json.gz)\n"
    "  --duration S          stop recording after S seconds; PROGRAM keeps running\n"
    "  --env K=V             set a variable for PROGRAM (repeatable)\n"
    "  --merge               one file for all processes\n"
    "  --collector-options   injection options: buffer_mb=8,max_buffers=32,flush_ms=100\n";

std::atomic<int> g_interrupts{0};

void onInterrupt(int) { g_interrupts.fetch_add(1); }

struct CollectArgs {
    std::string output;
    double duration = 0.0;
    bool merge = false;
    std::string collectorOptions;
    collector::LaunchRequest request;
};

// 0: parsed; otherwise the exit code to return (2: usage error, 0: --help).
int parseArgs(const std::vector<std::string>& args, CollectArgs& out)
{
    std::size_t i = 0;
    const auto value = [&](const std::string& option) -> const std::string* {
        if (i + 1 >= args.size()) {
            std::fprintf(stderr, "collect: %s needs a value\n", option.c_str());
            return nullptr;
        }
        return &args[++i];
    };
    for (; i < args.size(); ++i) {
        const std::string& a = args[i];
        if (a == "--") {
            ++i;
            break;
        }
        if (a == "-h" || a == "--help") {
            std::fputs(kUsage, stdout);
            return -1;
        }
        const std::string* v = nullptr;
        if (a == "-o" || a == "--output") {
            if (!(v = value(a)))
                return 2;
            out.output = *v;
        } else if (a == "--duration") {
            if (!(v = value(a)))
                return 2;
            char* end = nullptr;
            out.duration = std::strtod(v->c_str(), &end);
            if (*end || out.duration <= 0) {
                std::fprintf(stderr, "collect: --duration needs a positive number of seconds\n");
                return 2;
            }
        } else if (a == "--env") {
            if (!(v = value(a)))
                return 2;
            const auto eq = v->find('=');
            if (eq == std::string::npos || eq == 0) {
                std::fprintf(stderr, "collect: --env needs K=V, got '%s'\n", v->c_str());
                return 2;
            }
            out.request.environment.emplace_back(v->substr(0, eq), v->substr(eq + 1));
        } else if (a == "--merge") {
            out.merge = true;
        } else if (a == "--collector-options") {
            if (!(v = value(a)))
                return 2;
            out.collectorOptions = *v;
        } else if (!a.empty() && a[0] == '-') {
            std::fprintf(stderr, "collect: unknown option '%s'\n\n%s", a.c_str(), kUsage);
            return 2;
        } else {
            break; // the program, without "--"
        }
    }
    if (i >= args.size()) {
        std::fprintf(stderr, "collect: no program given\n\n%s", kUsage);
        return 2;
    }
    out.request.program = args[i];
    out.request.arguments.assign(args.begin() + static_cast<std::ptrdiff_t>(i) + 1, args.end());
    if (out.output.empty()) {
        const auto slash = out.request.program.rfind('/');
        out.output = (slash == std::string::npos ? out.request.program : out.request.program.substr(slash + 1))
            + ".pt.trace.json.gz";
    }
    return 0;
}

// "run.pt.trace.json.gz" -> "run.1234.pt.trace.json.gz"
std::string pathForProcess(const std::string& path, std::int64_t pid)
{
    const std::string tag = "." + std::to_string(pid);
    for (const char* suffix : {".pt.trace.json", ".json"}) {
        const auto at = path.rfind(suffix);
        if (at != std::string::npos)
            return path.substr(0, at) + tag + path.substr(at);
    }
    return path + tag;
}

// Merged files are made unambiguous for other tools (integer pids, correlation ids unique per
// process, flow ids equal to them): see TraceWriteOptions::normalizeIds.
bool writeTrace(const Trace& trace, const std::string& path, bool merged)
{
    TraceWriteOptions options;
    options.normalizeIds = merged;
    const auto result = writeTraceFile(trace, path, options);
    if (!result.ok) {
        std::fprintf(stderr, "collect: cannot write %s: %s\n", path.c_str(), result.error.c_str());
        return false;
    }
    std::fprintf(stderr, "collect: wrote %s (%llu events)\n", path.c_str(),
                 static_cast<unsigned long long>(result.eventsWritten));
    return true;
}

bool hasEvents(const collector::RecordedProcess& p)
{
    return !p.slices.empty() || !p.instants.empty() || !p.errors.empty();
}

void printSummary(const collector::SessionStats& s)
{
    std::fprintf(stderr,
                 "collect: %d process%s traced, %llu kernels, %llu copies, %llu memsets, %llu API calls, "
                 "%llu NVTX ranges, %llu dropped records, CUPTI overhead %s\n",
                 s.processes, s.processes == 1 ? "" : "es", static_cast<unsigned long long>(s.kernels),
                 static_cast<unsigned long long>(s.memcpys), static_cast<unsigned long long>(s.memsets),
                 static_cast<unsigned long long>(s.apiCalls), static_cast<unsigned long long>(s.ranges),
                 static_cast<unsigned long long>(s.dropped), formatDuration(s.cuptiOverhead).c_str());
    if (s.terminatedProcesses > 0)
        std::fprintf(stderr, "collect: %d process%s crashed or was killed: its last events may be missing\n",
                     s.terminatedProcesses, s.terminatedProcesses == 1 ? "" : "es");
    for (const auto& e : s.errors)
        std::fprintf(stderr, "collect: error from %s\n", e.c_str());
    for (const auto& r : s.rejections)
        std::fprintf(stderr, "collect: rejected a connection: %s\n", r.c_str());
}

} // namespace

int runCollect(const std::vector<std::string>& args)
{
    CollectArgs options;
    if (const int rc = parseArgs(args, options); rc != 0)
        return rc < 0 ? 0 : rc;

    // A collector that goes away must not take the target with it, and vice versa: the
    // target detaches on EPIPE, and we ignore SIGPIPE ourselves.
    std::signal(SIGPIPE, SIG_IGN);
    struct sigaction interrupt{};
    interrupt.sa_handler = onInterrupt;
    sigaction(SIGINT, &interrupt, nullptr);
    sigaction(SIGTERM, &interrupt, nullptr);

    collector::SessionOptions sessionOptions;
    sessionOptions.injectionOptions = options.collectorOptions;
    collector::CollectorSession session(sessionOptions);
    std::string error;
    if (!session.start(options.request, error)) {
        std::fprintf(stderr, "collect: %s\n", error.c_str());
        return 127;
    }
    auto& target = session.target();
    const auto started = std::chrono::steady_clock::now();
    bool durationReached = false;
    int interruptsSeen = 0;
    while (!target.poll()) {
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
        const int interrupts = g_interrupts.load();
        if (interrupts > interruptsSeen) {
            interruptsSeen = interrupts;
            if (interrupts == 1) {
                // Ctrl+C reached the whole process group; SIGTERM only us: pass it on.
                std::fprintf(stderr, "collect: stopping; waiting for %s to exit (Ctrl+C again to stop waiting)\n",
                             options.request.program.c_str());
                target.signal(SIGINT);
            } else {
                break;
            }
        }
        const std::chrono::duration<double> elapsed = std::chrono::steady_clock::now() - started;
        if (options.duration > 0 && elapsed.count() >= options.duration) {
            durationReached = true;
            break;
        }
    }
    // After the target ended, its traced children may still be flushing.
    if (target.poll())
        session.waitForConnectionsClosed(3000);
    session.stopReceiving();

    const auto stats = session.stats();
    printSummary(stats);
    std::vector<collector::RecordedProcess> processes;
    for (auto& p : session.processes()) {
        if (hasEvents(p))
            processes.push_back(std::move(p));
    }
    bool wrote = false;
    if (processes.empty()) {
        std::fprintf(stderr, "collect: %s\n",
                     stats.processes == 0
                         ? (target.poll() ? "the program exited without using CUDA: no process initialised CUDA "
                                            "(no NVIDIA driver or GPU?), nothing was recorded"
                                          : "no process initialised CUDA yet, nothing was recorded")
                         : "the traced processes produced no GPU activity; nothing was written");
    } else if (options.merge || processes.size() == 1) {
        wrote = writeTrace(session.traceOf(processes), options.output, options.merge);
    } else {
        wrote = true;
        for (const auto& p : processes)
            wrote = writeTrace(session.traceOf({p}), pathForProcess(options.output, p.hello.pid), false) && wrote;
    }

    if (durationReached && !target.poll()) {
        std::fprintf(stderr, "collect: recording stopped after %g s; waiting for %s (pid %d) to exit\n",
                     options.duration, options.request.program.c_str(), static_cast<int>(target.pid()));
        while (!target.poll() && g_interrupts.load() <= interruptsSeen)
            std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    const auto status = target.poll();
    if (!status) {
        std::fprintf(stderr, "collect: %s (pid %d) is still running\n", options.request.program.c_str(),
                     static_cast<int>(target.pid()));
        return wrote ? 0 : 1;
    }
    std::fprintf(stderr, "collect: %s %s\n", options.request.program.c_str(), status->describe().c_str());
    if (status->shellCode() != 0)
        return status->shellCode();
    return wrote ? 0 : 1;
}

} // namespace ks::cli

// kinetoscope-cli collect: runs a program under the CUPTI collector and writes a
// kineto-compatible trace (one file per traced process, or one merged file).
#include "cli/command.h"

#include "collector/host/collectorsession.h"
#include "collector/host/pythonsite.h"
#include "collector/protocol/injectionoptions.h"
#include "core/writing/writer.h"

#include <atomic>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>
#include <thread>

namespace ks::cli {
namespace {

// --collector-options stats=1: where the collector's time goes once the program has sent its
// last records (its exit, or its GOODBYE while it exits: the tail of the end-to-end time,
// program start to trace on disk), one line on stderr.
class TailStages {
public:
    explicit TailStages(bool on)
        : m_on(on)
    {
    }
    void start() { m_start = m_last = Clock::now(); }
    void done(const char* stage)
    {
        if (!m_on)
            return;
        const auto now = Clock::now();
        m_text += (m_text.empty() ? "" : ", ") + std::string(stage) + " " + milliseconds(now - m_last);
        m_last = now;
    }
    void print(const collector::CollectorServer& server) const
    {
        if (!m_on)
            return;
        std::fprintf(
            stderr,
            "collect: after the program's last records: %s; %s in all. Receiving thread: %.1f MB decoded in %s "
            "(the whole run)\n",
            m_text.c_str(), milliseconds(m_last - m_start).c_str(), server.bytesReceived() / 1e6,
            milliseconds(std::chrono::nanoseconds(server.busyNs())).c_str());
    }

private:
    using Clock = std::chrono::steady_clock;
    static std::string milliseconds(Clock::duration d)
    {
        char text[32];
        std::snprintf(text, sizeof text, "%.1f ms", std::chrono::duration<double, std::milli>(d).count());
        return text;
    }
    bool m_on;
    Clock::time_point m_start, m_last;
    std::string m_text;
};

std::atomic<int> g_interrupts{0};

void onInterrupt(int) { g_interrupts.fetch_add(1); }

struct CollectArgs {
    std::string output;
    double duration = 0.0;
    double delay = 0.0;
    std::string captureRange; // cudaProfilerApi | nvtx:NAME | none
    bool merge = false;
    std::string collectorOptions;
    std::string pytorch; // off|ops|ops-shapes; empty: ops for a Python program
    std::string stepMarker;
    std::vector<std::string> environment; // K=V
    std::vector<std::string> command; // PROGRAM ARGS...
};

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
bool writeTrace(const Trace& trace, const std::string& path, bool merged, TailStages& stages)
{
    TraceWriteOptions options;
    options.normalizeIds = merged;
    options.strictText = true; // the collector's event texts come from EventText
    const auto result = writeTraceFile(trace, path, options);
    stages.done("written");
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
                 "%llu PyTorch ops, %llu NVTX ranges, %llu dropped records, CUPTI overhead %s\n",
                 s.processes, s.processes == 1 ? "" : "es", static_cast<unsigned long long>(s.kernels),
                 static_cast<unsigned long long>(s.memcpys), static_cast<unsigned long long>(s.memsets),
                 static_cast<unsigned long long>(s.apiCalls), static_cast<unsigned long long>(s.torchOps),
                 static_cast<unsigned long long>(s.ranges), static_cast<unsigned long long>(s.dropped),
                 formatDuration(s.cuptiOverhead).c_str());
    if (s.terminatedProcesses > 0)
        std::fprintf(stderr, "collect: %d process%s crashed or was killed: its last events may be missing\n",
                     s.terminatedProcesses, s.terminatedProcesses == 1 ? "" : "es");
    for (const auto& e : s.errors)
        std::fprintf(stderr, "collect: error from %s\n", e.c_str());
    for (const auto& r : s.rejections)
        std::fprintf(stderr, "collect: rejected a connection: %s\n", r.c_str());
}

// What the capture range kept; a range that never opened is said plainly (the trace written
// then holds no events, only the file's metadata).
void reportCapture(const collector::CaptureSpec& spec, const collector::CaptureOutcome& outcome, std::size_t processes)
{
    if (!spec.filters() || processes == 0)
        return;
    if (spec.range != collector::CaptureRange::Everything && outcome.processesWithWindows == 0) {
        if (spec.range == collector::CaptureRange::CudaProfilerApi)
            std::fprintf(stderr,
                         "collect: --capture-range=cudaProfilerApi: the program never called cudaProfilerStart "
                         "(torch.cuda.profiler.start()); the trace has no events\n");
        else
            std::fprintf(stderr,
                         "collect: --capture-range=nvtx:%s: no NVTX range or record_function label named '%s' "
                         "was recorded; the trace has no events\n",
                         spec.nvtxName.c_str(), spec.nvtxName.c_str());
        return;
    }
    std::fprintf(stderr, "collect: capture range %s: %zu window%s, kept %zu events, dropped %zu outside\n",
                 collector::captureRangeText(spec).c_str(), outcome.windows, outcome.windows == 1 ? "" : "s",
                 outcome.keptSlices, outcome.droppedSlices);
}

collector::LaunchRequest launchRequest(const CollectArgs& options)
{
    collector::LaunchRequest request;
    request.program = options.command.front();
    request.arguments.assign(options.command.begin() + 1, options.command.end());
    for (const auto& variable : options.environment) {
        const auto eq = variable.find('=');
        request.environment.emplace_back(variable.substr(0, eq), variable.substr(eq + 1));
    }
    return request;
}

// PROGRAM.pt.trace.json.gz in the working directory.
std::string defaultOutput(const std::string& program)
{
    const auto slash = program.rfind('/');
    return (slash == std::string::npos ? program : program.substr(slash + 1)) + ".pt.trace.json.gz";
}

// --pytorch: PyTorch operators through emit_nvtx for Python targets (ops by default).
bool addPyTorchOps(const CollectArgs& options, collector::LaunchRequest& request)
{
    std::vector<std::string> notes;
    std::string error;
    const auto requested = options.pytorch.empty() ? std::nullopt : collector::pytorchOpsFromName(options.pytorch);
    const auto mode = collector::preparePyTorchOps(request, requested, notes, error);
    for (const auto& note : notes)
        std::fprintf(stderr, "collect: %s\n", note.c_str());
    if (!mode) {
        std::fprintf(stderr, "collect: %s\n", error.c_str());
        return false;
    }
    if (*mode != collector::PyTorchOps::Off)
        std::fprintf(stderr, "collect: PyTorch operators %s (--pytorch=%s)\n",
                     *mode == collector::PyTorchOps::OpsShapes ? "with input shapes" : "without shapes",
                     std::string(collector::pytorchOpsName(*mode)).c_str());
    return true;
}

int runCollect(CollectArgs options)
{
    collector::LaunchRequest request = launchRequest(options);
    if (options.output.empty())
        options.output = defaultOutput(request.program);
    if (!addPyTorchOps(options, request))
        return 127;

    // A collector that goes away must not take the target with it, and vice versa: the
    // target detaches on EPIPE, and we ignore SIGPIPE ourselves.
    std::signal(SIGPIPE, SIG_IGN);
    struct sigaction interrupt { };
    interrupt.sa_handler = onInterrupt;
    sigaction(SIGINT, &interrupt, nullptr);
    sigaction(SIGTERM, &interrupt, nullptr);

    collector::SessionOptions sessionOptions;
    sessionOptions.injectionOptions = options.collectorOptions;
    sessionOptions.stepMarker = options.stepMarker;
    if (!options.captureRange.empty()) {
        std::string rangeError;
        const auto spec = collector::parseCaptureRange(options.captureRange, rangeError);
        if (!spec) { // the option's check lets only valid text through
            std::fprintf(stderr, "collect: %s\n", rangeError.c_str());
            return kUsageError;
        }
        sessionOptions.capture = *spec;
    }
    wire::InjectionOptions injectionOptions;
    std::string optionsError; // the option's check lets only valid text through
    wire::parseInjectionOptions(options.collectorOptions, injectionOptions, optionsError);
    TailStages stages(injectionOptions.stats);
    sessionOptions.delaySeconds = options.delay;
    sessionOptions.durationSeconds = options.duration;
    collector::CollectorSession session(sessionOptions);
    std::string error;
    if (!session.start(request, error)) {
        std::fprintf(stderr, "collect: %s\n", error.c_str());
        return 127;
    }
    auto& target = session.target();
    const auto started = std::chrono::steady_clock::now();
    bool durationReached = false;
    bool finishedEarly = false; // the program sent its last records and is still exiting
    int interruptsSeen = 0;
    while (!target.poll()) {
        std::this_thread::sleep_for(std::chrono::milliseconds(5)); // its exit is part of the end-to-end time
        const int interrupts = g_interrupts.load();
        if (interrupts > interruptsSeen) {
            interruptsSeen = interrupts;
            if (interrupts == 1) {
                // Ctrl+C reached the whole process group; SIGTERM only us: pass it on.
                std::fprintf(stderr, "collect: stopping; waiting for %s to exit (Ctrl+C again to stop waiting)\n",
                             request.program.c_str());
                target.signal(SIGINT);
            } else {
                break;
            }
        }
        const std::chrono::duration<double> elapsed = std::chrono::steady_clock::now() - started;
        if (options.duration > 0 && elapsed.count() >= options.delay + options.duration) {
            durationReached = true;
            break;
        }
        // The program said GOODBYE from its exit handler: the trace is written while it
        // tears down (CUDA, the interpreter), not after.
        if (session.finishedWith(target.pid())) {
            finishedEarly = true;
            break;
        }
    }
    // After the target ended, its traced children may still be flushing.
    stages.start();
    if (target.poll())
        session.waitForConnectionsClosed(3000);
    stages.done("connections closed");
    session.stopReceiving();
    stages.done("receiver stopped");

    const auto stats = session.stats();
    printSummary(stats);
    std::vector<collector::RecordedProcess> processes;
    for (auto& p : session.takeProcesses()) {
        if (hasEvents(p))
            processes.push_back(std::move(p));
    }
    reportCapture(session.captureSpec(), session.applyCapture(processes), processes.size());
    stages.done("taken");
    bool wrote = false;
    if (processes.empty()) {
        std::fprintf(stderr, "collect: %s\n",
                     stats.processes == 0
                         ? (target.poll() ? "the program exited without using CUDA: no process initialised CUDA "
                                            "(no NVIDIA driver or GPU?), nothing was recorded"
                                          : "no process initialised CUDA yet, nothing was recorded")
                         : "the traced processes produced no GPU activity; nothing was written");
    } else if (options.merge || processes.size() == 1) {
        const Trace trace = session.traceOf(processes);
        stages.done("built");
        wrote = writeTrace(trace, options.output, options.merge, stages);
    } else {
        wrote = true;
        for (const auto& p : processes) {
            const Trace trace = session.traceOf({p});
            stages.done("built");
            wrote = writeTrace(trace, pathForProcess(options.output, p.hello.pid), false, stages) && wrote;
        }
    }

    while (finishedEarly && !target.poll() && g_interrupts.load() <= interruptsSeen)
        std::this_thread::sleep_for(std::chrono::milliseconds(5));
    stages.done("program exited");
    stages.print(session.server());
    if (durationReached && !target.poll()) {
        std::fprintf(stderr, "collect: recording stopped after %g s; waiting for %s (pid %d) to exit\n",
                     options.duration, request.program.c_str(), static_cast<int>(target.pid()));
        while (!target.poll() && g_interrupts.load() <= interruptsSeen)
            std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    const auto status = target.poll();
    if (!status) {
        std::fprintf(stderr, "collect: %s (pid %d) is still running\n", request.program.c_str(),
                     static_cast<int>(target.pid()));
        return wrote ? 0 : 1;
    }
    std::fprintf(stderr, "collect: %s %s\n", request.program.c_str(), status->describe().c_str());
    if (status->shellCode() != 0)
        return status->shellCode();
    return wrote ? 0 : 1;
}

} // namespace

void addCollectCommand(CLI::App& app)
{
    auto options = std::make_shared<CollectArgs>();
    auto* command = app.add_subcommand("collect", "run a CUDA program under the CUPTI collector and write its trace");
    command->footer(
        "Runs PROGRAM (no shell) with the CUPTI collector injected into it and every CUDA process it starts,\n"
        "forwarding its output, until it exits, Ctrl+C or --delay + --duration seconds. Writes a kineto-compatible\n"
        "trace (.pt.trace.json, gzip when FILE ends in .gz): one file per traced process (FILE with .<pid>\n"
        "inserted when there are several), or one with --merge. Put PROGRAM after -- when its arguments\n"
        "start with a dash.\n"
        "Exit status: PROGRAM's (128 + signal when it was killed); 1 when nothing was recorded; 2 for usage\n"
        "errors; 127 when PROGRAM or the injection library cannot be started.");
    command->add_option("-o,--output", options->output, "output (default: PROGRAM.pt.trace.json.gz)")
        ->type_name("FILE");
    command
        ->add_option("--duration", options->duration,
                     "record S seconds (after --delay), then stop recording; PROGRAM keeps running")
        ->type_name("S")
        ->check(kPositiveFinite);
    command->add_option("--delay", options->delay, "keep only what happens from S seconds after PROGRAM started")
        ->type_name("S")
        ->check(kPositiveFinite);
    const CLI::Validator captureRange(
        [](const std::string& text) {
            std::string error;
            return collector::parseCaptureRange(text, error) ? std::string() : error;
        },
        "");
    command
        ->add_option("--capture-range", options->captureRange,
                     "keep only what happens between cudaProfilerStart and cudaProfilerStop "
                     "(torch.cuda.profiler.start/stop: cudaProfilerApi), or inside NVTX ranges or "
                     "record_function labels named NAME (nvtx:NAME); the program is traced throughout")
        ->type_name("RANGE")
        ->check(captureRange);
    const CLI::Validator variable(
        [](const std::string& text) -> std::string {
            const auto eq = text.find('=');
            return eq == std::string::npos || eq == 0 ? "needs K=V, got '" + text + "'" : std::string();
        },
        "");
    command->add_option("--env", options->environment, "set a variable for PROGRAM (repeatable)")
        ->type_name("K=V")
        ->allow_extra_args(false)
        ->check(variable);
    command->add_flag("--merge", options->merge, "one file for all processes");
    const CLI::Validator injectionOptions(
        [](const std::string& text) {
            wire::InjectionOptions parsed;
            std::string error;
            return wire::parseInjectionOptions(text, parsed, error) ? std::string() : error;
        },
        "");
    command
        ->add_option("--collector-options", options->collectorOptions,
                     "injection options, e.g. buffer_mb=8,max_buffers=32,flush_ms=100; consumer=drop hands "
                     "CUPTI's buffers back unread (measures CUPTI's own cost, records nothing), "
                     "kinds=all|kineto, stats=1 prints the injection's per-stage timers on stderr at exit")
        ->type_name("LIST")
        ->check(injectionOptions);
    command
        ->add_option("--pytorch", options->pytorch,
                     "PyTorch operators as kineto cpu_op events through emit_nvtx: off, ops, or ops-shapes "
                     "(with Input Dims; costs more); default ops when PROGRAM is Python")
        ->type_name("MODE")
        ->check(CLI::IsMember({"off", "ops", "ops-shapes"}));
    command
        ->add_option("--step-marker", options->stepMarker,
                     "an NVTX range or record_function label that PROGRAM opens once per iteration: each "
                     "becomes a step (ProfilerStep#N) for the GPU summary and step breakdown")
        ->type_name("NAME");
    command->add_option("PROGRAM", options->command, "the program to run and its arguments")
        ->type_name("ARGS")
        ->required();
    command->callback([options] { exitWith(runCollect(*options)); });
}

} // namespace ks::cli

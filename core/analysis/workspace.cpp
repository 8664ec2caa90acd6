#include "core/analysis/workspace.h"

#include "core/model/boundedjson.h"
#include "core/model/tracebuilder.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <filesystem>
#include <map>
#include <new>
#include <set>
#include <system_error>
#include <thread>

namespace ks::analysis {

namespace {

bool endsWith(std::string_view s, std::string_view suffix)
{
    return s.size() >= suffix.size() && s.substr(s.size() - suffix.size()) == suffix;
}

bool isTraceFileName(std::string_view name) { return endsWith(name, ".json") || endsWith(name, ".json.gz"); }

// "host_123.1795373964384517086.pt.trace.json.gz" -> "host_123" (tensorboard_trace_handler
// writes "<worker>.<time ns>.pt.trace.json"); other names lose only their extensions.
std::string workerFromFileName(const std::string& path)
{
    std::string name = std::filesystem::path(path).filename().string();
    for (std::string_view ext : {".gz", ".json", ".trace", ".pt"}) {
        if (endsWith(name, ext))
            name.resize(name.size() - ext.size());
    }
    const auto dot = name.rfind('.');
    if (dot != std::string::npos && name.size() - dot - 1 >= 10
        && std::all_of(name.begin() + dot + 1, name.end(), [](char c) { return c >= '0' && c <= '9'; }))
        name.resize(dot);
    return name;
}

// kineto's distributedInfo object (or one entry of a merged file's distributedRanks).
void readRankInfo(const nlohmann::json& info, TraceIdentity& id)
{
    if (auto it = info.find("rank"); it != info.end() && it->is_number_integer())
        id.rank = it->get<int>();
    if (auto it = info.find("world_size"); it != info.end() && it->is_number_integer())
        id.worldSize = it->get<int>();
    if (auto it = info.find("backend"); it != info.end() && it->is_string())
        id.backend = it->get<std::string>();
    nlohmann::json key = {{"backend", id.backend}, {"world_size", id.worldSize}};
    if (auto it = info.find("pg_config"); it != info.end())
        key["pg_config"] = *it;
    id.runKey = key.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

void readDistributedInfo(const Trace& trace, TraceIdentity& id)
{
    const std::string* text = trace.metadataValue("distributedInfo");
    if (!text)
        return;
    const auto info = parseBoundedJson(*text, 64); // pg_config is copied and dumped below
    if (info.is_object())
        readRankInfo(info, id);
}

// A rank of a merged collector file, as its "distributedRanks" entry names it:
// {"pid": 891, "backend": "gloo", "rank": 0, "world_size": 2}.
struct DeclaredRank {
    std::uint32_t process; // the rank's CPU process
    nlohmann::json info;
};

std::vector<DeclaredRank> declaredRanks(const Trace& trace)
{
    std::vector<DeclaredRank> ranks;
    const std::string* text = trace.metadataValue("distributedRanks");
    if (!text)
        return ranks;
    const auto list = parseBoundedJson(*text, 8);
    if (!list.is_array())
        return ranks;
    const auto& processes = trace.processes();
    for (const auto& entry : list) {
        if (!entry.is_object() || !entry.contains("rank") || !entry.contains("pid")
            || !entry["pid"].is_number_integer())
            continue;
        const auto pid = entry["pid"].get<std::int64_t>();
        for (std::uint32_t p = 0; p < processes.size(); ++p) {
            if (!processes[p].isDevice && !processes[p].pid.isText && processes[p].pid.number == pid)
                ranks.push_back({p, entry});
        }
    }
    return ranks;
}

// "ProfilerStep#3", or "step 3" for steps found otherwise (labels, Optimizer.step, ...).
std::string stepName(const WorkspaceMember& member, long long number)
{
    const bool profilerSteps = member.stepsSource == "ProfilerStep" || member.stepsSource == "step-marker";
    return (profilerSteps ? "ProfilerStep#" : "step ") + std::to_string(number);
}

TimeNs firstGpuActivity(const Trace& trace)
{
    TimeNs first = -1;
    for (const Track& track : trace.tracks()) {
        for (SliceId s = track.sliceBegin; s < track.sliceEnd; ++s) {
            const SliceClass c = trace.classOf(s);
            if ((c == SliceClass::Kernel || c == SliceClass::Memcpy || c == SliceClass::Memset)
                && (first < 0 || trace.slices().start[s] < first))
                first = trace.slices().start[s];
        }
    }
    return first;
}

bool hasGpuWork(const Trace& trace, const Process& process)
{
    for (std::uint32_t t : process.tracks) {
        const Track& track = trace.tracks()[t];
        for (SliceId s = track.sliceBegin; s < track.sliceEnd; ++s) {
            const SliceClass c = trace.classOf(s);
            if (c == SliceClass::Kernel || c == SliceClass::Memcpy || c == SliceClass::Memset)
                return true;
        }
    }
    return false;
}

// The processes of a merged collector file grouped by rank: root i is rank i's process, and
// every other process joins the root it shares most launches (ac2g flows) with: a CPU process
// the device it launched on most, a device the CPU process that launched most of its work.
struct RankGroups {
    std::vector<std::uint32_t> roots;
    std::vector<std::vector<std::uint32_t>> owned; // processes of rank i, its root first
    std::vector<std::uint32_t> unassigned; // processes with work but no launch to or from a root
};

RankGroups groupAroundRoots(const Trace& trace, std::vector<std::uint32_t> roots)
{
    RankGroups r;
    r.roots = std::move(roots);
    const auto& processes = trace.processes();
    std::map<std::uint32_t, std::size_t> rankOfRoot;
    for (std::size_t i = 0; i < r.roots.size(); ++i)
        rankOfRoot[r.roots[i]] = i;
    std::map<std::uint32_t, std::vector<std::uint64_t>> launches; // other process -> per rank
    for (const Flow& f : trace.flows()) {
        if (f.from == kNoSlice || f.to == kNoSlice)
            continue;
        const std::uint32_t from = trace.tracks()[trace.trackOf(f.from)].process;
        const std::uint32_t to = trace.tracks()[trace.trackOf(f.to)].process;
        if (processes[from].isDevice || !processes[to].isDevice)
            continue;
        const auto fromRoot = rankOfRoot.find(from), toRoot = rankOfRoot.find(to);
        if ((fromRoot == rankOfRoot.end()) == (toRoot == rankOfRoot.end()))
            continue; // both roots, or neither
        const std::uint32_t other = fromRoot == rankOfRoot.end() ? from : to;
        auto& counts = launches[other];
        counts.resize(r.roots.size());
        ++counts[fromRoot == rankOfRoot.end() ? toRoot->second : fromRoot->second];
    }
    r.owned.resize(r.roots.size());
    for (std::size_t i = 0; i < r.roots.size(); ++i)
        r.owned[i].push_back(r.roots[i]);
    for (std::uint32_t p = 0; p < processes.size(); ++p) {
        if (rankOfRoot.count(p))
            continue;
        if (auto it = launches.find(p); it != launches.end()) {
            const auto& counts = it->second;
            r.owned[std::max_element(counts.begin(), counts.end()) - counts.begin()].push_back(p);
        } else if (!processes[p].isDevice || hasGpuWork(trace, processes[p])) {
            r.unassigned.push_back(p);
        }
    }
    return r;
}

// Merged collector file without distributedRanks: the device processes with GPU work, ordered
// by device index, are the ranks.
RankGroups inferRanks(const Trace& trace)
{
    std::vector<std::uint32_t> devices;
    const auto& processes = trace.processes();
    for (std::uint32_t p = 0; p < processes.size(); ++p) {
        if (processes[p].isDevice && hasGpuWork(trace, processes[p]))
            devices.push_back(p);
    }
    std::stable_sort(devices.begin(), devices.end(), [&](std::uint32_t a, std::uint32_t b) {
        return processes[a].deviceIndex < processes[b].deviceIndex;
    });
    if (devices.size() < 2)
        return {};
    return groupAroundRoots(trace, std::move(devices));
}

// Its steps by `rules`.
void findSteps(WorkspaceMember& m, facts::StepRules rules)
{
    const facts::FoundSteps found = facts::StepFinder(rules).find(*m.trace);
    m.steps.clear();
    m.steps.reserve(found.steps.size());
    for (const facts::FoundStep& step : found.steps)
        m.steps.push_back({step.number, step.start, step.end, step.slice});
    m.stepsSource = found.sourceName();
    m.stepRules = std::move(rules);
}

} // namespace

bool namesSeveralRanks(const Trace& trace) { return declaredRanks(trace).size() >= 2; }

bool holdsSeveralRanks(const Trace& trace)
{
    if (namesSeveralRanks(trace))
        return true;
    const RankGroups groups = inferRanks(trace);
    return !groups.roots.empty() && std::all_of(groups.owned.begin(), groups.owned.end(), [&](const auto& owned) {
        return std::any_of(owned.begin(), owned.end(), [&](std::uint32_t p) { return !trace.processes()[p].isDevice; });
    });
}

std::string TraceIdentity::label() const
{
    std::string name = worker.empty() ? std::filesystem::path(file).filename().string() : worker;
    if (rank < 0)
        return name;
    return "Rank " + std::to_string(rank) + " \xC2\xB7 " + name;
}

const StepSpan* WorkspaceMember::step(long long number) const
{
    for (const StepSpan& s : steps) {
        if (s.number == number)
            return &s;
    }
    return nullptr;
}

const WorkspaceMember* Workspace::memberOfRank(int rank) const
{
    const auto it = std::find_if(m_members.begin(), m_members.end(),
                                 [&](const WorkspaceMember& m) { return m.identity.rank == rank; });
    return it != m_members.end() ? &*it : nullptr;
}

std::string Workspace::rankList() const
{
    std::string list;
    for (const WorkspaceMember& m : m_members) {
        if (m.identity.rank >= 0)
            list += (list.empty() ? "" : ", ") + std::to_string(m.identity.rank);
    }
    return list.empty() ? "none" : list;
}

void Workspace::setStepRules(std::size_t member, facts::StepRules rules)
{
    if (member < m_members.size())
        findSteps(m_members[member], std::move(rules));
}

std::size_t Workspace::add(std::shared_ptr<const Trace> trace, std::string file, bool splitMergedRanks)
{
    TraceIdentity id;
    id.file = std::move(file);
    id.worker = workerFromFileName(id.file);
    readDistributedInfo(*trace, id);

    // A rank of a merged file gets a trace of its own processes: every analysis of a trace
    // (GPU summary, insights, operators, memory, steps) then sees that rank alone.
    auto addMember = [&](TraceIdentity identity, const std::vector<std::uint32_t>& processes) {
        WorkspaceMember m;
        m.trace = processes.empty() ? trace : TraceBuilder::subsetOf(*trace, processes);
        m.identity = std::move(identity);
        findSteps(m, m_stepRules);
        m.firstGpuActivity = firstGpuActivity(*m.trace);
        m_members.push_back(std::move(m));
    };

    // A merged file: its ranks as distributedRanks names them, else one per GPU.
    std::vector<DeclaredRank> declared;
    RankGroups groups;
    if (id.rank < 0 && splitMergedRanks) {
        declared = declaredRanks(*trace);
        if (declared.empty()) {
            groups = inferRanks(*trace);
        } else {
            std::vector<std::uint32_t> roots;
            roots.reserve(declared.size());
            for (const auto& rank : declared)
                roots.push_back(rank.process);
            groups = groupAroundRoots(*trace, std::move(roots));
        }
    }
    if (groups.roots.empty()) {
        addMember(id, {});
        return 1;
    }
    for (std::size_t i = 0; i < groups.roots.size(); ++i) {
        TraceIdentity rankId = id;
        // Named after the rank's CPU process ("python3.12 (1134)"), else its GPU.
        const auto& owned = groups.owned[i];
        const auto host =
            std::find_if(owned.begin(), owned.end(), [&](std::uint32_t p) { return !trace->processes()[p].isDevice; });
        rankId.worker = trace->processDisplayName(host != owned.end() ? *host : groups.roots[i]);
        if (declared.empty()) {
            rankId.rank = static_cast<int>(i);
            rankId.worldSize = static_cast<int>(groups.roots.size());
            rankId.rankInferred = true;
        } else {
            readRankInfo(declared[i].info, rankId);
        }
        addMember(std::move(rankId), groups.owned[i]);
    }
    if (!groups.unassigned.empty()) {
        TraceIdentity other = id;
        other.worker += " (other processes)";
        addMember(std::move(other), groups.unassigned);
    }
    return groups.roots.size() + (groups.unassigned.empty() ? 0 : 1);
}

void Workspace::sortByRank()
{
    std::stable_sort(m_members.begin(), m_members.end(), [](const WorkspaceMember& a, const WorkspaceMember& b) {
        const int ra = a.identity.rank < 0 ? INT32_MAX : a.identity.rank;
        const int rb = b.identity.rank < 0 ? INT32_MAX : b.identity.rank;
        return ra < rb;
    });
}

std::vector<std::string> Workspace::warnings() const
{
    std::vector<std::string> out;
    std::map<int, std::vector<std::string>> filesOfRank;
    std::set<std::string> runKeys;
    std::set<int> worldSizes;
    for (const auto& m : m_members) {
        if (m.identity.rank >= 0)
            filesOfRank[m.identity.rank].push_back(m.identity.label() + " (" + m.identity.file + ")");
        if (!m.identity.runKey.empty())
            runKeys.insert(m.identity.runKey);
        if (m.identity.worldSize > 0)
            worldSizes.insert(m.identity.worldSize);
    }
    for (const auto& [rank, files] : filesOfRank) {
        if (files.size() > 1) {
            std::string line = "rank " + std::to_string(rank) + " appears " + std::to_string(files.size()) + " times:";
            for (const auto& f : files)
                line += " " + f;
            out.push_back(std::move(line));
        }
    }
    if (runKeys.size() > 1)
        out.push_back("the files come from " + std::to_string(runKeys.size())
                      + " different runs (their distributedInfo differs: backend, world size or process groups)");
    if (worldSizes.size() == 1 && !filesOfRank.empty() && static_cast<int>(filesOfRank.size()) < *worldSizes.begin())
        out.push_back(std::to_string(filesOfRank.size()) + " of " + std::to_string(*worldSizes.begin())
                      + " ranks are open");
    return out;
}

std::vector<long long> Workspace::commonSteps() const
{
    std::vector<long long> common;
    if (m_members.empty())
        return common;
    for (const StepSpan& s : m_members.front().steps) {
        const bool everywhere = std::all_of(m_members.begin() + 1, m_members.end(),
                                            [&](const WorkspaceMember& m) { return m.step(s.number) != nullptr; });
        if (everywhere)
            common.push_back(s.number);
    }
    std::sort(common.begin(), common.end());
    common.erase(std::unique(common.begin(), common.end()), common.end());
    return common;
}

AlignmentReport Workspace::alignAbsoluteClock()
{
    AlignmentReport report;
    report.mode = Alignment::AbsoluteClock;
    if (m_members.empty())
        return report;
    const std::int64_t base0 = m_members.front().trace->baseTimeNs();
    const auto common = commonSteps();
    TimeNs lo = 0, hi = 0;
    for (std::size_t i = 0; i < m_members.size(); ++i) {
        WorkspaceMember& m = m_members[i];
        m.offset = m.trace->baseTimeNs() - base0;
        const StepSpan* step = common.empty() ? nullptr : m.step(common.front());
        const TimeNs start = (step ? step->start : m.trace->startTime()) + m.offset;
        lo = i == 0 ? start : std::min(lo, start);
        hi = i == 0 ? start : std::max(hi, start);
    }
    report.startSpread = hi - lo;
    report.description = "aligned by the absolute clock (baseTimeNanoseconds + ts); "
        + (common.empty() ? std::string("first events") : stepName(m_members.front(), common.front()))
        + " start within " + formatDuration(report.startSpread);
    return report;
}

AlignmentReport Workspace::alignAtStep(std::optional<long long> step)
{
    AlignmentReport report;
    report.mode = Alignment::StepStarts;
    if (m_members.empty())
        return report;
    if (!step) {
        const auto common = commonSteps();
        if (!common.empty())
            step = common.front();
    }
    const bool haveStep = step && std::all_of(m_members.begin(), m_members.end(), [&](const WorkspaceMember& m) {
                              return m.step(*step) != nullptr;
                          });
    const bool haveGpu = std::all_of(m_members.begin(), m_members.end(),
                                     [](const WorkspaceMember& m) { return m.firstGpuActivity >= 0; });
    auto anchor = [&](const WorkspaceMember& m) -> TimeNs {
        if (haveStep)
            return m.step(*step)->start;
        return haveGpu ? m.firstGpuActivity : m.trace->startTime();
    };
    const TimeNs anchor0 = anchor(m_members.front());
    for (WorkspaceMember& m : m_members)
        m.offset = anchor0 - anchor(m);
    report.step = haveStep ? *step : -1;
    report.usedGpuActivity = !haveStep && haveGpu;
    report.description = haveStep ? "aligned at the start of " + stepName(m_members.front(), *step)
        : haveGpu                 ? std::string("no common step: aligned at the first GPU activity")
                                  : std::string("no common step and no GPU activity: aligned at the first event");
    return report;
}

std::optional<TimeNs> Workspace::stepOffset(std::size_t member, long long number) const
{
    if (member >= m_members.size() || m_members.empty())
        return std::nullopt;
    const StepSpan* ref = m_members.front().step(number);
    const StepSpan* own = m_members[member].step(number);
    if (!ref || !own)
        return std::nullopt;
    return ref->start - own->start;
}

// ---- loading ----

std::vector<LoadResult> loadTraceFiles(const std::vector<std::string>& paths, MultiLoadProgress* progress,
                                       unsigned maxThreads, const TraceFileLoader& load)
{
    std::vector<LoadResult> results(paths.size());
    std::unique_ptr<MultiLoadProgress> own;
    if (!progress || progress->fileCount() != paths.size()) {
        own = std::make_unique<MultiLoadProgress>(paths.size());
        progress = own.get();
    }
    if (maxThreads == 0)
        maxThreads = usableCores();
    const std::size_t threadCount = std::min<std::size_t>(maxThreads, paths.size());
    std::atomic<std::size_t> next{0};
    auto loadOne = [&](std::size_t i) {
        if (progress->cancelled()) {
            results[i].cancelled = true;
            return;
        }
        // bad_alloc on a huge file (or anything a loader throws) fails that file only: an
        // exception leaving a std::thread would std::terminate the whole program.
        std::string failure;
        try {
            results[i] = load ? load(paths[i], &progress->file(i)) : loadTraceFile(paths[i], &progress->file(i));
            return;
        } catch (const std::bad_alloc&) {
            failure = "out of memory";
        } catch (const std::exception& e) {
            failure = e.what();
        } catch (...) {
            failure = "unknown exception";
        }
        results[i] = {};
        results[i].fatal = Diagnostic{Diagnostic::Severity::Error, "load-failed", "loading failed: " + failure};
    };
    auto work = [&] {
        for (std::size_t i = next++; i < paths.size(); i = next++) {
            loadOne(i);
            progress->markFileDone();
        }
    };
    std::vector<std::thread> threads;
    for (std::size_t t = 1; t < threadCount; ++t) {
        try {
            threads.emplace_back(work);
        } catch (const std::system_error&) { // no more threads: the ones started take the rest
            break;
        }
    }
    work();
    for (auto& t : threads)
        t.join();
    return results;
}

std::vector<std::string> traceFilesIn(const std::string& folder)
{
    std::vector<std::string> files;
    std::error_code ec;
    for (const auto& entry : std::filesystem::directory_iterator(folder, ec)) {
        if (entry.is_regular_file(ec) && isTraceFileName(entry.path().filename().string()))
            files.push_back(entry.path().string());
    }
    std::sort(files.begin(), files.end());
    return files;
}

std::vector<std::string> expandTracePaths(const std::vector<std::string>& paths, std::vector<FileError>& errors)
{
    std::vector<std::string> files;
    for (const auto& path : paths) {
        std::error_code ec;
        if (std::filesystem::is_directory(path, ec)) {
            auto inFolder = traceFilesIn(path);
            if (inFolder.empty())
                errors.push_back({path, "no trace files (*.json, *.json.gz) in this folder"});
            files.insert(files.end(), inFolder.begin(), inFolder.end());
        } else if (!std::filesystem::exists(path, ec)) {
            errors.push_back({path, "no such file or folder"});
        } else {
            files.push_back(path);
        }
    }
    return files;
}

LoadedWorkspace loadWorkspace(const std::vector<std::string>& files, MultiLoadProgress* progress, unsigned maxThreads,
                              const facts::StepRules& stepRules)
{
    LoadedWorkspace out;
    out.workspace = Workspace(stepRules);
    auto results = loadTraceFiles(files, progress, maxThreads);
    for (std::size_t i = 0; i < files.size(); ++i) {
        LoadResult& r = results[i];
        if (r.cancelled) {
            out.cancelled = true;
        } else if (!r.ok()) {
            out.errors.push_back({files[i], r.fatal ? r.fatal->located() : "could not be loaded"});
        } else if (r.trace->slices().size() == 0) {
            out.errors.push_back({files[i], "no events"});
        } else {
            out.workspace.add(std::move(r.trace), files[i]);
        }
    }
    out.workspace.sortByRank();
    return out;
}

} // namespace ks::analysis

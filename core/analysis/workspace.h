#pragma once
// Several loaded traces open at once, on one time axis: the ranks of a distributed run
// (issue 13) or BASE and NEW of a comparison (issue 12). Qt-free; the GUI builds its
// track groups from the members and draws member m's times shifted by its offset.
//
// A member is one rank (or one side of a diff). A per-rank file is one member; a merged
// collector file becomes one member per rank, each with a trace of its own processes
// (TraceBuilder::subsetOf): the ranks its distributedRanks names (torchrun's processes), else one
// per GPU with work. Every analysis of a trace then works on a rank as on a file of its own.
#include "core/analysis/multiloadprogress.h"
#include "core/facts/stepfinder.h"
#include "core/loading/loader.h"
#include "core/model/trace.h"

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace ks::analysis {

// Who a member is. Rank and world size come from kineto's distributedInfo; for merged files
// they are inferred (GPU order); worker is the tensorboard_trace_handler worker name taken
// from the file name ("<worker>.<time ns>.pt.trace.json.gz"; its default worker name is
// "<host>_<pid>").
struct TraceIdentity {
    std::string file; // as given
    std::string worker; // from the file name; "" when it says nothing
    int rank = -1; // -1: unknown
    int worldSize = -1; // -1: unknown
    bool rankInferred = false; // not from distributedInfo (merged file, or file order)
    std::string backend; // "nccl", from distributedInfo
    // Run fingerprint from distributedInfo (backend, world size, process groups); ranks of
    // one run share it. Empty without distributedInfo.
    std::string runKey;

    // "Rank 0 · ddp_rank0", "Rank 1 · GPU 1", or the worker / file name when rank is unknown.
    std::string label() const;
};

// A host-side step range of a member (ProfilerStep#N, else by facts::StepFinder's rules), in
// the member's own time.
struct StepSpan {
    long long number = -1;
    TimeNs start = 0, end = 0;
    SliceId slice = kNoSlice;
};

struct WorkspaceMember {
    std::shared_ptr<const Trace> trace;
    TraceIdentity identity;
    std::vector<StepSpan> steps; // in time order
    std::string stepsSource = "none"; // facts::FoundSteps::sourceName() of its steps
    // What its steps were found by; analyses of the member build its facts with them.
    facts::StepRules stepRules;
    TimeNs firstGpuActivity = -1; // start of its first kernel/memcpy/memset, -1 if none
    // Added to the member's times to place them on the workspace's axis.
    TimeNs offset = 0;

    const StepSpan* step(long long number) const; // nullptr if the member lacks it
};

enum class Alignment {
    AbsoluteClock, // baseTimeNanoseconds + ts: one clock for ranks of one host (or synced hosts)
    StepStarts, // shift each member so that the chosen ProfilerStep begins together
};

struct AlignmentReport {
    Alignment mode = Alignment::AbsoluteClock;
    long long step = -1; // the step aligned at (StepStarts), -1 if none was common
    bool usedGpuActivity = false; // no common step: first GPU activities were aligned instead
    // AbsoluteClock: the spread of the members' first step starts (else of their first
    // events) on the common clock; how far apart the ranks began.
    TimeNs startSpread = 0;
    std::string description; // one line for the status bar / CLI
};

// A merged collector file that names two or more ranks (its "distributedRanks"): it opens as
// its ranks, like the files of a run.
bool namesSeveralRanks(const Trace& trace);
// A merged collector file of several ranks, named or not: its distributedRanks, else two or
// more GPUs with work, each driven by a CPU process of its own (torchrun's ranks, when the
// collector could not read their rank). A single process driving several GPUs is not.
bool holdsSeveralRanks(const Trace& trace);

class Workspace {
public:
    // Members' steps are found by `stepRules` (the user's choice, when the traces have no
    // ProfilerStep) unless setStepRules() gives a member its own.
    Workspace() = default;
    explicit Workspace(facts::StepRules stepRules)
        : m_stepRules(std::move(stepRules))
    {
    }
    const facts::StepRules& stepRules() const { return m_stepRules; }

    // Adds a loaded trace. With splitMergedRanks, a merged collector file becomes one member
    // per rank of its distributedRanks (with the rank's GPU rows: those it launched onto),
    // and a file with several GPUs and no rank information one member per GPU; processes of
    // neither (a launcher) one more member. Each of those has a trace of its processes only.
    // Returns the number of members added.
    std::size_t add(std::shared_ptr<const Trace> trace, std::string file, bool splitMergedRanks = true);
    // Ranks first (ascending; unknown ranks after, in insertion order). Call after adding.
    void sortByRank();
    // Finds member `member`'s steps again by `rules` (the user's choice for its file).
    void setStepRules(std::size_t member, facts::StepRules rules);

    const std::vector<WorkspaceMember>& members() const { return m_members; }
    std::size_t size() const { return m_members.size(); }

    // Different runs, duplicate ranks, inconsistent world sizes: one sentence each.
    std::vector<std::string> warnings() const;

    // The member of rank `rank` (as its identity says), nullptr if none.
    const WorkspaceMember* memberOfRank(int rank) const;
    // The members' ranks, "0, 1" ("none" without any): what a file holds, for messages.
    std::string rankList() const;

    // Step numbers every member has, ascending.
    std::vector<long long> commonSteps() const;

    // Sets every member's offset; member 0 keeps offset 0 (the axis is its time).
    AlignmentReport alignAbsoluteClock();
    // Aligns `step`'s starts (default: the first common step); without a common step, the
    // members' first GPU activities (else their first events).
    AlignmentReport alignAtStep(std::optional<long long> step = std::nullopt);

    // Step-by-step alignment (diff: step k of NEW over step k of BASE): the offset that puts
    // member m's step `number` at the start of member 0's same step; nullopt if either lacks it.
    std::optional<TimeNs> stepOffset(std::size_t member, long long number) const;

private:
    facts::StepRules m_stepRules;
    std::vector<WorkspaceMember> m_members;
};

// ---- loading several files ----

// Loads one file (loadTraceFile; tests pass one that throws).
using TraceFileLoader = std::function<LoadResult(const std::string& path, LoadProgress* progress)>;

// Loads each file with its own loader on at most `maxThreads` threads (0: the number of
// cores), results in the order of `paths`. A file that fails, even by an exception of any
// type, has its own fatal error; the others still load. No exception leaves a thread.
std::vector<LoadResult> loadTraceFiles(const std::vector<std::string>& paths, MultiLoadProgress* progress = nullptr,
                                       unsigned maxThreads = 0, const TraceFileLoader& load = {});

// The trace files of a folder (*.json, *.json.gz), sorted by name; not recursive.
std::vector<std::string> traceFilesIn(const std::string& folder);

// A file of a multi-file open that gave no trace.
struct FileError {
    std::string file;
    std::string message;
};

// Files as given, folders replaced by their trace files; a folder without traces or a
// path that does not exist is an error.
std::vector<std::string> expandTracePaths(const std::vector<std::string>& paths, std::vector<FileError>& errors);

// Loads `files` in parallel and builds a workspace ordered by rank; failed files are errors
// (the others load), cancelled ones are neither members nor errors.
struct LoadedWorkspace {
    Workspace workspace;
    std::vector<FileError> errors;
    bool cancelled = false;
};
LoadedWorkspace loadWorkspace(const std::vector<std::string>& files, MultiLoadProgress* progress = nullptr,
                              unsigned maxThreads = 0, const facts::StepRules& stepRules = {});

} // namespace ks::analysis

#pragma once
// Where a `summarize` process spends its time, phase by phase (wall and CPU seconds), and what its
// worker counted (files, page faults, context switches, peak memory), printed with --timings
// (docs/performance.md: how summarize --mpi scales).
#include <string>
#include <vector>

namespace ks::cli {

// Wall and CPU seconds at one moment: CPU of this process (all its threads) plus its waited-for children.
struct TimePoint {
    double wall = 0, cpu = 0;
    static TimePoint now();
};

class SummarizeTimings {
public:
    struct Phase {
        std::string name;
        double wall = 0, cpu = 0;
    };
    struct Count {
        std::string name;
        double value = 0;
    };

    // The time from the process's start (exec, as the kernel counts it) to now, as the phase "start-up".
    void addStartUp();
    // Adds the time since `from` to the phase `name` (summed when it recurs), and returns now. A
    // name with a slash ("files/load") is a part of another phase, left out of the totals.
    TimePoint add(const std::string& name, TimePoint from);
    void add(const std::string& name, double wall, double cpu);
    const std::vector<Phase>& phases() const { return m_phases; }
    // Adds `value` to the count `name`; a name that begins with "peak" keeps the largest instead.
    void count(const std::string& name, double value);
    const std::vector<Count>& counts() const { return m_counts; }
    // Merges another process's phases and counts into these.
    void add(const SummarizeTimings& other);

    // "name wall cpu" lines and "#name value" lines, the form in which a child process or an MPI
    // process passes them on, each after `linePrefix`.
    std::string encode(const std::string& linePrefix = {}) const;
    void decodeLine(const std::string& line);

    // One line: each phase's wall and CPU seconds and its share of the total wall time, then
    // each count ("name = value").
    std::string line(const std::string& who) const;

private:
    std::vector<Phase> m_phases;
    std::vector<Count> m_counts;
};

} // namespace ks::cli

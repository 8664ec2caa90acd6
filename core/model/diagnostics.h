#pragma once
#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace ks {

inline constexpr std::uint64_t kNoOffset = UINT64_MAX;
inline constexpr std::int64_t kNoEventIndex = -1;

// A problem found while reading or building a trace, located by byte offset (in the
// uncompressed stream) and/or the index of the entry in traceEvents.
struct Diagnostic {
    // Info: an expected property of the format (kineto's orphan flow halves), not a defect.
    enum class Severity { Warning, Error, Info };
    Severity severity = Severity::Warning;
    std::string code; // stable key, e.g. "truncated", "unpaired-flow", "missing-ts"
    std::string message; // human readable
    std::uint64_t byteOffset = kNoOffset;
    std::int64_t eventIndex = kNoEventIndex;

    std::string located() const; // "message (byte 123, event 45)"
};

// Keeps every occurrence counted per code but only the first few messages of each code,
// so a file with a million bad events cannot blow up memory.
class Diagnostics {
public:
    static constexpr std::size_t kMessagesPerCode = 20;

    void add(Diagnostic d, std::uint64_t count = 1);
    void warn(std::string code, std::string message, std::uint64_t offset = kNoOffset,
              std::int64_t eventIndex = kNoEventIndex);
    const std::vector<Diagnostic>& items() const { return m_items; }
    const std::map<std::string, std::uint64_t>& counts() const { return m_counts; }
    std::uint64_t count(const std::string& code) const;
    // The severity a code was first reported with (every code keeps one).
    Diagnostic::Severity severityOf(const std::string& code) const;
    // Occurrences of things actually wrong (warnings and errors), and of information.
    std::uint64_t warningCount() const;
    std::uint64_t infoCount() const;
    bool empty() const { return m_counts.empty(); }
    // "12× unpaired-flow: first message".
    std::string summaryLine(const std::string& code) const;

private:
    std::vector<Diagnostic> m_items;
    std::map<std::string, std::uint64_t> m_counts;
    std::map<std::string, Diagnostic::Severity> m_severities;
};

const char* severityName(Diagnostic::Severity severity); // "warning", "error", "info"

} // namespace ks

#include "core/model/diagnostics.h"

#include "core/model/utf8.h"

namespace ks {

std::string Diagnostic::located() const
{
    std::string out = message;
    if (byteOffset != kNoOffset || eventIndex != kNoEventIndex) {
        out += " (";
        if (byteOffset != kNoOffset)
            out += "byte " + std::to_string(byteOffset);
        if (eventIndex != kNoEventIndex) {
            if (byteOffset != kNoOffset)
                out += ", ";
            out += "event " + std::to_string(eventIndex);
        }
        out += ")";
    }
    return out;
}

void Diagnostics::add(Diagnostic d, std::uint64_t count)
{
    auto& n = m_counts[d.code];
    m_severities.try_emplace(d.code, d.severity);
    if (n < kMessagesPerCode) {
        d.message = utf8::sanitized(d.message); // messages may quote the file (names, paths)
        m_items.push_back(std::move(d));
    }
    n += count;
}

void Diagnostics::warn(std::string code, std::string message, std::uint64_t offset, std::int64_t eventIndex)
{
    add(Diagnostic{Diagnostic::Severity::Warning, std::move(code), std::move(message), offset, eventIndex});
}

std::uint64_t Diagnostics::count(const std::string& code) const
{
    auto it = m_counts.find(code);
    return it == m_counts.end() ? 0 : it->second;
}

Diagnostic::Severity Diagnostics::severityOf(const std::string& code) const
{
    auto it = m_severities.find(code);
    return it == m_severities.end() ? Diagnostic::Severity::Warning : it->second;
}

std::uint64_t Diagnostics::infoCount() const
{
    std::uint64_t n = 0;
    for (const auto& [code, count] : m_counts) {
        if (severityOf(code) == Diagnostic::Severity::Info)
            n += count;
    }
    return n;
}

std::uint64_t Diagnostics::warningCount() const
{
    std::uint64_t n = 0;
    for (const auto& [code, count] : m_counts)
        n += count;
    return n - infoCount();
}

const char* severityName(Diagnostic::Severity severity)
{
    switch (severity) {
    case Diagnostic::Severity::Error: return "error";
    case Diagnostic::Severity::Info: return "info";
    case Diagnostic::Severity::Warning: break;
    }
    return "warning";
}

std::string Diagnostics::summaryLine(const std::string& code) const
{
    std::string first;
    for (const auto& d : m_items) {
        if (d.code == code) {
            first = d.located();
            break;
        }
    }
    return std::to_string(count(code)) + "× " + code + ": " + first;
}

} // namespace ks

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

std::vector<std::string> Diagnostics::summaryLines() const
{
    std::vector<std::string> lines;
    for (const auto& [code, n] : m_counts) {
        std::string first;
        for (const auto& d : m_items) {
            if (d.code == code) {
                first = d.located();
                break;
            }
        }
        lines.push_back(std::to_string(n) + "× " + code + ": " + first);
    }
    return lines;
}

} // namespace ks

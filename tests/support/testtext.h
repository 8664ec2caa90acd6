#pragma once
// Text checks on std::string for the tests (what QString/QByteArray gave them): contains,
// count, split, trimmed, join. Output of processes and files is compared as bytes.
#include <string>
#include <string_view>
#include <vector>

namespace kstest {

inline bool contains(std::string_view text, std::string_view part) { return text.find(part) != std::string_view::npos; }

// Non-overlapping occurrences of part (not empty) in text.
inline int count(std::string_view text, std::string_view part)
{
    int n = 0;
    for (std::size_t at = text.find(part); !part.empty() && at != std::string_view::npos;
         at = text.find(part, at + part.size()))
        ++n;
    return n;
}

// Parts between separators; empty parts are kept unless skipEmpty.
inline std::vector<std::string> split(std::string_view text, char separator, bool skipEmpty = false)
{
    std::vector<std::string> parts;
    std::size_t from = 0;
    for (;;) {
        const std::size_t at = text.find(separator, from);
        const std::string_view part = text.substr(from, at == std::string_view::npos ? at : at - from);
        if (!part.empty() || !skipEmpty)
            parts.emplace_back(part);
        if (at == std::string_view::npos)
            return parts;
        from = at + 1;
    }
}

// Without leading and trailing white space.
inline std::string trimmed(std::string_view text)
{
    const char* space = " \t\n\r\f\v";
    const std::size_t first = text.find_first_not_of(space);
    if (first == std::string_view::npos)
        return {};
    return std::string(text.substr(first, text.find_last_not_of(space) - first + 1));
}

inline std::string join(const std::vector<std::string>& parts, std::string_view separator)
{
    std::string out;
    for (std::size_t i = 0; i < parts.size(); ++i)
        out.append(i ? separator : "").append(parts[i]);
    return out;
}

// Well-formed UTF-8 (RFC 3629: no overlong forms, no surrogates, nothing above U+10FFFF),
// checked apart from core/model/utf8 so that a test can hold the two against each other.
inline bool isValidUtf8(std::string_view text)
{
    for (std::size_t i = 0; i < text.size();) {
        const auto byte = [&](std::size_t k) { return static_cast<unsigned char>(text[k]); };
        const unsigned char lead = byte(i);
        std::size_t length = lead < 0x80   ? 1
            : lead >= 0xC2 && lead <= 0xDF ? 2
            : lead >= 0xE0 && lead <= 0xEF ? 3
            : lead >= 0xF0 && lead <= 0xF4 ? 4
                                           : 0;
        if (length == 0 || i + length > text.size())
            return false;
        // The second byte's range narrows after E0 (overlong), ED (surrogates), F0 and F4.
        const unsigned char low = lead == 0xE0 ? 0xA0 : lead == 0xF0 ? 0x90 : 0x80;
        const unsigned char high = lead == 0xED ? 0x9F : lead == 0xF4 ? 0x8F : 0xBF;
        for (std::size_t k = 1; k < length; ++k) {
            if (byte(i + k) < (k == 1 ? low : 0x80) || byte(i + k) > (k == 1 ? high : 0xBF))
                return false;
        }
        i += length;
    }
    return true;
}

// first, then rest (a command line's words).
inline std::vector<std::string> concat(std::vector<std::string> first, const std::vector<std::string>& rest)
{
    first.insert(first.end(), rest.begin(), rest.end());
    return first;
}

} // namespace kstest

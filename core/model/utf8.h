#pragma once
// The one policy for text from a file: everything the model keeps or hands out is valid
// UTF-8. Ill-formed sequences (stray bytes, overlongs, CESU-encoded surrogates, code points
// above U+10FFFF, cut-off sequences) become U+FFFD, one per maximal ill-formed subpart as
// Unicode recommends; in JSON text, lone surrogate escapes (\uD800 without its pair)
// become \uFFFD as well. The checks read 8 bytes at a time, so clean text costs little.
#include <cstddef>
#include <string>
#include <string_view>

namespace ks::utf8 {

inline constexpr std::size_t kValid = std::string_view::npos;
// The loader's warning where it repaired text.
inline constexpr const char* kRepairedMessage = "invalid UTF-8 (or a lone UTF-16 surrogate) was replaced with U+FFFD";

// Offset of the first byte of decoded text that is not well-formed UTF-8, or kValid.
std::size_t firstInvalid(std::string_view text);
// `text` with each ill-formed subpart replaced by U+FFFD.
std::string sanitized(std::string_view text);

// The same for raw JSON text (an event, a metadata value), also flagging lone surrogate
// escapes, which JSON parsers such as nlohmann reject.
std::size_t firstInvalidJson(std::string_view json);
// Replaces what firstInvalidJson() flags: raw bytes by U+FFFD, "\uD8xx" by "\uFFFD".
std::string sanitizedJson(std::string_view json);

// Returns `text` itself when it is valid, else a view of `scratch` holding the sanitized copy.
std::string_view validView(std::string_view text, std::string& scratch);
std::string_view validJsonView(std::string_view json, std::string& scratch);

} // namespace ks::utf8

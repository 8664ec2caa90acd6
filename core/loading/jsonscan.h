#pragma once
// Low-level JSON scanning over one contiguous window of the stream. Every function
// reports Incomplete instead of reading past `end`, so the caller can refill the window
// and retry the same element: the result never depends on where chunks were split.
#include <cstdint>
#include <string>
#include <string_view>

namespace ks::json {

enum class Status : std::uint8_t { Ok, Incomplete, Error };

struct Cursor {
    const char* p;
    const char* end;
    const char* errorAt = nullptr; // set with Status::Error
    const char* errorWhat = "";

    bool atEnd() const { return p >= end; }
    Status fail(const char* what)
    {
        errorAt = p;
        errorWhat = what;
        return Status::Error;
    }
};

inline bool isSpace(char c) { return c == ' ' || c == '\n' || c == '\r' || c == '\t'; }

// Advances past whitespace; false if the window ended first.
inline bool skipSpace(Cursor& c)
{
    while (c.p < c.end && isSpace(*c.p))
        ++c.p;
    return c.p < c.end;
}

// Parses a string starting at '"'. `out` views the window when there are no escapes,
// else `scratch` holds the decoded text (invalid escapes and lone surrogates → U+FFFD).
Status parseString(Cursor& c, std::string_view& out, std::string& scratch);

// Skips any value (iteratively: arbitrarily deep nesting is fine).
Status skipValue(Cursor& c);

// Where the whole traceEvents entries from p on end: just past the last one that closes before
// `end`, or before a close bracket at the top level (the array's ']'); p when none does. An entry
// ends where its brackets balance, counted as skipValue() counts them, so the parser ends it at
// the same byte or reports an error before it. The loader's cheap cut of the events into chunks
// (about 5 GB/s with SSE2). With `plainAscii`, also tells whether [p, the result) holds only
// ASCII without a backslash: text that needs no UTF-8 or escape check.
const char* wholeEntriesEnd(const char* p, const char* end, bool* plainAscii = nullptr);

// A scalar token (number, true, false, null, NaN, Infinity...): the bytes up to the next
// delimiter. Incomplete if the window ends inside it.
Status scanScalar(Cursor& c, std::string_view& token);

// Exact decimal → integer with `scaleDigits` implied decimals (3 turns µs into ns).
// Accepts sign, fraction, exponent; rounds half away from zero; false on overflow or junk.
bool decimalToScaled(std::string_view token, int scaleDigits, std::int64_t& out);
bool parseInt64(std::string_view token, std::int64_t& out); // integral floats accepted ("1.0")
bool parseUint64(std::string_view token, std::uint64_t& out);
bool parseDouble(std::string_view token, double& out); // also NaN, Infinity, "inf"

} // namespace ks::json

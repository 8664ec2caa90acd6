#include "core/loading/jsonscan.h"

#include <bit>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif
#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <limits>

namespace ks::json {

namespace {

int hexValue(char ch)
{
    if (ch >= '0' && ch <= '9')
        return ch - '0';
    if (ch >= 'a' && ch <= 'f')
        return ch - 'a' + 10;
    if (ch >= 'A' && ch <= 'F')
        return ch - 'A' + 10;
    return -1;
}

void appendUtf8(std::string& s, std::uint32_t cp)
{
    if (cp < 0x80) {
        s += static_cast<char>(cp);
    } else if (cp < 0x800) {
        s += static_cast<char>(0xC0 | (cp >> 6));
        s += static_cast<char>(0x80 | (cp & 0x3F));
    } else if (cp < 0x10000) {
        s += static_cast<char>(0xE0 | (cp >> 12));
        s += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
        s += static_cast<char>(0x80 | (cp & 0x3F));
    } else {
        s += static_cast<char>(0xF0 | (cp >> 18));
        s += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
        s += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
        s += static_cast<char>(0x80 | (cp & 0x3F));
    }
}

constexpr std::uint32_t kReplacement = 0xFFFD;

// Reads 4 hex digits after "\u"; -1 if malformed, -2 if the window ended.
long readHex4(const char* p, const char* end)
{
    // A non-hex byte decides before the end of the window does: otherwise `\u"` read up to a
    // chunk's end would be an unfinished entry, and read further a replaced escape.
    long v = 0;
    for (int i = 0; i < 4; ++i) {
        if (p + i >= end)
            return -2;
        const int h = hexValue(p[i]);
        if (h < 0)
            return -1;
        v = v * 16 + h;
    }
    return v;
}

// The first '"' or '\\' in [p, end), or end: 16 or 8 bytes per step (names and args are most
// of a trace's bytes, and this scan is the parsing thread's inner loop).
const char* findQuoteOrBackslash(const char* p, const char* end)
{
#if defined(__SSE2__)
    const __m128i quote = _mm_set1_epi8('"');
    const __m128i backslash = _mm_set1_epi8('\\');
    for (; end - p >= 16; p += 16) {
        const __m128i block = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
        const int hits =
            _mm_movemask_epi8(_mm_or_si128(_mm_cmpeq_epi8(block, quote), _mm_cmpeq_epi8(block, backslash)));
        if (hits)
            return p + std::countr_zero(static_cast<unsigned>(hits));
    }
#endif
    if constexpr (std::endian::native == std::endian::little) {
        constexpr std::uint64_t kOnes = 0x0101010101010101ull;
        constexpr std::uint64_t kHighBits = 0x8080808080808080ull;
        for (; end - p >= 8; p += 8) {
            std::uint64_t w;
            std::memcpy(&w, p, 8);
            const std::uint64_t quote = w ^ (kOnes * '"'); // zero bytes where w has a quote
            const std::uint64_t backslash = w ^ (kOnes * '\\');
            // The lowest flagged byte is exact (only bytes above a match can be false hits).
            const std::uint64_t hits = (((quote - kOnes) & ~quote) | ((backslash - kOnes) & ~backslash)) & kHighBits;
            if (hits)
                return p + std::countr_zero(hits) / 8;
        }
    }
    while (p < end && *p != '"' && *p != '\\')
        ++p;
    return p;
}

// Moves p (just past an opening quote) past the closing quote; false if the window ends.
bool skipStringBody(const char*& p, const char* end)
{
    while (true) {
        p = findQuoteOrBackslash(p, end);
        if (p >= end)
            return false;
        if (*p == '"') {
            ++p;
            return true;
        }
        p += 2; // an escape: skip the escaped character
    }
}

// Bytes that end a scalar token: delimiters, whitespace, and the start of another value.
struct ScalarEndTable {
    bool ends[256] = {};
    constexpr ScalarEndTable()
    {
        for (unsigned char ch : {',', '}', ']', ':', ' ', '\n', '\r', '\t', '"', '{', '['})
            ends[ch] = true;
    }
};
constexpr ScalarEndTable kScalarEnd;

} // namespace

Status parseString(Cursor& c, std::string_view& out, std::string& scratch)
{
    const char* start = ++c.p; // past the opening quote
    const char* p = start;
    // Fast path: find the closing quote with no escapes.
    p = findQuoteOrBackslash(p, c.end);
    if (p >= c.end)
        return Status::Incomplete;
    if (*p == '"') {
        out = std::string_view(start, static_cast<std::size_t>(p - start));
        c.p = p + 1;
        return Status::Ok;
    }
    scratch.assign(start, p);
    while (true) {
        if (p >= c.end)
            return Status::Incomplete;
        const char ch = *p;
        if (ch == '"') {
            out = scratch;
            c.p = p + 1;
            return Status::Ok;
        }
        if (ch != '\\') {
            scratch += ch;
            ++p;
            continue;
        }
        if (p + 1 >= c.end)
            return Status::Incomplete;
        const char e = p[1];
        p += 2;
        switch (e) {
        case '"': scratch += '"'; break;
        case '\\': scratch += '\\'; break;
        case '/': scratch += '/'; break;
        case 'b': scratch += '\b'; break;
        case 'f': scratch += '\f'; break;
        case 'n': scratch += '\n'; break;
        case 'r': scratch += '\r'; break;
        case 't': scratch += '\t'; break;
        case 'u': {
            const long hi = readHex4(p, c.end);
            if (hi == -2)
                return Status::Incomplete;
            if (hi < 0) {
                appendUtf8(scratch, kReplacement);
                break;
            }
            p += 4;
            std::uint32_t cp = static_cast<std::uint32_t>(hi);
            if (cp >= 0xD800 && cp <= 0xDBFF) {
                // A pair needs "\\uXXXX" next; anything else makes this a lone surrogate.
                if (p >= c.end || (*p == '\\' && p + 1 >= c.end))
                    return Status::Incomplete;
                const bool pairFollows = p[0] == '\\' && p[1] == 'u';
                const long lo = pairFollows ? readHex4(p + 2, c.end) : -1;
                if (lo == -2)
                    return Status::Incomplete;
                if (lo >= 0xDC00 && lo <= 0xDFFF) {
                    cp = 0x10000 + ((cp - 0xD800) << 10) + (static_cast<std::uint32_t>(lo) - 0xDC00);
                    p += 6;
                } else {
                    cp = kReplacement;
                }
            } else if (cp >= 0xDC00 && cp <= 0xDFFF) {
                cp = kReplacement;
            }
            appendUtf8(scratch, cp);
            break;
        }
        default: appendUtf8(scratch, kReplacement); break;
        }
    }
}

Status skipValue(Cursor& c)
{
    if (!skipSpace(c))
        return Status::Incomplete;
    const char first = *c.p;
    if (first != '{' && first != '[') {
        if (first == '"') {
            const char* p = c.p + 1;
            if (!skipStringBody(p, c.end))
                return Status::Incomplete;
            c.p = p;
            return Status::Ok;
        }
        std::string_view token;
        return scanScalar(c, token);
    }
    // Containers: count depth; strings may hold brackets.
    std::size_t depth = 0;
    const char* p = c.p;
    while (p < c.end) {
        const char ch = *p++;
        if (ch == '"') {
            if (!skipStringBody(p, c.end))
                return Status::Incomplete;
        } else if (ch == '{' || ch == '[') {
            ++depth;
        } else if (ch == '}' || ch == ']') {
            if (--depth == 0) {
                c.p = p;
                return Status::Ok;
            }
        }
    }
    return Status::Incomplete;
}

namespace {

// Where the top level of traceEvents stands while wholeEntriesEnd() walks it.
struct EntryScan {
    const char* last; // just past the last entry that ended
    int depth = 0;
    bool inString = false;
    bool done = false; // a close bracket at the top: the array's ']' or a stray one

    void close(const char* at)
    {
        if (depth == 0)
            done = true;
        else if (--depth == 0)
            last = at + 1;
    }
    // Byte by byte, escapes included, up to `limit` (an escape may step one past it).
    const char* walk(const char* q, const char* limit)
    {
        for (; q < limit && !done; ++q) {
            const char ch = *q;
            if (inString) {
                if (ch == '\\')
                    ++q;
                else if (ch == '"')
                    inString = false;
            } else if (ch == '"') {
                inString = true;
            } else if (ch == '{' || ch == '[') {
                ++depth;
            } else if (ch == '}' || ch == ']') {
                close(q);
            }
        }
        return q;
    }
};

#if defined(__SSE2__)
// Bit i set where (block[i] | fold) == ch, for 64 bytes. Folding 0x20 matches '{' and '[' at
// once (0x7B, 0x5B), and '}' and ']' (0x7D, 0x5D).
inline std::uint64_t matches(const __m128i (&block)[4], char ch, char fold = 0)
{
    const __m128i pattern = _mm_set1_epi8(ch);
    const __m128i folding = _mm_set1_epi8(fold);
    auto bits = [&](int i) {
        const __m128i equal = _mm_cmpeq_epi8(_mm_or_si128(block[i], folding), pattern);
        return static_cast<std::uint64_t>(static_cast<std::uint32_t>(_mm_movemask_epi8(equal)));
    };
    return bits(0) | bits(1) << 16 | bits(2) << 32 | bits(3) << 48;
}
#endif

} // namespace

const char* wholeEntriesEnd(const char* p, const char* end, bool* plainAscii)
{
    EntryScan scan{p};
    const char* q = p;
    bool plain = true;
#if defined(__SSE2__)
    // 64 bytes at a time: quotes and brackets as bit masks, the bytes inside strings as the
    // running XOR of the quotes. Blocks with a backslash (rare in traces) go byte by byte.
    while (end - q >= 64 && !scan.done) {
        const auto* at = reinterpret_cast<const __m128i*>(q);
        const __m128i block[4] = {_mm_loadu_si128(at), _mm_loadu_si128(at + 1), _mm_loadu_si128(at + 2),
                                  _mm_loadu_si128(at + 3)};
        if (matches(block, '\\')) {
            plain = false;
            q = scan.walk(q, q + 64);
            continue;
        }
        const __m128i any = _mm_or_si128(_mm_or_si128(block[0], block[1]), _mm_or_si128(block[2], block[3]));
        plain = plain && _mm_movemask_epi8(any) == 0; // no byte >= 0x80
        std::uint64_t inside = matches(block, '"'); // prefix XOR: set from an opening quote on
        inside ^= inside << 1;
        inside ^= inside << 2;
        inside ^= inside << 4;
        inside ^= inside << 8;
        inside ^= inside << 16;
        inside ^= inside << 32;
        if (scan.inString)
            inside = ~inside;
        scan.inString = (inside >> 63) != 0;
        const std::uint64_t open = matches(block, '{', 0x20) & ~inside;
        const std::uint64_t close = matches(block, '}', 0x20) & ~inside;
        for (std::uint64_t brackets = open | close; brackets && !scan.done; brackets &= brackets - 1) {
            const int i = std::countr_zero(brackets);
            if (open >> i & 1)
                ++scan.depth;
            else
                scan.close(q + i);
        }
        q += 64;
    }
#endif
    const char* tail = q;
    scan.walk(q, end);
    if (plainAscii) {
        for (const char* b = tail; plain && b < scan.last; ++b)
            plain = static_cast<unsigned char>(*b) < 0x80 && *b != '\\';
        *plainAscii = plain;
    }
    return scan.last;
}

Status scanScalar(Cursor& c, std::string_view& token)
{
    const char* start = c.p;
    const char* p = start;
    while (p < c.end && !kScalarEnd.ends[static_cast<unsigned char>(*p)])
        ++p;
    if (p >= c.end)
        return Status::Incomplete;
    if (p == start)
        return c.fail("expected a value");
    token = std::string_view(start, static_cast<std::size_t>(p - start));
    c.p = p;
    return Status::Ok;
}

bool decimalToScaled(std::string_view t, int scaleDigits, std::int64_t& out)
{
    std::size_t i = 0;
    bool negative = false;
    if (i < t.size() && (t[i] == '-' || t[i] == '+'))
        negative = t[i++] == '-';
    // Collect up to 19 significant digits and the decimal exponent of the last one.
    std::uint64_t mantissa = 0;
    int digits = 0;
    int exponent = 0; // value = mantissa * 10^exponent
    bool sawDigit = false, roundUp = false, dropped = false;
    for (; i < t.size() && t[i] >= '0' && t[i] <= '9'; ++i) {
        sawDigit = true;
        if (digits < 19) {
            if (mantissa || t[i] != '0') {
                mantissa = mantissa * 10 + static_cast<unsigned>(t[i] - '0');
                ++digits;
            }
        } else {
            ++exponent; // integer digits beyond precision: too large anyway
        }
    }
    if (i < t.size() && t[i] == '.') {
        for (++i; i < t.size() && t[i] >= '0' && t[i] <= '9'; ++i) {
            sawDigit = true;
            if (digits < 19) {
                mantissa = mantissa * 10 + static_cast<unsigned>(t[i] - '0');
                if (mantissa)
                    ++digits;
                --exponent;
            } else if (!dropped) {
                roundUp = t[i] >= '5';
                dropped = true;
            }
        }
    }
    if (!sawDigit)
        return false;
    if (i < t.size() && (t[i] == 'e' || t[i] == 'E')) {
        int e = 0;
        const auto [ptr, ec] =
            std::from_chars(t.data() + i + 1 + (t.size() > i + 1 && t[i + 1] == '+'), t.data() + t.size(), e);
        if (ec != std::errc() || ptr != t.data() + t.size() || e > 400 || e < -400)
            return false;
        exponent += e;
        i = t.size();
    }
    if (i != t.size())
        return false;
    if (roundUp)
        ++mantissa;
    int shift = exponent + scaleDigits;
    unsigned __int128 v = mantissa;
    if (shift >= 0) {
        for (; shift > 0; --shift) {
            v *= 10;
            if (v > static_cast<unsigned __int128>(std::numeric_limits<std::int64_t>::max()))
                return mantissa == 0 ? (out = 0, true) : false;
        }
    } else if (shift < -38) {
        v = 0; // far below one unit
    } else {
        unsigned __int128 divisor = 1;
        for (; shift < 0; ++shift)
            divisor *= 10;
        const unsigned __int128 remainder = v % divisor;
        v /= divisor;
        if (remainder * 2 >= divisor)
            ++v;
    }
    if (v > static_cast<unsigned __int128>(std::numeric_limits<std::int64_t>::max()))
        return false;
    out = negative ? -static_cast<std::int64_t>(v) : static_cast<std::int64_t>(v);
    return true;
}

bool parseInt64(std::string_view t, std::int64_t& out)
{
    const auto [ptr, ec] = std::from_chars(t.data(), t.data() + t.size(), out);
    if (ec == std::errc() && ptr == t.data() + t.size())
        return true;
    // Integral floats ("1.0", "1e3"): exact decimal arithmetic, no strtod (locale-dependent).
    std::int64_t milli = 0;
    if (!decimalToScaled(t, 3, milli) || milli % 1000 != 0)
        return false;
    out = milli / 1000;
    return true;
}

bool parseUint64(std::string_view t, std::uint64_t& out)
{
    const auto [ptr, ec] = std::from_chars(t.data(), t.data() + t.size(), out);
    if (ec == std::errc() && ptr == t.data() + t.size())
        return true;
    std::int64_t v;
    if (parseInt64(t, v) && v >= 0) {
        out = static_cast<std::uint64_t>(v);
        return true;
    }
    return false;
}

bool parseDouble(std::string_view t, double& out)
{
    if (t == "NaN" || t == "nan") {
        out = std::numeric_limits<double>::quiet_NaN();
        return true;
    }
    if (t == "Infinity" || t == "inf") {
        out = std::numeric_limits<double>::infinity();
        return true;
    }
    if (t == "-Infinity" || t == "-inf") {
        out = -std::numeric_limits<double>::infinity();
        return true;
    }
    const auto [ptr, ec] = std::from_chars(t.data(), t.data() + t.size(), out);
    return ec == std::errc() && ptr == t.data() + t.size();
}

} // namespace ks::json

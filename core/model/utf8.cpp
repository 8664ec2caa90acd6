#include "core/model/utf8.h"

#include <cstdint>
#include <cstring>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace ks::utf8 {

namespace {

constexpr std::uint64_t kOnes = 0x0101010101010101ull;
constexpr std::uint64_t kHighBits = 0x8080808080808080ull;
constexpr char kReplacement[] = "\xEF\xBF\xBD";

// Whether 8 bytes at p hold a non-ASCII byte (or, in JSON text, a backslash).
template <bool Json>
bool wordNeedsLook(const unsigned char* p)
{
    std::uint64_t w;
    std::memcpy(&w, p, 8);
    if constexpr (!Json) {
        return (w & kHighBits) != 0;
    } else {
        const std::uint64_t x = w ^ (kOnes * '\\'); // a zero byte where w has a backslash
        return ((w | ((x - kOnes) & ~x)) & kHighBits) != 0;
    }
}

// Past the 32-byte blocks from p that hold only ASCII (and, in JSON text, no backslash): every
// event's text is checked, and nearly all of it is such blocks.
template <bool Json>
const unsigned char* skipPlainBlocks(const unsigned char* p, const unsigned char* end)
{
#if defined(__SSE2__)
    const __m128i backslash = _mm_set1_epi8('\\');
    for (; end - p >= 32; p += 32) {
        const __m128i a = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
        const __m128i b = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p + 16));
        __m128i look = _mm_or_si128(a, b); // high bit: a byte >= 0x80
        if constexpr (Json)
            look = _mm_or_si128(look, _mm_or_si128(_mm_cmpeq_epi8(a, backslash), _mm_cmpeq_epi8(b, backslash)));
        if (_mm_movemask_epi8(look) != 0)
            break;
    }
#endif
    return p;
}

// At a byte >= 0x80: the length of the well-formed sequence there (Unicode Table 3-7), or
// minus the length of the maximal ill-formed subpart (at least 1).
int sequenceLength(const unsigned char* p, const unsigned char* end)
{
    const unsigned lead = p[0];
    int trail;
    unsigned lo = 0x80, hi = 0xBF;
    if (lead >= 0xC2 && lead <= 0xDF) {
        trail = 1;
    } else if (lead >= 0xE0 && lead <= 0xEF) {
        trail = 2;
        if (lead == 0xE0)
            lo = 0xA0; // overlong
        else if (lead == 0xED)
            hi = 0x9F; // UTF-16 surrogates (CESU-8)
    } else if (lead >= 0xF0 && lead <= 0xF4) {
        trail = 3;
        if (lead == 0xF0)
            lo = 0x90; // overlong
        else if (lead == 0xF4)
            hi = 0x8F; // above U+10FFFF
    } else {
        return -1;
    }
    for (int i = 1; i <= trail; ++i) {
        if (p + i >= end || p[i] < lo || p[i] > hi)
            return -i;
        lo = 0x80;
        hi = 0xBF;
    }
    return trail + 1;
}

long hex4(const unsigned char* p, const unsigned char* end)
{
    if (end - p < 4)
        return -1;
    long v = 0;
    for (int i = 0; i < 4; ++i) {
        const unsigned ch = p[i];
        const int h = ch >= '0' && ch <= '9' ? int(ch - '0')
            : ch >= 'a' && ch <= 'f'         ? int(ch - 'a' + 10)
            : ch >= 'A' && ch <= 'F'         ? int(ch - 'A' + 10)
                                             : -1;
        if (h < 0)
            return -1;
        v = v * 16 + h;
    }
    return v;
}

constexpr int kLoneSurrogate = -6; // "\uXXXX"

// At a backslash: how many bytes the escape spans, or kLoneSurrogate. An escaped byte
// >= 0x80 is left for the UTF-8 check (it is not valid JSON either way).
int escapeLength(const unsigned char* p, const unsigned char* end)
{
    if (end - p < 2)
        return 1;
    if (p[1] != 'u')
        return p[1] >= 0x80 ? 1 : 2;
    const long cp = hex4(p + 2, end);
    if (cp < 0xD800 || cp > 0xDFFF)
        return cp < 0 ? 2 : 6;
    if (cp <= 0xDBFF && end - p >= 12 && p[6] == '\\' && p[7] == 'u') {
        const long low = hex4(p + 8, end);
        if (low >= 0xDC00 && low <= 0xDFFF)
            return 12;
    }
    return kLoneSurrogate;
}

// Calls onBad(offset, length, isEscape) for each ill-formed part; stops when it returns false.
template <bool Json, class OnBad>
void scan(std::string_view text, OnBad&& onBad)
{
    const auto* begin = reinterpret_cast<const unsigned char*>(text.data());
    const auto* end = begin + text.size();
    const unsigned char* p = begin;
    while (true) {
        p = skipPlainBlocks<Json>(p, end);
        while (end - p >= 8 && !wordNeedsLook<Json>(p))
            p += 8;
        if (p >= end)
            return;
        const unsigned ch = *p;
        int n = 1;
        if (ch >= 0x80)
            n = sequenceLength(p, end);
        else if (Json && ch == '\\')
            n = escapeLength(p, end);
        if (n > 0) {
            p += n;
            continue;
        }
        const bool escape = Json && ch == '\\';
        if (!onBad(static_cast<std::size_t>(p - begin), static_cast<std::size_t>(-n), escape))
            return;
        p += -n;
    }
}

template <bool Json>
std::size_t firstBad(std::string_view text)
{
    std::size_t first = kValid;
    scan<Json>(text, [&](std::size_t at, std::size_t, bool) {
        first = at;
        return false;
    });
    return first;
}

template <bool Json>
std::string sanitize(std::string_view text)
{
    std::string out;
    out.reserve(text.size() + 8);
    std::size_t copied = 0;
    scan<Json>(text, [&](std::size_t at, std::size_t length, bool escape) {
        out.append(text.substr(copied, at - copied));
        out.append(escape ? "\\ufffd" : kReplacement);
        copied = at + length;
        return true;
    });
    out.append(text.substr(copied));
    return out;
}

} // namespace

std::size_t firstInvalid(std::string_view text) { return firstBad<false>(text); }

std::string sanitized(std::string_view text) { return sanitize<false>(text); }

std::size_t firstInvalidJson(std::string_view json) { return firstBad<true>(json); }

std::string sanitizedJson(std::string_view json) { return sanitize<true>(json); }

std::string_view validView(std::string_view text, std::string& scratch)
{
    if (firstInvalid(text) == kValid)
        return text;
    scratch = sanitized(text);
    return scratch;
}

std::string_view validJsonView(std::string_view json, std::string& scratch)
{
    if (firstInvalidJson(json) == kValid)
        return json;
    scratch = sanitizedJson(json);
    return scratch;
}

} // namespace ks::utf8

#include "core/notes/tracefingerprint.h"

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <memory>
#include <utility>
#include <vector>

namespace ks::notes {

namespace {

constexpr std::uint64_t kFnvOffset = 14695981039346656037ull;
constexpr std::uint64_t kFnvPrime = 1099511628211ull;

std::uint64_t fnv1a(std::uint64_t hash, const unsigned char* data, std::size_t size)
{
    for (std::size_t i = 0; i < size; ++i) {
        hash ^= data[i];
        hash *= kFnvPrime;
    }
    return hash;
}

struct FileCloser {
    void operator()(std::FILE* f) const { std::fclose(f); }
};

} // namespace

std::optional<TraceFingerprint> fingerprintFile(const std::string& path, std::string* error)
{
    const auto fail = [&](const char* what) -> std::optional<TraceFingerprint> {
        if (error)
            *error = std::string(what) + ": " + std::strerror(errno);
        return std::nullopt;
    };
    std::unique_ptr<std::FILE, FileCloser> file(std::fopen(path.c_str(), "rb"));
    if (!file)
        return fail("cannot open");
    if (std::fseek(file.get(), 0, SEEK_END) != 0)
        return fail("cannot seek");
    const long end = std::ftell(file.get());
    if (end < 0)
        return fail("cannot tell its size");
    TraceFingerprint print;
    print.size = std::uint64_t(end);
    // The head, then the tail where the file is larger than both (else the rest of the file).
    const std::uint64_t head = std::min(print.size, kFingerprintBytes);
    const std::uint64_t tailStart = std::max(head, print.size > kFingerprintBytes ? print.size - kFingerprintBytes : 0);
    std::vector<unsigned char> buffer(kFingerprintBytes);
    std::uint64_t hash = kFnvOffset;
    for (const auto& [offset, length] :
         {std::pair{std::uint64_t(0), head}, std::pair{tailStart, print.size - tailStart}}) {
        if (length == 0)
            continue;
        if (std::fseek(file.get(), long(offset), SEEK_SET) != 0)
            return fail("cannot seek");
        if (std::fread(buffer.data(), 1, std::size_t(length), file.get()) != length)
            return fail("cannot read");
        hash = fnv1a(hash, buffer.data(), std::size_t(length));
    }
    char hex[17];
    std::snprintf(hex, sizeof hex, "%016llx", static_cast<unsigned long long>(hash));
    print.headTailHash = hex;
    return print;
}

} // namespace ks::notes

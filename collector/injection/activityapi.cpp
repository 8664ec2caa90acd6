#include "collector/injection/activityapi.h"

namespace ks::injection {
namespace {

// The first xxyyzz version (CUDA 13.0); the counting scheme before it ended at v28.
constexpr std::uint32_t kFirstDottedVersion = 130000;

} // namespace

bool cuptiVersionsCompatible(std::uint32_t loaded, std::uint32_t compiled)
{
    const bool loadedDotted = loaded >= kFirstDottedVersion;
    if (loadedDotted != (compiled >= kFirstDottedVersion))
        return false;
    return loadedDotted ? loaded / 100 == compiled / 100 : loaded == compiled;
}

std::string cuptiVersionText(std::uint32_t version)
{
    if (version < kFirstDottedVersion)
        return "v" + std::to_string(version);
    return std::to_string(version / 10000) + "." + std::to_string(version / 100 % 100) + " ("
        + std::to_string(version) + ")";
}

} // namespace ks::injection

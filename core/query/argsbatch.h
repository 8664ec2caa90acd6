#pragma once
#include "core/model/trace.h"

#include <nlohmann/json.hpp>

#include <vector>

namespace ks::query {

// The args of the rows a cursor is about to visit, read from the trace's source in one batch
// (one pass in offset order: per-slice reads restart inflating on .json.gz files).
class ArgsBatch {
public:
    // The parsed "args" object of `slice`, which must be in the batch (null if it has none).
    const nlohmann::json& argsOf(SliceId slice) const;
    bool holds(SliceId slice) const;
    void load(const Trace& trace, std::vector<SliceId> slices);

private:
    std::vector<SliceId> m_slices; // sorted
    std::vector<nlohmann::json> m_args; // parallel to m_slices
};

} // namespace ks::query

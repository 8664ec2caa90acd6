#pragma once
// The shape args that kineto records with record_shapes=True: "Input Dims" (one list per
// input, empty for scalars and None), "Input type" ("float", "c10::BFloat16", "Scalar", ...)
// and "Concrete Inputs" (the values of scalars and int lists: "1", "[1, 1]", "False"), read
// from an op's event text. Dims come from the file as written: a negative size, a rank past
// kMaxRank or an element count past 2^63 makes that input's shape unknown, with a warning,
// never a wrapped number.
#include "core/model/shapeargspool.h"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace ks::analysis {

// Element types the FLOP and byte rules tell apart.
enum class ElementType : std::uint8_t { Unknown, Fp64, Fp32, Fp16, Bf16, Fp8, Int64, Int32, Int16, Int8, Bool };
// Bytes per element; 0 for Unknown.
int elementBytes(ElementType type);
ElementType elementTypeFromName(std::string_view kinetoTypeName);

struct ShapeInput {
    std::vector<std::int64_t> dims; // valid sizes only (see hasShape)
    bool hasShape = false; // a tensor with a valid shape (a scalar or None has none)
    ElementType type = ElementType::Unknown;
    std::string typeName; // as kineto wrote it
    std::string concrete; // "Concrete Inputs" entry, "" when none

    // Number of elements (1 for a 0-d tensor); nullopt without a shape or past 2^63.
    std::optional<std::int64_t> elements() const;
    std::optional<std::int64_t> bytes() const;
};

struct ShapeArgs {
    std::vector<ShapeInput> inputs;
    bool recorded = false; // the op carries "Input Dims" at all
    std::vector<std::string> warnings; // absurd dims, unreadable args

    const ShapeInput* input(std::size_t i) const { return i < inputs.size() ? &inputs[i] : nullptr; }
    // The dims of input i when it is a tensor of exactly `rank` dimensions.
    const std::vector<std::int64_t>* dimsOfRank(std::size_t i, std::size_t rank) const;
    // Concrete Inputs' int list or scalar at i ("[1, 2]" or "3"); nullopt when absent or not ints.
    std::optional<std::vector<std::int64_t>> concreteInts(std::size_t i) const;
    // Concrete Inputs' boolean at i ("True"/"False"); nullopt when absent.
    std::optional<bool> concreteBool(std::size_t i) const;
};

inline constexpr std::size_t kMaxRank = 64;

// From an event's whole text ({"name": ..., "args": {...}}).
ShapeArgs parseShapeArgs(std::string_view eventText);

// The raw JSON text of the three arrays in an event's args ("" where absent): calls of one op
// with the same shapes have the same raw args, so callers can parse each distinct one once.
// The loader keeps the same per op call (Trace::shapeArgs()), found by the same walk.
using RawShapeArgs = ShapeArgsText;
// nullopt when the text needs a full parse (escapes, a key whose value is not an array, text
// that is not an object).
std::optional<RawShapeArgs> findShapeArgs(std::string_view eventText);
ShapeArgs parseShapeArgs(const RawShapeArgs& raw);

// Checked products and sums: nullopt on a negative operand or past 2^63.
std::optional<std::int64_t> checkedProduct(std::initializer_list<std::int64_t> factors);
std::optional<std::int64_t> checkedProduct(const std::vector<std::int64_t>& factors);
std::optional<std::int64_t> checkedMultiply(std::optional<std::int64_t> a, std::optional<std::int64_t> b);
std::optional<std::int64_t> checkedAdd(std::optional<std::int64_t> a, std::optional<std::int64_t> b);

} // namespace ks::analysis

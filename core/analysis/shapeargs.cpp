#include "core/analysis/shapeargs.h"

#include "core/loading/jsonscan.h"

#include <nlohmann/json.hpp>

#include <charconv>

namespace ks::analysis {

namespace {

// Args nest 2-3 levels in real traces; deeper values are dropped, not recursed into.
nlohmann::json parseEvent(std::string_view text)
{
    constexpr int kMaxDepth = 16;
    const auto depthGuard = [](int depth, nlohmann::json::parse_event_t, nlohmann::json&) {
        return depth <= kMaxDepth;
    };
    return nlohmann::json::parse(text, depthGuard, false);
}

const nlohmann::json* arrayArg(const nlohmann::json& args, std::initializer_list<const char*> keys)
{
    for (const char* key : keys) {
        const auto it = args.find(key);
        if (it != args.end() && it->is_array())
            return &*it;
    }
    return nullptr;
}

// One input's dims; false (with a warning) when they are not a list of sizes that fit.
bool readDims(const nlohmann::json& value, std::size_t index, ShapeInput& input, std::vector<std::string>& warnings)
{
    if (!value.is_array() || value.size() > kMaxRank) {
        warnings.push_back("input " + std::to_string(index) + ": dims are not a list of at most "
                           + std::to_string(kMaxRank) + " sizes");
        return false;
    }
    std::vector<std::int64_t> dims;
    dims.reserve(value.size());
    for (const auto& d : value) {
        if (d.is_array()) // a tensor list's shapes: not one tensor, and nothing wrong
            return false;
        if (!d.is_number_integer() || (d.is_number_unsigned() && d.get<std::uint64_t>() > INT64_MAX)
            || d.get<std::int64_t>() < 0) {
            warnings.push_back("input " + std::to_string(index) + ": size "
                               + d.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) + " is not a size");
            return false;
        }
        dims.push_back(d.get<std::int64_t>());
    }
    if (!checkedProduct(dims)) {
        warnings.push_back("input " + std::to_string(index) + ": element count past 2^63");
        return false;
    }
    input.dims = std::move(dims);
    return true;
}

std::string_view trimmed(std::string_view s)
{
    while (!s.empty() && (s.front() == ' ' || s.front() == '\t'))
        s.remove_prefix(1);
    while (!s.empty() && (s.back() == ' ' || s.back() == '\t'))
        s.remove_suffix(1);
    return s;
}

} // namespace

int elementBytes(ElementType type)
{
    switch (type) {
    case ElementType::Fp64:
    case ElementType::Int64: return 8;
    case ElementType::Fp32:
    case ElementType::Int32: return 4;
    case ElementType::Fp16:
    case ElementType::Bf16:
    case ElementType::Int16: return 2;
    case ElementType::Fp8:
    case ElementType::Int8:
    case ElementType::Bool: return 1;
    case ElementType::Unknown: break;
    }
    return 0;
}

ElementType elementTypeFromName(std::string_view name)
{
    static const std::pair<std::string_view, ElementType> kNames[] = {
        {"double", ElementType::Fp64},
        {"float", ElementType::Fp32},
        {"c10::Half", ElementType::Fp16},
        {"c10::BFloat16", ElementType::Bf16},
        {"c10::Float8_e4m3fn", ElementType::Fp8},
        {"c10::Float8_e5m2", ElementType::Fp8},
        {"c10::Float8_e4m3fnuz", ElementType::Fp8},
        {"c10::Float8_e5m2fnuz", ElementType::Fp8},
        {"long int", ElementType::Int64},
        {"long", ElementType::Int64},
        {"int64_t", ElementType::Int64},
        {"int", ElementType::Int32},
        {"short int", ElementType::Int16},
        {"short", ElementType::Int16},
        {"signed char", ElementType::Int8},
        {"unsigned char", ElementType::Int8},
        {"bool", ElementType::Bool},
    };
    for (const auto& [text, type] : kNames) {
        if (text == name)
            return type;
    }
    return ElementType::Unknown;
}

std::optional<std::int64_t> ShapeInput::elements() const { return hasShape ? checkedProduct(dims) : std::nullopt; }

std::optional<std::int64_t> ShapeInput::bytes() const
{
    const int size = elementBytes(type);
    return size ? checkedMultiply(elements(), size) : std::nullopt;
}

const std::vector<std::int64_t>* ShapeArgs::dimsOfRank(std::size_t i, std::size_t rank) const
{
    const ShapeInput* in = input(i);
    return in && in->hasShape && in->dims.size() == rank ? &in->dims : nullptr;
}

std::optional<std::vector<std::int64_t>> ShapeArgs::concreteInts(std::size_t i) const
{
    const ShapeInput* in = input(i);
    if (!in)
        return std::nullopt;
    std::string_view text = trimmed(in->concrete);
    if (text.empty())
        return std::nullopt;
    if (text.front() == '[') {
        if (text.back() != ']')
            return std::nullopt;
        text = text.substr(1, text.size() - 2);
    }
    std::vector<std::int64_t> values;
    while (!trimmed(text).empty()) {
        const std::size_t comma = text.find(',');
        const std::string_view item = trimmed(text.substr(0, comma));
        std::int64_t value = 0;
        const auto [end, error] = std::from_chars(item.data(), item.data() + item.size(), value);
        if (error != std::errc() || end != item.data() + item.size() || values.size() >= kMaxRank)
            return std::nullopt;
        values.push_back(value);
        text = comma == std::string_view::npos ? std::string_view() : text.substr(comma + 1);
    }
    return values;
}

std::optional<bool> ShapeArgs::concreteBool(std::size_t i) const
{
    const ShapeInput* in = input(i);
    if (!in)
        return std::nullopt;
    const std::string_view text = trimmed(in->concrete);
    if (text == "True" || text == "true" || text == "1")
        return true;
    if (text == "False" || text == "false" || text == "0")
        return false;
    return std::nullopt;
}

namespace {

// The shape args from their three JSON arrays (any may be missing).
ShapeArgs shapeArgsOf(const nlohmann::json* dims, const nlohmann::json* types, const nlohmann::json* concrete)
{
    ShapeArgs out;
    if (!dims || !dims->is_array())
        return out;
    out.recorded = true;
    if (dims->size() > 4096) { // ops take a few dozen inputs; a longer list is a broken file
        out.warnings.push_back("more than 4096 inputs");
        return out;
    }
    if (types && !types->is_array())
        types = nullptr;
    if (concrete && !concrete->is_array())
        concrete = nullptr;
    out.inputs.resize(dims->size());
    for (std::size_t i = 0; i < dims->size(); ++i) {
        ShapeInput& input = out.inputs[i];
        if (types && i < types->size() && (*types)[i].is_string()) {
            input.typeName = (*types)[i].get<std::string>();
            input.type = elementTypeFromName(input.typeName);
        }
        if (concrete && i < concrete->size() && (*concrete)[i].is_string())
            input.concrete = (*concrete)[i].get<std::string>();
        const auto& d = (*dims)[i];
        // Scalars and None have [] dims; a 0-d tensor also has [] but a tensor type.
        const bool tensorType = input.type != ElementType::Unknown;
        if (d.is_array() && d.empty() && !tensorType)
            continue;
        input.hasShape = readDims(d, i, input, out.warnings);
    }
    return out;
}

// The members of an object at c.p ('{'), walked as the loader's parser walks an event and its
// args (core/loading/eventparser.cpp): stray commas pass, every value is one skipValue() long.
// member(key) reads the value at c.p.
template <class Member>
json::Status walkMembers(json::Cursor& c, std::string& scratch, Member member)
{
    ++c.p;
    while (true) {
        if (!json::skipSpace(c))
            return json::Status::Incomplete;
        if (*c.p == '}') {
            ++c.p;
            return json::Status::Ok;
        }
        if (*c.p == ',') {
            ++c.p;
            continue;
        }
        if (*c.p != '"')
            return json::Status::Error;
        std::string_view key;
        if (const auto st = json::parseString(c, key, scratch); st != json::Status::Ok)
            return st;
        if (!json::skipSpace(c) || *c.p != ':')
            return json::Status::Error;
        ++c.p;
        if (!json::skipSpace(c))
            return json::Status::Incomplete;
        if (const auto st = member(key); st != json::Status::Ok)
            return st;
    }
}

} // namespace

std::optional<RawShapeArgs> findShapeArgs(std::string_view eventText)
{
    // Escaped text (rare) is left to the full parse.
    if (eventText.find('\\') != std::string_view::npos)
        return std::nullopt;
    json::Cursor c{eventText.data(), eventText.data() + eventText.size()};
    if (!json::skipSpace(c) || *c.p != '{')
        return std::nullopt;
    RawShapeArgs raw;
    std::string_view oldDims; // "Input dims", of older torch versions
    bool arrays = true;
    std::string scratch; // never used: the text has no escapes
    const auto argsMember = [&](std::string_view key) {
        std::string_view* slot = key == "Input Dims" ? &raw.dims
            : key == "Input dims"                    ? &oldDims
            : key == "Input type"                    ? &raw.types
            : key == "Concrete Inputs"               ? &raw.concrete
                                                     : nullptr;
        const char* start = c.p;
        arrays &= !slot || *start == '[';
        const auto st = json::skipValue(c);
        if (slot)
            *slot = std::string_view(start, static_cast<std::size_t>(c.p - start));
        return st;
    };
    const auto eventMember = [&](std::string_view key) {
        return key == "args" && *c.p == '{' ? walkMembers(c, scratch, argsMember) : json::skipValue(c);
    };
    if (walkMembers(c, scratch, eventMember) != json::Status::Ok || !arrays)
        return std::nullopt;
    if (raw.dims.empty())
        raw.dims = oldDims;
    return raw;
}

ShapeArgs parseShapeArgs(const RawShapeArgs& raw)
{
    if (raw.dims.empty())
        return {};
    const nlohmann::json dims = parseEvent(raw.dims);
    const nlohmann::json types = raw.types.empty() ? nlohmann::json() : parseEvent(raw.types);
    const nlohmann::json concrete = raw.concrete.empty() ? nlohmann::json() : parseEvent(raw.concrete);
    return shapeArgsOf(&dims, raw.types.empty() ? nullptr : &types, raw.concrete.empty() ? nullptr : &concrete);
}

ShapeArgs parseShapeArgs(std::string_view eventText)
{
    if (const auto raw = findShapeArgs(eventText))
        return parseShapeArgs(*raw);
    const auto event = parseEvent(eventText);
    if (!event.is_object())
        return {};
    const auto args = event.find("args");
    if (args == event.end() || !args->is_object())
        return {};
    return shapeArgsOf(arrayArg(*args, {"Input Dims", "Input dims"}), arrayArg(*args, {"Input type"}),
                       arrayArg(*args, {"Concrete Inputs"}));
}

std::optional<std::int64_t> checkedProduct(const std::vector<std::int64_t>& factors)
{
    std::int64_t product = 1;
    for (const std::int64_t f : factors) {
        if (f < 0 || __builtin_mul_overflow(product, f, &product))
            return std::nullopt;
    }
    return product;
}

std::optional<std::int64_t> checkedProduct(std::initializer_list<std::int64_t> factors)
{
    return checkedProduct(std::vector<std::int64_t>(factors));
}

std::optional<std::int64_t> checkedMultiply(std::optional<std::int64_t> a, std::optional<std::int64_t> b)
{
    std::int64_t product = 0;
    if (!a || !b || *a < 0 || *b < 0 || __builtin_mul_overflow(*a, *b, &product))
        return std::nullopt;
    return product;
}

std::optional<std::int64_t> checkedAdd(std::optional<std::int64_t> a, std::optional<std::int64_t> b)
{
    std::int64_t sum = 0;
    if (!a || !b || *a < 0 || *b < 0 || __builtin_add_overflow(*a, *b, &sum))
        return std::nullopt;
    return sum;
}

} // namespace ks::analysis

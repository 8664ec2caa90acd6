#include "collector/host/torchops.h"

#include <algorithm>
#include <charconv>

namespace ks::collector {
namespace {

constexpr std::string_view kEvaluateFunction = "autograd::engine::evaluate_function: ";

// Reads the fields of an emit_nvtx range text after the name, in the order torch writes them.
class FieldReader {
public:
    explicit FieldReader(std::string_view rest)
        : m_rest(rest)
    {
    }

    bool atEnd() const { return m_rest.empty(); }

    // ", <key> = " at the current place; consumed when present.
    bool key(std::string_view key)
    {
        if (m_rest.size() < key.size() + 5 || m_rest.substr(0, 2) != ", " || m_rest.substr(2, key.size()) != key
            || m_rest.substr(2 + key.size(), 3) != " = ")
            return false;
        m_rest.remove_prefix(key.size() + 5);
        return true;
    }

    bool integer(std::int64_t& value)
    {
        const auto [end, ec] = std::from_chars(m_rest.data(), m_rest.data() + m_rest.size(), value);
        if (ec != std::errc() || end == m_rest.data())
            return false;
        m_rest.remove_prefix(static_cast<std::size_t>(end - m_rest.data()));
        return true;
    }

    // A Python list of lists of integers ("[[16, 128], [], [3]]"), written to `json` compactly.
    bool integerLists(std::string& json, int depth = 0)
    {
        if (depth > 8 || !consume('['))
            return false;
        json += '[';
        if (consume(']'))
            return json += ']', true;
        for (;;) {
            if (!m_rest.empty() && m_rest.front() == '[') {
                if (!integerLists(json, depth + 1))
                    return false;
            } else {
                std::int64_t v = 0;
                if (!integer(v))
                    return false;
                json += std::to_string(v);
            }
            if (consume(']'))
                return json += ']', true;
            if (!consume(',') || !consume(' '))
                return false;
            json += ',';
        }
    }

    // input_op_ids = [(0,-1), (1,0)]: checked for shape, not kept.
    bool opIdPairs()
    {
        if (!consume('['))
            return false;
        const auto close = m_rest.find(']');
        if (close == std::string_view::npos
            || m_rest.substr(0, close).find_first_not_of("0123456789-(), ") != std::string_view::npos)
            return false;
        m_rest.remove_prefix(close + 1);
        return true;
    }

private:
    bool consume(char c)
    {
        if (m_rest.empty() || m_rest.front() != c)
            return false;
        m_rest.remove_prefix(1);
        return true;
    }

    std::string_view m_rest;
};

bool isBackwardNodeName(std::string_view name)
{
    const auto digits = name.find_last_not_of("0123456789");
    if (digits == std::string_view::npos)
        return false;
    const auto stem = name.substr(0, digits + 1);
    constexpr std::string_view kBackward = "Backward";
    return stem.size() > kBackward.size() && stem.substr(stem.size() - kBackward.size()) == kBackward;
}

} // namespace

std::string_view evaluatedNodeName(std::string_view name)
{
    return name.substr(0, kEvaluateFunction.size()) == kEvaluateFunction ? name.substr(kEvaluateFunction.size())
                                                                         : std::string_view();
}

namespace {

std::size_t opFieldsAt(std::string_view text) { return std::min(text.find(", seq = "), text.find(", op_id = ")); }

} // namespace

bool looksLikeNvtxOp(std::string_view text) { return opFieldsAt(text) != std::string_view::npos; }

NvtxOpParse parseNvtxOp(std::string_view text, NvtxOp& op)
{
    const auto fields = opFieldsAt(text);
    if (fields == std::string_view::npos)
        return NvtxOpParse::NotAnOp;
    op = NvtxOp();
    op.name = text.substr(0, fields);
    FieldReader r(text.substr(fields));
    if (r.key("seq") && (!r.integer(op.sequence) || op.sequence < 0))
        return NvtxOpParse::Malformed;
    if (r.key("op_id") && (!r.integer(op.opId) || op.opId < 0))
        return NvtxOpParse::Malformed;
    if (r.key("sizes") && !r.integerLists(op.inputDims))
        return NvtxOpParse::Malformed;
    if (r.key("input_op_ids") && !r.opIdPairs())
        return NvtxOpParse::Malformed;
    if (!r.atEnd() || op.name.empty())
        return NvtxOpParse::Malformed;
    op.backward = !evaluatedNodeName(op.name).empty() || isBackwardNodeName(op.name);
    // kineto files record_function scopes (user scope) as user_annotation: they carry no
    // sequence number and no namespace, unlike aten::/c10d::/autograd:: operators.
    op.label = !op.backward && op.sequence < 0 && op.name.find("::") == std::string_view::npos;
    return NvtxOpParse::Op;
}

} // namespace ks::collector

#pragma once
// A JSON document read flat through nlohmann's SAX interface, without a DOM: each scalar member
// of an object by its dotted path ("identity.rank"), each array of scalars as a column by its
// path ("collectives.start"). Rank summaries (format version 2) are such documents: reading
// 1,024 of them is numbers appended to vectors, not a tree node per value. Subtrees whose path is
// named in `skipped` are tokenized but not kept; containers nested in arrays mark the column
// `mixed` (a document of another shape, e.g. an older format version) and are skipped too.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <variant>
#include <vector>

namespace ks::analysis {

class ColumnarJson {
public:
    using Scalar = std::variant<std::monostate, bool, std::int64_t, double, std::string>;
    struct Column {
        std::vector<std::int64_t> numbers; // integers, and booleans as 0/1
        std::vector<std::string> strings;
        bool mixed = false; // also held something else: floats, nulls, containers, numbers and strings
    };

    // False when the text is not valid JSON (error() says where).
    bool parse(std::string_view text, const std::vector<std::string>& skipped = {});
    const std::string& error() const { return m_error; }
    bool isObject() const { return m_isObject; } // the top level is an object

    const Scalar* scalar(const std::string& path) const;
    const std::int64_t* integer(const std::string& path) const; // nullptr: absent or not an integer
    const std::string* string(const std::string& path) const;
    std::optional<bool> boolean(const std::string& path) const;
    const Column* column(const std::string& path) const; // nullptr: absent or not an array

private:
    friend class ColumnarJsonHandler;
    std::unordered_map<std::string, Scalar> m_scalars;
    std::unordered_map<std::string, Column> m_columns;
    std::string m_error;
    bool m_isObject = false;
};

} // namespace ks::analysis

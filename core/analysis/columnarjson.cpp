#include "core/analysis/columnarjson.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <limits>

namespace ks::analysis {

// The SAX events of nlohmann's parser, turned into ColumnarJson's scalars and columns.
class ColumnarJsonHandler {
public:
    using Json = nlohmann::json;

    ColumnarJsonHandler(ColumnarJson& doc, const std::vector<std::string>& skipped)
        : m_doc(doc)
        , m_skipped(skipped)
    {
    }

    bool null() { return value(ColumnarJson::Scalar{}); }
    bool boolean(bool v) { return value(ColumnarJson::Scalar{v}); }
    bool number_integer(Json::number_integer_t v) { return value(ColumnarJson::Scalar{std::int64_t(v)}); }
    bool number_unsigned(Json::number_unsigned_t v)
    {
        if (v > static_cast<Json::number_unsigned_t>(std::numeric_limits<std::int64_t>::max()))
            return value(ColumnarJson::Scalar{double(v)}); // too large for the int64 the readers use
        return value(ColumnarJson::Scalar{std::int64_t(v)});
    }
    bool number_float(Json::number_float_t v, const Json::string_t&) { return value(ColumnarJson::Scalar{v}); }
    bool string(Json::string_t& v) { return value(ColumnarJson::Scalar{std::move(v)}); }
    bool binary(Json::binary_t&) { return value(ColumnarJson::Scalar{}); }

    bool start_object(std::size_t) { return open(false); }
    bool start_array(std::size_t) { return open(true); }
    bool end_object() { return close(); }
    bool end_array() { return close(); }

    bool key(Json::string_t& k)
    {
        if (m_skipDepth == 0)
            m_path = m_frames.back().path.empty() ? k : m_frames.back().path + '.' + k;
        return true;
    }

    bool parse_error(std::size_t, const std::string&, const nlohmann::detail::exception& e)
    {
        m_doc.m_error = e.what();
        return false;
    }

private:
    struct Frame {
        std::string path;
        ColumnarJson::Column* column = nullptr; // for an array: where its scalars go
    };

    bool open(bool array)
    {
        if (m_skipDepth > 0) {
            ++m_skipDepth;
            return true;
        }
        if (m_frames.empty()) {
            m_doc.m_isObject = !array;
            if (array)
                m_skipDepth = 1; // a top-level array is no document of ours
            else
                m_frames.push_back({});
            return true;
        }
        if (Frame& top = m_frames.back(); top.column) { // a container inside an array
            top.column->mixed = true;
            m_skipDepth = 1;
            return true;
        }
        if (std::find(m_skipped.begin(), m_skipped.end(), m_path) != m_skipped.end()) {
            m_skipDepth = 1;
            return true;
        }
        m_frames.push_back({m_path, array ? &m_doc.m_columns[m_path] : nullptr});
        return true;
    }

    bool close()
    {
        if (m_skipDepth > 0)
            --m_skipDepth;
        else if (!m_frames.empty())
            m_frames.pop_back();
        return true;
    }

    bool value(ColumnarJson::Scalar&& v)
    {
        if (m_skipDepth > 0 || m_frames.empty())
            return true;
        ColumnarJson::Column* column = m_frames.back().column;
        if (!column) {
            m_doc.m_scalars[m_path] = std::move(v);
            return true;
        }
        if (const auto* n = std::get_if<std::int64_t>(&v))
            column->numbers.push_back(*n);
        else if (const auto* b = std::get_if<bool>(&v))
            column->numbers.push_back(*b ? 1 : 0);
        else if (auto* s = std::get_if<std::string>(&v))
            column->strings.push_back(std::move(*s));
        else
            column->mixed = true;
        return true;
    }

    ColumnarJson& m_doc;
    const std::vector<std::string>& m_skipped;
    std::vector<Frame> m_frames;
    std::string m_path; // of the value that comes next in an object
    int m_skipDepth = 0;
};

bool ColumnarJson::parse(std::string_view text, const std::vector<std::string>& skipped)
{
    *this = ColumnarJson();
    ColumnarJsonHandler handler(*this, skipped);
    const bool ok = nlohmann::json::sax_parse(text.begin(), text.end(), &handler);
    if (ok) {
        for (auto& [path, column] : m_columns)
            column.mixed = column.mixed || (!column.numbers.empty() && !column.strings.empty());
    }
    return ok;
}

const ColumnarJson::Scalar* ColumnarJson::scalar(const std::string& path) const
{
    const auto it = m_scalars.find(path);
    return it == m_scalars.end() ? nullptr : &it->second;
}

const std::int64_t* ColumnarJson::integer(const std::string& path) const
{
    const Scalar* s = scalar(path);
    return s ? std::get_if<std::int64_t>(s) : nullptr;
}

const std::string* ColumnarJson::string(const std::string& path) const
{
    const Scalar* s = scalar(path);
    return s ? std::get_if<std::string>(s) : nullptr;
}

std::optional<bool> ColumnarJson::boolean(const std::string& path) const
{
    const Scalar* s = scalar(path);
    const bool* b = s ? std::get_if<bool>(s) : nullptr;
    return b ? std::optional<bool>(*b) : std::nullopt;
}

const ColumnarJson::Column* ColumnarJson::column(const std::string& path) const
{
    const auto it = m_columns.find(path);
    return it == m_columns.end() ? nullptr : &it->second;
}

} // namespace ks::analysis

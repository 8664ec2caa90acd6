#include "core/query/queryoutput.h"

#include <nlohmann/json.hpp>

#include <cmath>

namespace ks::query {

namespace {

std::string jsonString(std::string_view text)
{
    return nlohmann::json(std::string(text)).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

std::string hex(std::string_view bytes)
{
    static constexpr char kDigits[] = "0123456789abcdef";
    std::string out;
    out.reserve(bytes.size() * 2);
    for (const char c : bytes) {
        const auto b = static_cast<unsigned char>(c);
        out += kDigits[b >> 4];
        out += kDigits[b & 15];
    }
    return out;
}

std::string realText(double value)
{
    // The shortest round-trip form, as the JSON output writes it.
    using nlohmann::json;
    return json(value).dump(-1, ' ', false, json::error_handler_t::replace);
}

// The value as plain text: what the text and CSV outputs show (NULL is empty).
std::string plainText(const QueryValue& value)
{
    switch (value.type) {
    case QueryValue::Type::Null: return {};
    case QueryValue::Type::Integer: return std::to_string(value.integer);
    case QueryValue::Type::Real: return realText(value.real);
    case QueryValue::Type::Text: return std::string(value.text);
    case QueryValue::Type::Blob: return hex(value.text);
    }
    return {};
}

} // namespace

std::string csvField(std::string_view text)
{
    if (text.find_first_of(",\"\r\n") == std::string_view::npos)
        return std::string(text);
    std::string out = "\"";
    for (const char c : text) {
        if (c == '"')
            out += '"';
        out += c;
    }
    out += '"';
    return out;
}

void appendJsonValue(std::string& out, const QueryValue& value)
{
    switch (value.type) {
    case QueryValue::Type::Null: out += "null"; break;
    case QueryValue::Type::Integer: out += std::to_string(value.integer); break;
    case QueryValue::Type::Real: out += std::isfinite(value.real) ? realText(value.real) : "null"; break;
    case QueryValue::Type::Text: out += jsonString(value.text); break;
    case QueryValue::Type::Blob: out += jsonString(hex(value.text)); break;
    }
}

bool writeQueryResult(QueryCursor& cursor, std::ostream& out, OutputFormat format, QueryError& error)
{
    const auto& columns = cursor.columns();
    const int count = static_cast<int>(columns.size());
    std::vector<std::string> keys; // JSON: "name": per column
    std::string line;
    switch (format) {
    case OutputFormat::Json:
        line = "{\"columns\": [";
        for (int c = 0; c < count; ++c) {
            keys.push_back(jsonString(columns[c]) + ": ");
            line += (c ? ", " : "") + jsonString(columns[c]);
        }
        line += "], \"rows\": [";
        break;
    case OutputFormat::Csv:
    case OutputFormat::Text:
        for (int c = 0; c < count; ++c) {
            line += c ? (format == OutputFormat::Csv ? "," : "\t") : "";
            line += format == OutputFormat::Csv ? csvField(columns[c]) : columns[c];
        }
        line += format == OutputFormat::Csv ? "\r\n" : "\n";
        break;
    }
    out << line;
    bool first = true;
    while (cursor.next(error)) {
        line.clear();
        if (format == OutputFormat::Json) {
            line += first ? "\n{" : ",\n{";
            for (int c = 0; c < count; ++c) {
                line += c ? ", " : "";
                line += keys[c];
                appendJsonValue(line, cursor.value(c));
            }
            line += '}';
        } else {
            for (int c = 0; c < count; ++c) {
                line += c ? (format == OutputFormat::Csv ? "," : "\t") : "";
                const std::string text = plainText(cursor.value(c));
                line += format == OutputFormat::Csv ? csvField(text) : text;
            }
            line += format == OutputFormat::Csv ? "\r\n" : "\n";
        }
        out << line;
        first = false;
    }
    if (format == OutputFormat::Json)
        out << (first ? "]}\n" : "\n]}\n");
    out.flush();
    return !error.failed();
}

} // namespace ks::query

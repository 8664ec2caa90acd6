#include "core/loading/eventparser.h"

#include "core/model/timelimits.h"

#include <cmath>
#include <cstring>
#include <limits>

namespace ks {

using json::Cursor;
using json::Status;

namespace {

#define KS_TRY(expr)                                                                                                   \
    do {                                                                                                               \
        const Status ks_status = (expr);                                                                               \
        if (ks_status != Status::Ok)                                                                                   \
            return ks_status;                                                                                          \
    } while (0)

// Moves past ':' after a key.
Status expectColon(Cursor& c)
{
    if (!json::skipSpace(c))
        return Status::Incomplete;
    if (*c.p != ':')
        return c.fail("expected ':' after a key");
    ++c.p;
    return json::skipSpace(c) ? Status::Ok : Status::Incomplete;
}

bool equals(std::string_view a, const char* b)
{
    return a.size() == std::strlen(b) && std::memcmp(a.data(), b, a.size()) == 0;
}

// Field bits for duplicate-key detection.
enum Field : std::uint32_t {
    kPh = 1,
    kName = 2,
    kCat = 4,
    kPid = 8,
    kTid = 16,
    kTs = 32,
    kDur = 64,
    kId = 128,
    kArgs = 256,
};

} // namespace

Status EventParser::parseStringField(Cursor& c, std::string_view& out, std::string& scratch, RawEvent& ev)
{
    if (*c.p == '"')
        return json::parseString(c, out, scratch);
    if (*c.p == '{' || *c.p == '[') {
        ++ev.droppedFields;
        out = {};
        return json::skipValue(c);
    }
    // A number or literal where text was expected: keep its spelling (numeric names).
    return json::scanScalar(c, out);
}

Status EventParser::parseIdField(Cursor& c, JsonId& out, bool& has, RawEvent& ev, StringPool& interner)
{
    if (*c.p == '"') {
        std::string_view text;
        KS_TRY(json::parseString(c, text, m_text));
        out = JsonId::fromText(interner.intern(text)); // the pool makes it valid UTF-8
        has = true;
        return Status::Ok;
    }
    if (*c.p == '{' || *c.p == '[') {
        ++ev.droppedFields;
        return json::skipValue(c);
    }
    std::string_view token;
    KS_TRY(json::scanScalar(c, token));
    std::int64_t v;
    if (json::parseInt64(token, v)) {
        out = JsonId::fromNumber(v);
        has = true;
    } else {
        ++ev.droppedFields;
    }
    return Status::Ok;
}

Status EventParser::parseTimeField(Cursor& c, TimeNs& out, bool& has, bool& bad)
{
    std::string_view token;
    if (*c.p == '"') { // numeric strings are accepted
        KS_TRY(json::parseString(c, token, m_text));
    } else if (*c.p == '{' || *c.p == '[') {
        bad = true;
        return json::skipValue(c);
    } else {
        KS_TRY(json::scanScalar(c, token));
    }
    // Fast path for kineto's "123.456": integer digits, a dot, exactly three decimals.
    const char* p = token.data();
    const char* e = p + token.size();
    std::int64_t v = 0;
    const char* q = p;
    while (q < e && *q >= '0' && *q <= '9' && q - p < 15)
        v = v * 10 + (*q++ - '0');
    if (q > p && e - q == 4 && q[0] == '.' && q[1] >= '0' && q[1] <= '9' && q[2] >= '0' && q[2] <= '9' && q[3] >= '0'
        && q[3] <= '9') {
        out = v * 1000 + (q[1] - '0') * 100 + (q[2] - '0') * 10 + (q[3] - '0');
        has = true;
        return Status::Ok;
    }
    if (json::decimalToScaled(token, 3, v) && v >= -kMaxTimeNs && v <= kMaxTimeNs) {
        out = v;
        has = true;
    } else {
        bad = true;
    }
    return Status::Ok;
}

Status EventParser::parseFlag(Cursor& c, bool& out, RawEvent& ev)
{
    if (*c.p == '"' || *c.p == '{' || *c.p == '[') {
        ++ev.droppedFields;
        return json::skipValue(c);
    }
    std::string_view token;
    KS_TRY(json::scanScalar(c, token));
    out = token == "true";
    return Status::Ok;
}

Status EventParser::parseFlowId(Cursor& c, std::uint64_t& out, bool& has)
{
    if (*c.p == '"') {
        // String ids are hex, as Perfetto reads them ("0x1f" or "1f"); other text is hashed.
        std::string_view text;
        KS_TRY(json::parseString(c, text, m_text));
        std::string_view digits = text;
        if (digits.size() > 2 && digits[0] == '0' && (digits[1] == 'x' || digits[1] == 'X'))
            digits.remove_prefix(2);
        std::uint64_t v = 0;
        bool hex = !digits.empty() && digits.size() <= 16;
        for (char ch : digits) {
            const int h = (ch >= '0' && ch <= '9') ? ch - '0'
                : (ch >= 'a' && ch <= 'f')         ? ch - 'a' + 10
                : (ch >= 'A' && ch <= 'F')         ? ch - 'A' + 10
                                                   : -1;
            if (h < 0) {
                hex = false;
                break;
            }
            v = v * 16 + static_cast<unsigned>(h);
        }
        if (!hex) {
            v = 1469598103934665603ull;
            for (char ch : text)
                v = (v ^ static_cast<unsigned char>(ch)) * 1099511628211ull;
        }
        out = v;
        has = true;
        return Status::Ok;
    }
    if (*c.p == '{' || *c.p == '[')
        return json::skipValue(c);
    std::string_view token;
    KS_TRY(json::scanScalar(c, token));
    std::int64_t signedValue;
    if (json::parseUint64(token, out)) {
        has = true;
    } else if (json::parseInt64(token, signedValue)) {
        out = static_cast<std::uint64_t>(signedValue);
        has = true;
    }
    return Status::Ok;
}

Status EventParser::parseNumber(Cursor& c, double& out, bool& ok)
{
    std::string_view token;
    if (*c.p == '"') {
        KS_TRY(json::parseString(c, token, m_text)); // kineto writes "inf" and "N/A"
    } else if (*c.p == '{' || *c.p == '[') {
        ok = false;
        return json::skipValue(c);
    } else {
        KS_TRY(json::scanScalar(c, token));
    }
    ok = json::parseDouble(token, out);
    return Status::Ok;
}

Status EventParser::parseInteger(Cursor& c, std::int64_t& out, bool& ok)
{
    std::string_view token;
    if (*c.p == '"') {
        KS_TRY(json::parseString(c, token, m_text));
    } else if (*c.p == '{' || *c.p == '[') {
        ok = false;
        return json::skipValue(c);
    } else {
        KS_TRY(json::scanScalar(c, token));
    }
    ok = json::parseInt64(token, out);
    return Status::Ok;
}

Status EventParser::parseTriple(Cursor& c, std::int32_t (&out)[3])
{
    if (*c.p != '[')
        return json::skipValue(c);
    const char* start = c.p;
    KS_TRY(json::skipValue(c)); // validate the whole array first, then read it
    Cursor inner{start + 1, c.p};
    for (int i = 0; i < 3 && json::skipSpace(inner); ++i) {
        if (*inner.p == ',')
            ++inner.p;
        if (!json::skipSpace(inner))
            break;
        std::string_view token;
        if (json::scanScalar(inner, token) != Status::Ok)
            break;
        std::int64_t v;
        if (json::parseInt64(token, v))
            out[i] = static_cast<std::int32_t>(v);
    }
    return Status::Ok;
}

// `out` null: the value is skipped (an "Input dims" after "Input Dims").
Status EventParser::parseShapeArray(Cursor& c, std::string_view* out, RawEvent& ev)
{
    ev.shapeArgsSeen = true;
    if (*c.p != '[')
        ev.shapeArgsUsable = false; // findShapeArgs leaves such an event to the full parse
    const char* start = c.p;
    KS_TRY(json::skipValue(c));
    if (out)
        *out = std::string_view(start, static_cast<std::size_t>(c.p - start));
    return Status::Ok;
}

Status EventParser::parseArgs(Cursor& c, RawEvent& ev)
{
    ev.argsBegin = c.p;
    ++c.p;
    auto& a = ev.args;
    while (true) {
        if (!json::skipSpace(c))
            return Status::Incomplete;
        if (*c.p == '}') {
            ++c.p;
            ev.argsEnd = c.p;
            return Status::Ok;
        }
        if (*c.p == ',') {
            ++c.p;
            continue;
        }
        if (*c.p != '"')
            return c.fail("expected a key in args");
        std::string_view key;
        KS_TRY(json::parseString(c, key, m_key));
        KS_TRY(expectColon(c));
        bool ok = false;
        double d = 0;
        std::int64_t i = 0;
        switch (key.size()) {
        case 4:
            if (equals(key, "grid")) {
                KS_TRY(parseTriple(c, a.gpu.grid));
                a.hasGpuFields = true;
                continue;
            }
            if (equals(key, "name")) {
                KS_TRY(parseStringField(c, a.name, m_argName, ev));
                continue;
            }
            break;
        case 5:
            if (equals(key, "block")) {
                KS_TRY(parseTriple(c, a.gpu.block));
                continue;
            }
            if (equals(key, "bytes")) {
                KS_TRY(parseInteger(c, i, ok));
                if (ok)
                    a.gpu.bytes = i;
                continue;
            }
            break;
        case 6:
            if (equals(key, "device")) {
                KS_TRY(parseInteger(c, i, ok));
                if (ok)
                    a.gpu.device = static_cast<std::int32_t>(i);
                continue;
            }
            if (equals(key, "stream")) {
                KS_TRY(parseInteger(c, i, ok));
                if (ok)
                    a.gpu.stream = i;
                continue;
            }
            if (equals(key, "labels")) {
                KS_TRY(parseStringField(c, a.labels, m_argLabels, ev));
                continue;
            }
            break;
        case 9:
            if (equals(key, "Device Id")) {
                KS_TRY(parseInteger(c, i, ok));
                if (ok)
                    a.deviceId = i;
                continue;
            }
            break;
        case 10:
            if (equals(key, "Input Dims")) {
                ev.newShapeDims = true;
                KS_TRY(parseShapeArray(c, &ev.shapeArgs.dims, ev));
                continue;
            }
            if (equals(key, "Input type")) {
                KS_TRY(parseShapeArray(c, &ev.shapeArgs.types, ev));
                continue;
            }
            if (equals(key, "Input dims")) {
                KS_TRY(parseShapeArray(c, ev.newShapeDims ? nullptr : &ev.shapeArgs.dims, ev));
                continue;
            }
            if (equals(key, "sort_index")) {
                KS_TRY(parseInteger(c, i, ok));
                if (ok) {
                    a.sortIndex = i;
                    a.hasSortIndex = true;
                }
                continue;
            }
            break;
        case 11:
            if (equals(key, "correlation")) {
                KS_TRY(parseInteger(c, i, ok));
                if (ok)
                    a.correlation = i;
                continue;
            }
            if (equals(key, "Device Type")) {
                KS_TRY(parseInteger(c, i, ok));
                if (ok)
                    a.deviceType = i;
                continue;
            }
            if (equals(key, "External id") || equals(key, "external id")) {
                KS_TRY(parseInteger(c, i, ok));
                if (ok)
                    a.externalId = i;
                continue;
            }
            break;
        case 12:
            if (equals(key, "warps per SM")) {
                KS_TRY(parseNumber(c, d, ok));
                if (ok)
                    a.gpu.warpsPerSm = static_cast<float>(d);
                continue;
            }
            break;
        case 13:
            if (equals(key, "blocks per SM")) {
                KS_TRY(parseNumber(c, d, ok));
                if (ok)
                    a.gpu.blocksPerSm = static_cast<float>(d);
                continue;
            }
            if (equals(key, "shared memory")) {
                KS_TRY(parseInteger(c, i, ok));
                if (ok)
                    a.gpu.sharedMemory = i;
                continue;
            }
            break;
        case 14:
            if (equals(key, "Total Reserved")) {
                KS_TRY(parseInteger(c, i, ok));
                if (ok)
                    a.totalReserved = i;
                continue;
            }
            break;
        case 15:
            if (equals(key, "Concrete Inputs")) {
                KS_TRY(parseShapeArray(c, &ev.shapeArgs.concrete, ev));
                continue;
            }
            if (equals(key, "Total Allocated")) {
                KS_TRY(parseInteger(c, i, ok));
                if (ok)
                    a.totalAllocated = i;
                continue;
            }
            break;
        case 20:
            if (equals(key, "registers per thread")) {
                KS_TRY(parseInteger(c, i, ok));
                if (ok)
                    a.gpu.registersPerThread = static_cast<std::int32_t>(i);
                continue;
            }
            break;
        case 25:
            if (equals(key, "est. achieved occupancy %")) {
                KS_TRY(parseNumber(c, d, ok));
                if (ok && d >= 0)
                    a.gpu.estAchievedOccupancyPct = static_cast<float>(d);
                continue;
            }
            break;
        default: break;
        }
        KS_TRY(json::skipValue(c));
    }
}

Status EventParser::parse(Cursor& c, RawEvent& ev, StringPool& interner)
{
    ++c.p; // '{'
    std::uint32_t seen = 0;
    auto mark = [&](Field f) {
        if (seen & f)
            ++ev.duplicateKeys;
        seen |= f;
    };
    while (true) {
        if (!json::skipSpace(c))
            return Status::Incomplete;
        const char ch = *c.p;
        if (ch == '}') {
            ++c.p;
            return Status::Ok;
        }
        if (ch == ',') { // also tolerates a trailing comma
            ++c.p;
            continue;
        }
        if (ch != '"')
            return c.fail("expected a key or '}' in an event");
        std::string_view key;
        KS_TRY(json::parseString(c, key, m_key));
        KS_TRY(expectColon(c));
        switch (key.size()) {
        case 2:
            if (key[0] == 'p' && key[1] == 'h') {
                mark(kPh);
                std::string_view ph;
                const bool isText = *c.p == '"';
                KS_TRY(parseStringField(c, ph, m_ph, ev));
                // A non-ASCII first byte is no phase; '?' keeps it out of texts as a stray byte.
                // Nor is the spelling of a number or literal: null would read as 'n' and NaN
                // as 'N', and a writer that turns NaN into null would change the event's kind.
                const bool known = isText && static_cast<unsigned char>(ph[0]) < 0x80;
                ev.ph = ph.empty() ? 0 : known ? ph[0] : '?';
                continue;
            }
            if (key[0] == 't' && key[1] == 's') {
                mark(kTs);
                KS_TRY(parseTimeField(c, ev.ts, ev.hasTs, ev.badTs));
                continue;
            }
            if (key[0] == 'i' && key[1] == 'd') {
                mark(kId);
                KS_TRY(parseFlowId(c, ev.id, ev.hasId));
                continue;
            }
            if (key[0] == 'b' && key[1] == 'p') {
                KS_TRY(parseStringField(c, ev.bp, m_bp, ev));
                continue;
            }
            break;
        case 3:
            if (equals(key, "pid")) {
                mark(kPid);
                KS_TRY(parseIdField(c, ev.pid, ev.hasPid, ev, interner));
                continue;
            }
            if (equals(key, "tid")) {
                mark(kTid);
                KS_TRY(parseIdField(c, ev.tid, ev.hasTid, ev, interner));
                continue;
            }
            if (equals(key, "cat")) {
                mark(kCat);
                KS_TRY(parseStringField(c, ev.category, m_category, ev));
                ev.hasCategory = true;
                continue;
            }
            if (equals(key, "dur")) {
                mark(kDur);
                KS_TRY(parseTimeField(c, ev.dur, ev.hasDur, ev.badDur));
                continue;
            }
            break;
        case 4:
            if (equals(key, "name")) {
                mark(kName);
                KS_TRY(parseStringField(c, ev.name, m_name, ev));
                ev.hasName = true;
                continue;
            }
            if (equals(key, "args")) {
                mark(kArgs);
                if (*c.p == '{') {
                    KS_TRY(parseArgs(c, ev));
                } else {
                    ++ev.droppedFields;
                    KS_TRY(json::skipValue(c));
                }
                continue;
            }
            break;
        case 1:
            if (key[0] == 's') {
                KS_TRY(parseStringField(c, ev.scope, m_scope, ev));
                continue;
            }
            break;
        case 7:
            if (equals(key, "bind_id")) {
                KS_TRY(parseFlowId(c, ev.bindId, ev.hasBindId));
                continue;
            }
            if (equals(key, "flow_in")) {
                KS_TRY(parseFlag(c, ev.flowIn, ev));
                continue;
            }
            break;
        case 8:
            if (equals(key, "flow_out")) {
                KS_TRY(parseFlag(c, ev.flowOut, ev));
                continue;
            }
            break;
        default: break;
        }
        KS_TRY(json::skipValue(c));
    }
}

std::vector<std::pair<std::string, double>> numericArgs(const char* begin, const char* end)
{
    std::vector<std::pair<std::string, double>> out;
    Cursor c{begin + 1, end};
    std::string keyScratch, valueScratch;
    while (json::skipSpace(c) && *c.p != '}') {
        if (*c.p == ',') {
            ++c.p;
            continue;
        }
        std::string_view key;
        if (*c.p != '"' || json::parseString(c, key, keyScratch) != Status::Ok)
            break;
        std::string keyCopy(key); // counter names are made valid UTF-8 by the builder
        if (expectColon(c) != Status::Ok)
            break;
        double v = 0;
        bool ok = false;
        if (*c.p == '"') {
            std::string_view text;
            if (json::parseString(c, text, valueScratch) != Status::Ok)
                break;
            ok = json::parseDouble(text, v);
        } else if (*c.p == '{' || *c.p == '[') {
            if (json::skipValue(c) != Status::Ok)
                break;
        } else {
            std::string_view token;
            if (json::scanScalar(c, token) != Status::Ok)
                break;
            ok = json::parseDouble(token, v);
        }
        if (ok)
            out.emplace_back(std::move(keyCopy), v);
    }
    return out;
}

} // namespace ks

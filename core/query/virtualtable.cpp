#include "core/query/virtualtable.h"

#include <sqlite3.h>

#include <algorithm>
#include <cmath>
#include <string>

namespace ks::query {

namespace {

constexpr int kArgsWanted = 1; // idxNum bit: the query reads a column made from args
constexpr std::size_t kArgsBatchRows = 4096;

struct Table : sqlite3_vtab {
    const TraceTable* table = nullptr;
};

struct Cursor : sqlite3_vtab_cursor {
    const TraceTable* table = nullptr;
    std::vector<Segment> segments;
    std::size_t segment = 0;
    std::uint64_t row = 0;
    bool wantArgs = false;
    ArgsBatch args;

    bool atEnd() const { return segment >= segments.size(); }

    // Moves to the first row at or after the current position that the table contains.
    void settle()
    {
        while (!atEnd()) {
            if (row >= segments[segment].end) {
                if (++segment < segments.size())
                    row = segments[segment].begin;
                continue;
            }
            if (table->contains(row))
                break;
            ++row;
        }
        if (!atEnd() && wantArgs && !args.holds(table->sliceOf(row)))
            loadArgsAhead();
    }

    void loadArgsAhead()
    {
        std::vector<SliceId> slices;
        std::size_t s = segment;
        std::uint64_t r = row;
        while (s < segments.size() && slices.size() < kArgsBatchRows) {
            if (r >= segments[s].end) {
                if (++s < segments.size())
                    r = segments[s].begin;
                continue;
            }
            if (table->contains(r))
                slices.push_back(table->sliceOf(r));
            ++r;
        }
        args.load(table->trace(), std::move(slices));
    }
};

TimeNs clampedTime(double value, bool up)
{
    constexpr double kLimit = 9.2e18;
    if (value >= kLimit)
        return std::numeric_limits<TimeNs>::max();
    if (value <= -kLimit)
        return std::numeric_limits<TimeNs>::min();
    return static_cast<TimeNs>(up ? std::ceil(value) : std::floor(value));
}

// A bound that keeps every matching row: floats are rounded outwards; text, blobs and NULL
// give none (SQLite compares those by its own rules).
std::optional<TimeNs> numericBound(sqlite3_value* value, bool up)
{
    switch (sqlite3_value_numeric_type(value)) {
    case SQLITE_INTEGER: return sqlite3_value_int64(value);
    case SQLITE_FLOAT: {
        const double d = sqlite3_value_double(value);
        if (std::isnan(d))
            return std::nullopt;
        return clampedTime(d, up);
    }
    default: return std::nullopt;
    }
}

std::optional<std::int64_t> exactInteger(sqlite3_value* value)
{
    switch (sqlite3_value_numeric_type(value)) {
    case SQLITE_INTEGER: return sqlite3_value_int64(value);
    case SQLITE_FLOAT: {
        const double d = sqlite3_value_double(value);
        if (std::isfinite(d) && d == std::floor(d) && std::abs(d) < 9.0e18)
            return static_cast<std::int64_t>(d);
        return std::nullopt;
    }
    default: return std::nullopt;
    }
}

int connect(sqlite3* db, void* aux, int, const char* const*, sqlite3_vtab** out, char**)
{
    auto* table = static_cast<const TraceTable*>(aux);
    const int rc = sqlite3_declare_vtab(db, table->schema());
    if (rc != SQLITE_OK)
        return rc;
    auto* vtab = new Table();
    vtab->table = table;
    *out = vtab;
    return SQLITE_OK;
}

int disconnect(sqlite3_vtab* vtab)
{
    delete static_cast<Table*>(vtab);
    return SQLITE_OK;
}

// Constraint codes in idxStr, one per argument of xFilter.
constexpr char kIdEqual = 'i', kTsFrom = 'g', kTsTo = 'l', kTsEqual = 'e', kTrackEqual = 't';

char constraintCode(const IndexedColumns& columns, int column, unsigned char op)
{
    const bool isId = columns.id >= 0 && (column == columns.id || column == -1);
    if (isId && op == SQLITE_INDEX_CONSTRAINT_EQ)
        return kIdEqual;
    if (columns.track >= 0 && column == columns.track && op == SQLITE_INDEX_CONSTRAINT_EQ)
        return kTrackEqual;
    if (columns.ts >= 0 && column == columns.ts) {
        switch (op) {
        case SQLITE_INDEX_CONSTRAINT_EQ: return kTsEqual;
        case SQLITE_INDEX_CONSTRAINT_GT:
        case SQLITE_INDEX_CONSTRAINT_GE: return kTsFrom;
        case SQLITE_INDEX_CONSTRAINT_LT:
        case SQLITE_INDEX_CONSTRAINT_LE: return kTsTo;
        default: break;
        }
    }
    return 0;
}

int bestIndex(sqlite3_vtab* vtab, sqlite3_index_info* info)
{
    const TraceTable& table = *static_cast<Table*>(vtab)->table;
    const IndexedColumns columns = table.indexedColumns();
    std::string codes;
    for (int i = 0; i < info->nConstraint; ++i) {
        const auto& c = info->aConstraint[i];
        if (!c.usable)
            continue;
        if (const char code = constraintCode(columns, c.iColumn, c.op)) {
            codes += code;
            info->aConstraintUsage[i].argvIndex = static_cast<int>(codes.size());
        }
    }
    double rows = table.estimatedRows();
    const auto has = [&](char code) { return codes.find(code) != std::string::npos; };
    if (has(kIdEqual)) {
        rows = 1;
        info->idxFlags |= SQLITE_INDEX_SCAN_UNIQUE;
    } else {
        if (has(kTsEqual) || (has(kTsFrom) && has(kTsTo)))
            rows /= 100;
        else if (has(kTsFrom) || has(kTsTo))
            rows /= 4;
        if (has(kTrackEqual))
            rows /= 20;
    }
    info->estimatedRows = static_cast<sqlite3_int64>(std::max(rows, 1.0));
    info->estimatedCost = std::max(rows, 1.0);
    info->idxNum = (info->colUsed & table.argsColumns()) ? kArgsWanted : 0;
    if (!codes.empty()) {
        info->idxStr = sqlite3_mprintf("%s", codes.c_str());
        info->needToFreeIdxStr = 1;
    }
    // Scans always visit rows in ascending id order.
    if (info->nOrderBy == 1 && columns.id >= 0 && !info->aOrderBy[0].desc
        && (info->aOrderBy[0].iColumn == columns.id || info->aOrderBy[0].iColumn == -1))
        info->orderByConsumed = 1;
    return SQLITE_OK;
}

int open(sqlite3_vtab* vtab, sqlite3_vtab_cursor** out)
{
    auto* cursor = new Cursor();
    cursor->table = static_cast<Table*>(vtab)->table;
    *out = cursor;
    return SQLITE_OK;
}

int close(sqlite3_vtab_cursor* cursor)
{
    delete static_cast<Cursor*>(cursor);
    return SQLITE_OK;
}

int filter(sqlite3_vtab_cursor* base, int idxNum, const char* idxStr, int argc, sqlite3_value** argv)
{
    auto* cursor = static_cast<Cursor*>(base);
    ScanBounds bounds;
    for (int i = 0; i < argc && idxStr && idxStr[i]; ++i) {
        switch (idxStr[i]) {
        case kIdEqual:
            if (const auto id = exactInteger(argv[i]))
                bounds.id = *id;
            break;
        case kTrackEqual:
            if (const auto track = exactInteger(argv[i]))
                bounds.track = *track;
            break;
        case kTsFrom:
        case kTsTo:
        case kTsEqual:
            if (idxStr[i] != kTsTo) {
                if (const auto from = numericBound(argv[i], false))
                    bounds.tsMin = std::max(bounds.tsMin, *from);
            }
            if (idxStr[i] != kTsFrom) {
                if (const auto to = numericBound(argv[i], true))
                    bounds.tsMax = std::min(bounds.tsMax, *to);
            }
            break;
        default: break;
        }
    }
    try {
        cursor->segments = cursor->table->segments(bounds);
    } catch (const std::bad_alloc&) {
        return SQLITE_NOMEM;
    }
    cursor->wantArgs = (idxNum & kArgsWanted) != 0;
    cursor->segment = 0;
    cursor->row = cursor->segments.empty() ? 0 : cursor->segments.front().begin;
    cursor->settle();
    return SQLITE_OK;
}

int next(sqlite3_vtab_cursor* base)
{
    auto* cursor = static_cast<Cursor*>(base);
    ++cursor->row;
    cursor->settle();
    return SQLITE_OK;
}

int eof(sqlite3_vtab_cursor* base) { return static_cast<Cursor*>(base)->atEnd() ? 1 : 0; }

int column(sqlite3_vtab_cursor* base, sqlite3_context* context, int i)
{
    const auto* cursor = static_cast<Cursor*>(base);
    cursor->table->column(context, cursor->row, i, cursor->args);
    return SQLITE_OK;
}

int rowid(sqlite3_vtab_cursor* base, sqlite3_int64* out)
{
    const auto* cursor = static_cast<Cursor*>(base);
    *out = cursor->table->rowid(cursor->row);
    return SQLITE_OK;
}

const sqlite3_module kModule = [] {
    sqlite3_module m{};
    m.iVersion = 1;
    m.xCreate = nullptr; // eponymous-only: no CREATE VIRTUAL TABLE
    m.xConnect = connect;
    m.xBestIndex = bestIndex;
    m.xDisconnect = disconnect;
    m.xDestroy = disconnect;
    m.xOpen = open;
    m.xClose = close;
    m.xFilter = filter;
    m.xNext = next;
    m.xEof = eof;
    m.xColumn = column;
    m.xRowid = rowid;
    return m;
}();

} // namespace

int registerTable(sqlite3* db, const char* name, std::unique_ptr<TraceTable> table)
{
    return sqlite3_create_module_v2(db, name, &kModule, table.release(),
                                    [](void* aux) { delete static_cast<TraceTable*>(aux); });
}

std::vector<Segment> sliceSegments(const Trace& trace, const ScanBounds& bounds)
{
    const auto& slices = trace.slices();
    const std::uint64_t count = slices.size();
    if (bounds.id) {
        if (*bounds.id < 0 || static_cast<std::uint64_t>(*bounds.id) >= count)
            return {};
        return {{static_cast<std::uint64_t>(*bounds.id), static_cast<std::uint64_t>(*bounds.id) + 1}};
    }
    std::uint32_t rowBegin = 0, rowEnd = static_cast<std::uint32_t>(trace.rows().size());
    if (bounds.track) {
        if (*bounds.track < 0 || static_cast<std::uint64_t>(*bounds.track) >= trace.tracks().size())
            return {};
        const Track& track = trace.tracks()[static_cast<std::size_t>(*bounds.track)];
        if (!bounds.hasTsRange())
            return {{track.sliceBegin, track.sliceEnd}};
        rowBegin = track.rowBegin;
        rowEnd = track.rowEnd;
    } else if (!bounds.hasTsRange()) {
        return {{0, count}};
    }
    std::vector<Segment> out;
    const auto starts = slices.start.begin();
    for (std::uint32_t r = rowBegin; r < rowEnd; ++r) {
        const Row& row = trace.rows()[r];
        const auto first = std::lower_bound(starts + row.begin, starts + row.end, bounds.tsMin);
        const auto last = std::upper_bound(first, starts + row.end, bounds.tsMax);
        if (first != last)
            out.push_back({static_cast<std::uint64_t>(first - starts), static_cast<std::uint64_t>(last - starts)});
    }
    std::sort(out.begin(), out.end(), [](const Segment& a, const Segment& b) { return a.begin < b.begin; });
    return out;
}

void resultText(sqlite3_context* context, std::string_view text)
{
    sqlite3_result_text64(context, text.data(), text.size(), SQLITE_TRANSIENT, SQLITE_UTF8);
}

void resultPooledText(sqlite3_context* context, std::string_view text)
{
    sqlite3_result_text64(context, text.data(), text.size(), SQLITE_STATIC, SQLITE_UTF8);
}

void resultJsonId(sqlite3_context* context, const Trace& trace, const JsonId& id)
{
    if (id.isText)
        resultPooledText(context, trace.str(id.text));
    else
        sqlite3_result_int64(context, id.number);
}

void resultOptionalId(sqlite3_context* context, std::int64_t id)
{
    if (id == kNoId)
        sqlite3_result_null(context);
    else
        sqlite3_result_int64(context, id);
}

void resultJson(sqlite3_context* context, const nlohmann::json& value)
{
    switch (value.type()) {
    case nlohmann::json::value_t::null:
    case nlohmann::json::value_t::discarded: sqlite3_result_null(context); break;
    case nlohmann::json::value_t::boolean: sqlite3_result_int(context, value.get<bool>() ? 1 : 0); break;
    case nlohmann::json::value_t::number_integer: sqlite3_result_int64(context, value.get<std::int64_t>()); break;
    case nlohmann::json::value_t::number_unsigned: {
        const auto u = value.get<std::uint64_t>();
        if (u <= static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max()))
            sqlite3_result_int64(context, static_cast<std::int64_t>(u));
        else
            sqlite3_result_double(context, static_cast<double>(u));
        break;
    }
    case nlohmann::json::value_t::number_float: sqlite3_result_double(context, value.get<double>()); break;
    case nlohmann::json::value_t::string: resultText(context, value.get_ref<const std::string&>()); break;
    default: resultText(context, value.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace)); break;
    }
}

} // namespace ks::query

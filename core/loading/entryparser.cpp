#include "core/loading/entryparser.h"

#include "core/model/utf8.h"

#include <iterator>
#include <tuple>

namespace ks {

using json::Cursor;
using json::Status;

void warnBefore(ParsedBatch& batch, std::size_t event, std::int64_t entry, const char* code, std::string message,
                std::uint64_t offset)
{
    batch.steps.emplace_back(event, [code, message = std::move(message), offset, entry](EventAssembler& a) {
        a.builder().diagnostics().warn(code, message, offset, a.entryIndex(entry));
    });
}

void stopOnSyntaxError(ParsedBatch& batch, const char* what, std::uint64_t offset)
{
    batch.steps.emplace_back(
        batch.events.size(), [what = std::string(what), offset, entry = batch.entries](EventAssembler& a) {
            a.builder().diagnostics().add({Diagnostic::Severity::Error, "syntax-error",
                                           "JSON syntax error: " + what + "; the rest of the file was not loaded",
                                           offset, a.entryIndex(entry)});
        });
    batch.stopsLoad = true;
}

namespace {

// No escape and no byte that a read-back could repair: the text reads back as it is here.
bool isPlainAscii(std::string_view text)
{
    bool plain = true;
    for (const char ch : text)
        plain &= static_cast<unsigned char>(ch) < 0x80 && ch != '\\';
    return plain;
}

} // namespace

Status EntryParser::parseEntry(Cursor& c, ParsedBatch& batch, bool checkText)
{
    const char* start = c.p;
    if (*c.p != '{') {
        // Not an object: count it so `info` still accounts for every entry.
        if (auto st = json::skipValue(c); st != Status::Ok) {
            if (st == Status::Incomplete)
                c.p = start;
            return st;
        }
        const std::uint64_t offset = offsetIn(batch, start);
        batch.steps.emplace_back(batch.events.size(),
                                 [offset, length = static_cast<std::uint32_t>(c.p - start)](EventAssembler& a) {
                                     a.builder().countEntry("<not an object>/");
                                     a.builder().keepEntry(offset, length, '?');
                                 });
        warnBefore(batch, batch.events.size(), batch.entries, "not-an-object", "a traceEvents entry is not an object",
                   offset);
        ++batch.entries;
        return Status::Ok;
    }
    // Parsed in place: an event is ~400 bytes, as many as its text, so a copy would cost
    // the parsing thread as much again as reading it.
    auto& parsed = batch.events.emplace_back();
    const Status st = m_parser.parse(c, parsed.event, batch.idTexts);
    if (st != Status::Ok) {
        batch.events.pop_back();
        if (st == Status::Incomplete)
            c.p = start;
        return st;
    }
    const std::string_view text(start, static_cast<std::size_t>(c.p - start));
    const std::size_t bad = checkText ? utf8::firstInvalidJson(text) : utf8::kValid;
    if (bad != utf8::kValid) [[unlikely]]
        keepValidText(batch, parsed.event, start + bad);
    // Views that point outside the window (decoded escapes) get a copy that lives with the batch.
    const char* windowBegin = batch.window.data();
    const char* windowEnd = windowBegin + batch.window.size();
    RawEvent& ev = parsed.event;
    for (std::string_view* v : {&ev.name, &ev.category, &ev.args.name, &ev.args.labels, &ev.scope, &ev.bp}) {
        if (!v->empty() && (v->data() < windowBegin || v->data() >= windowEnd)) [[unlikely]]
            *v = batch.texts.emplace_back(*v);
    }
    if (ev.shapeArgsUsable && (!checkText || isPlainAscii(text))) {
        ev.hasShapeArgs = true;
        if (ev.shapeArgsSeen)
            ev.shapeArgsHash = ShapeArgsPool::hashOf(ev.shapeArgs);
    }
    parsed.offset = offsetIn(batch, start);
    parsed.length = static_cast<std::uint32_t>(text.size());
    parsed.index = batch.entries++;
    return Status::Ok;
}

void EntryParser::parseRawEntries(ParsedBatch& batch)
{
    Cursor c{batch.window.data() + batch.rawBegin, batch.window.data() + batch.rawEnd};
    batch.rawBegin = batch.rawEnd;
    while (json::skipSpace(c)) {
        if (*c.p == ',') {
            ++c.p;
            continue;
        }
        const Status st = parseEntry(c, batch, !batch.rawPlainAscii);
        if (st == Status::Ok)
            continue;
        // Incomplete would mean the cut and the parser disagree on where an entry ends, which
        // only malformed text can do: it stops the load there like any syntax error.
        if (st == Status::Error)
            stopOnSyntaxError(batch, c.errorWhat, offsetIn(batch, c.errorAt));
        else
            stopOnSyntaxError(batch, "an entry of \"traceEvents\" does not end", offsetIn(batch, c.p));
        return;
    }
}

void EntryParser::keepValidText(ParsedBatch& batch, RawEvent& ev, const char* firstBad)
{
    // The event is the batch's last.
    warnBefore(batch, batch.events.size() - 1, batch.entries, "invalid-utf8", utf8::kRepairedMessage,
               offsetIn(batch, firstBad));
    std::string_view* kept[] = {&ev.name, &ev.category, &ev.args.name, &ev.args.labels, &ev.scope, &ev.bp};
    static_assert(std::size(kept) == std::tuple_size_v<decltype(m_validText)>);
    for (std::size_t i = 0; i < std::size(kept); ++i)
        *kept[i] = utf8::validView(*kept[i], m_validText[i]);
}

} // namespace ks

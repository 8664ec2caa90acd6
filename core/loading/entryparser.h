#pragma once
// Parses traceEvents entries into a ParsedBatch: one at a time on the reader's thread, or a
// whole raw run of them on a parse worker (BatchPipe). Both give the same events, warnings
// and entry numbers, so where the stream was cut never changes the model.
#include "core/loading/eventassembler.h"
#include "core/loading/eventparser.h"
#include "core/loading/jsonscan.h"

#include <array>
#include <cstdint>
#include <string>

namespace ks {

class EntryParser {
public:
    // One entry at c.p (not ',' or ']'): an object becomes an event, anything else is counted
    // and kept for Save As. Incomplete restores c.p; Error leaves c.errorAt set.
    json::Status parseEntry(json::Cursor& c, ParsedBatch& batch) { return parseEntry(c, batch, true); }
    // Every entry of batch.window[rawBegin, rawEnd), which holds whole entries only. An error
    // ends the batch with a syntax-error diagnostic and stopsLoad, as on the reader's thread.
    void parseRawEntries(ParsedBatch& batch);

private:
    // checkText false: the text is known to be plain ASCII without escapes (rawPlainAscii).
    json::Status parseEntry(json::Cursor& c, ParsedBatch& batch, bool checkText);
    // An event whose text is not valid UTF-8: warns, and points its kept fields at valid copies.
    void keepValidText(ParsedBatch& batch, RawEvent& ev, const char* firstBad);

    EventParser m_parser;
    std::array<std::string, 6> m_validText; // see keepValidText()
};

// Stream offset of a byte of the batch's window.
inline std::uint64_t offsetIn(const ParsedBatch& batch, const char* at)
{
    return batch.base + static_cast<std::uint64_t>(at - batch.window.data());
}

// A warning the assembler adds before the batch's event number `event`, for entry `entry`.
void warnBefore(ParsedBatch& batch, std::size_t event, std::int64_t entry, const char* code, std::string message,
                std::uint64_t offset);
// "JSON syntax error: what; the rest of the file was not loaded", at the batch's next entry.
void stopOnSyntaxError(ParsedBatch& batch, const char* what, std::uint64_t offset);

} // namespace ks

#pragma once
// The notes sidecar: FILE.kinetoscope.json beside the trace FILE, a small versioned JSON file
// (format "kinetoscope-notes", version kSidecarVersion) holding the trace's fingerprint, its
// marks and its named views (docs/notes.md). A sidecar of another trace (size or hash) or of
// another version is refused with a message; the trace itself opens regardless.
#include "core/notes/tracefingerprint.h"
#include "core/notes/tracenotes.h"

#include <nlohmann/json_fwd.hpp>

#include <string>

namespace ks::notes {

inline constexpr int kSidecarVersion = 1;

std::string sidecarPath(const std::string& tracePath);

struct SidecarRead {
    enum class Status {
        Missing, // no sidecar: no notes yet
        Loaded,
        Refused, // another trace's, or another version's: `message` says which
        Unreadable, // not JSON, or not this format: `message` says what
    };
    Status status = Status::Missing;
    TraceNotes notes;
    std::string message;
};

// The sidecar's JSON for this trace, and back. fromJson() refuses (Refused) a sidecar whose
// fingerprint or version differs from `trace`/kSidecarVersion, and says what is wrong with a
// malformed one (Unreadable).
nlohmann::json sidecarJson(const TraceNotes& notes, const TraceFingerprint& trace);
SidecarRead sidecarFromJson(const nlohmann::json& json, const TraceFingerprint& trace);

// Reads the sidecar of the trace at `tracePath` (the trace file is fingerprinted).
SidecarRead readSidecar(const std::string& tracePath);
// Writes it (through a temporary file renamed over the old one); false with `error` set.
bool writeSidecar(const std::string& tracePath, const TraceNotes& notes, std::string* error = nullptr);

} // namespace ks::notes

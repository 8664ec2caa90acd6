#pragma once
// The progress of loading several files at once (a workspace, a diff pair).
#include "core/loading/loader.h"

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>

namespace ks::analysis {

// Shared with the thread that watches (the GUI polls it from a timer).
class MultiLoadProgress {
public:
    explicit MultiLoadProgress(std::size_t files);
    std::size_t fileCount() const { return m_count; }
    LoadProgress& file(std::size_t i) { return m_files[i]; }
    const LoadProgress& file(std::size_t i) const { return m_files[i]; }
    std::uint64_t bytesDone() const;
    std::uint64_t bytesTotal() const; // of the files started so far
    std::size_t filesDone() const { return m_filesDone.load(); }
    void cancel(); // running loads stop, unstarted ones never start
    bool cancelled() const { return m_cancel.load(); }
    void markFileDone() { ++m_filesDone; }

private:
    std::size_t m_count;
    std::unique_ptr<LoadProgress[]> m_files;
    std::atomic<std::size_t> m_filesDone{0};
    std::atomic<bool> m_cancel{false};
};

} // namespace ks::analysis

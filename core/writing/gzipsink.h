// A Sink over a zlib gzip file (`.json.gz` output).
#pragma once

#include "core/writing/textsink.h"

#include <zlib.h>

namespace ks {

class GzipSink final : public Sink {
public:
    explicit GzipSink(gzFile file)
        : m_file(file)
    {
    }
    bool write(std::string_view text) override;

private:
    gzFile m_file;
};

} // namespace ks

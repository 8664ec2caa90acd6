// A Sink over a std::ostream (the `-` output and tests).
#pragma once

#include "core/writing/textsink.h"

#include <ostream>

namespace ks {

class StreamSink final : public Sink {
public:
    explicit StreamSink(std::ostream& out)
        : m_out(out)
    {
    }
    bool write(std::string_view text) override;

private:
    std::ostream& m_out;
};

} // namespace ks

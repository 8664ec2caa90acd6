#pragma once
// Translates the records of one completed CUPTI activity buffer into our wire frames.
// Names are interned: a STRING frame is emitted the first time a name is used on this
// connection. Runs on the sender thread only.
#include "collector/protocol/framing.h"

#include <cupti.h>

#include <functional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace ks::injection {

class RecordTranslator {
public:
    // Appends frames for every record of the buffer to `out`.
    void translate(std::uint8_t* buffer, std::size_t validBytes, std::vector<std::uint8_t>& out);

    std::uint64_t records() const { return m_records; }
    std::uint64_t zeroTimestamps() const { return m_zeroTimestamps; }
    std::uint64_t undecodable() const { return m_undecodable; }

private:
    void translateRecord(const CUpti_Activity* record, std::vector<std::uint8_t>& out);
    std::uint32_t kernelName(const char* name, std::vector<std::uint8_t>& out);
    std::uint32_t text(const char* text, std::vector<std::uint8_t>& out);
    std::uint32_t apiName(CUpti_CallbackDomain domain, CUpti_CallbackId cbid, std::vector<std::uint8_t>& out);
    std::uint32_t define(std::string text, std::vector<std::uint8_t>& out);
    void device(const CUpti_ActivityDevice5& d, std::vector<std::uint8_t>& out);

    std::uint32_t m_nextString = 1;
    // Kernel names: CUPTI shares one name pointer between all records of a kernel, so the
    // pointer is the cheap key; the text is compared on a hit in case a module was
    // unloaded and its address reused.
    std::unordered_map<const char*, std::pair<std::uint32_t, std::string>> m_kernelNames;
    // Marker and domain names, looked up by string_view: no std::string per NVTX marker.
    struct TextHash {
        using is_transparent = void;
        std::size_t operator()(std::string_view text) const noexcept { return std::hash<std::string_view>{}(text); }
    };
    std::unordered_map<std::string, std::uint32_t, TextHash, std::equal_to<>> m_texts;
    std::unordered_map<std::uint64_t, std::uint32_t> m_apiNames; // domain << 32 | cbid
    std::uint64_t m_records = 0;
    std::uint64_t m_zeroTimestamps = 0;
    std::uint64_t m_undecodable = 0;
};

} // namespace ks::injection

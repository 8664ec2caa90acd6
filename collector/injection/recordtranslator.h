#pragma once
// Translates the records of one completed activity buffer into our wire frames.
// Names are interned: a STRING frame is emitted the first time a name is used on this
// connection. Runs on the sender thread only.
#include "collector/injection/activityapi.h"
#include "collector/injection/nvtxring.h"
#include "collector/protocol/framing.h"

#include <functional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace ks::injection {

class RecordTranslator : private ActivitySink {
public:
    explicit RecordTranslator(ActivityApi& api)
        : m_api(api)
    {
    }

    // Appends frames for every record of the buffer to `out`.
    void translate(const std::uint8_t* buffer, std::size_t validBytes, std::vector<std::uint8_t>& out);
    // One NVTX record of our own (NvtxRecorder): the MARKER frame CUPTI's record would have
    // become. The text of a start or mark is defined right before it, not interned: PyTorch's
    // operator texts carry an op id, so each is new, and a table of them would only grow.
    void nvtx(const NvtxRecord& record, std::string_view text, std::vector<std::uint8_t>& out);

    std::uint64_t records() const { return m_records; }
    std::uint64_t zeroTimestamps() const { return m_zeroTimestamps; }
    std::uint64_t undecodable() const { return m_undecodable; }

private:
    void kernel(const KernelActivity& activity) override;
    void memcpy(const wire::Memcpy& record) override;
    void memset(const wire::Memset& record) override;
    void api(const wire::Api& record) override;
    void sync(const wire::Sync& record) override;
    void marker(const MarkerActivity& activity) override;
    void overhead(const wire::Overhead& record) override;
    void device(const wire::Device& record) override;
    void unknownKind() override;

    std::uint32_t kernelName(const char* name);
    std::uint32_t text(const char* text);
    std::uint32_t apiName(wire::ApiDomain domain, std::uint32_t cbid);
    std::uint32_t define(std::string text);

    ActivityApi& m_api;
    std::vector<std::uint8_t>* m_out = nullptr; // during translate()
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

#include "collector/injection/recordtranslator.h"

#include "collector/injection/nvtxrecorder.h"

namespace ks::injection {

void RecordTranslator::translate(const std::uint8_t* buffer, std::size_t validBytes, std::vector<std::uint8_t>& out)
{
    m_out = &out;
    m_api.decode(buffer, validBytes, *this);
    m_out = nullptr;
}

void RecordTranslator::nvtx(const NvtxRecord& record, std::string_view text, std::vector<std::uint8_t>& out)
{
    ++m_records;
    m_out = &out;
    wire::Marker m;
    m.time = record.time;
    m.id = record.id;
    m.flags = record.flags;
    m.threadId = record.threadId;
    if (!(record.flags & NvtxRecord::End)) {
        m.name = define(std::string(text));
        if (record.domain)
            m.domain = this->text(static_cast<const NvtxDomain*>(record.domain)->name.c_str());
    }
    wire::appendFrame(out, m);
    m_out = nullptr;
}

std::uint32_t RecordTranslator::define(std::string text)
{
    wire::StringDef def;
    def.id = m_nextString++;
    def.text = std::move(text);
    wire::appendFrame(*m_out, def);
    return def.id;
}

std::uint32_t RecordTranslator::kernelName(const char* name)
{
    if (!name)
        return 0;
    auto it = m_kernelNames.find(name);
    if (it != m_kernelNames.end() && it->second.second == name)
        return it->second.first;
    const std::uint32_t id = text(name);
    m_kernelNames[name] = {id, name};
    return id;
}

std::uint32_t RecordTranslator::text(const char* text)
{
    if (!text)
        return 0;
    const std::string_view key(text);
    const auto it = m_texts.find(key);
    if (it != m_texts.end())
        return it->second;
    const std::uint32_t id = define(std::string(key));
    m_texts.emplace(key, id);
    return id;
}

std::uint32_t RecordTranslator::apiName(wire::ApiDomain domain, std::uint32_t cbid)
{
    const std::uint64_t key = static_cast<std::uint64_t>(domain) << 32 | cbid;
    const auto it = m_apiNames.find(key);
    if (it != m_apiNames.end())
        return it->second;
    std::string name = m_api.callbackName(domain, cbid);
    const std::uint32_t id = define(name.empty() ? "cbid " + std::to_string(cbid) : std::move(name));
    m_apiNames.emplace(key, id);
    return id;
}

void RecordTranslator::kernel(const KernelActivity& activity)
{
    ++m_records;
    if (activity.record.start == 0 && activity.record.end == 0) {
        ++m_zeroTimestamps;
        return;
    }
    wire::Kernel k = activity.record;
    k.name = kernelName(activity.name);
    wire::appendFrame(*m_out, k);
}

void RecordTranslator::memcpy(const wire::Memcpy& record)
{
    ++m_records;
    wire::appendFrame(*m_out, record);
}

void RecordTranslator::memset(const wire::Memset& record)
{
    ++m_records;
    wire::appendFrame(*m_out, record);
}

void RecordTranslator::api(const wire::Api& record)
{
    ++m_records;
    wire::Api a = record;
    a.name = apiName(static_cast<wire::ApiDomain>(a.domain), a.cbid);
    wire::appendFrame(*m_out, a);
}

void RecordTranslator::sync(const wire::Sync& record)
{
    ++m_records;
    wire::appendFrame(*m_out, record);
}

void RecordTranslator::marker(const MarkerActivity& activity)
{
    ++m_records;
    wire::Marker m = activity.record;
    m.name = text(activity.name);
    m.domain = text(activity.domain);
    wire::appendFrame(*m_out, m);
}

void RecordTranslator::overhead(const wire::Overhead& record)
{
    ++m_records;
    wire::appendFrame(*m_out, record);
}

void RecordTranslator::device(const wire::Device& record)
{
    ++m_records;
    wire::appendFrame(*m_out, record);
}

void RecordTranslator::unknownKind()
{
    ++m_records;
    ++m_undecodable;
}

} // namespace ks::injection

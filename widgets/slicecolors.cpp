#include "widgets/slicecolors.h"

namespace ks {

namespace {

std::uint32_t fnv1a(std::string_view text)
{
    std::uint32_t h = 2166136261u;
    for (unsigned char c : text) {
        h ^= c;
        h *= 16777619u;
    }
    return h;
}

struct Tone {
    int saturation;
    int value;
};

Tone toneOf(SliceClass cls)
{
    switch (cls) {
    case SliceClass::Kernel:
    case SliceClass::Memcpy:
    case SliceClass::Memset: return {170, 215};
    case SliceClass::CudaRuntime:
    case SliceClass::CudaDriver: return {120, 185};
    case SliceClass::PythonFunction: return {55, 235};
    case SliceClass::UserAnnotation:
    case SliceClass::GpuUserAnnotation: return {90, 170};
    case SliceClass::Overhead: return {20, 160};
    case SliceClass::CpuOp:
    case SliceClass::Other: break;
    }
    return {115, 230};
}

} // namespace

void SliceColors::setTrace(const Trace* trace)
{
    m_trace = trace;
    m_hue.clear();
    m_classOfString.clear();
    if (!trace)
        return;
    const StringPool& strings = trace->strings();
    m_hue.resize(strings.size());
    m_classOfString.resize(strings.size(), SliceClass::Other);
    for (StringId id = 0; id < strings.size(); ++id)
        m_hue[id] = static_cast<std::uint16_t>(fnv1a(strings.view(id)) % 360);
    // Categories are few; classify each distinct one once.
    std::vector<bool> seen(strings.size(), false);
    for (StringId cat : trace->slices().category) {
        if (!seen[cat]) {
            seen[cat] = true;
            m_classOfString[cat] = classifyCategory(strings.view(cat));
        }
    }
    m_nameColor.assign(strings.size(), 0);
    m_nameFoldedColor.assign(strings.size(), 0);
    m_nameCategory.assign(strings.size(), kNoIndex);
    const SliceTable& slices = trace->slices();
    for (SliceId s = 0; s < slices.size(); ++s) {
        const StringId name = slices.name[s];
        if (m_nameCategory[name] == kNoIndex) {
            m_nameCategory[name] = slices.category[s];
            const QColor color = compute(name, slices.category[s]);
            m_nameColor[name] = color.rgb();
            m_nameFoldedColor[name] = color.darker(125).rgb();
        }
    }
}

QColor SliceColors::compute(StringId name, StringId category) const
{
    const Tone tone = toneOf(m_classOfString[category]);
    return QColor::fromHsv(m_hue[name], tone.saturation, tone.value);
}

QColor SliceColors::colorFor(StringId name, StringId category) const
{
    if (name >= m_hue.size())
        return QColor(Qt::gray);
    if (m_nameCategory[name] == category)
        return QColor(m_nameColor[name]);
    return compute(name, category);
}

QColor SliceColors::colorOf(SliceId slice) const
{
    const SliceTable& slices = m_trace->slices();
    return colorFor(slices.name[slice], slices.category[slice]);
}

QColor SliceColors::foldedColorOf(SliceId slice) const
{
    const StringId name = m_trace->slices().name[slice];
    if (name < m_nameFoldedColor.size() && m_nameCategory[name] == m_trace->slices().category[slice])
        return QColor(m_nameFoldedColor[name]);
    return colorOf(slice).darker(125);
}

QColor SliceColors::textColorOn(const QColor& background)
{
    return background.lightness() > 140 ? QColor(20, 20, 20) : QColor(245, 245, 245);
}

} // namespace ks

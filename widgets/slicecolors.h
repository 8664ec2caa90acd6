#pragma once
// Stable colours for slices: the hue comes from a hash of the name (the same op has the
// same colour in every trace and every run), saturation and value from the category,
// so GPU work, CPU ops, Python frames and runtime calls read differently at a glance.
#include "core/model/trace.h"

#include <QColor>

#include <vector>

namespace ks {

class SliceColors {
public:
    // Precomputes per-string hues and per-category classes; cheap (strings, not events).
    void setTrace(const Trace* trace);
    QColor colorOf(SliceId slice) const;
    QColor colorFor(StringId name, StringId category) const;
    // The darker shade used for runs of events folded together.
    QColor foldedColorOf(SliceId slice) const;
    // Dark or light text, whichever reads better on `background`.
    static QColor textColorOn(const QColor& background);

private:
    const Trace* m_trace = nullptr;
    QColor compute(StringId name, StringId category) const;

    std::vector<std::uint16_t> m_hue; // per StringId
    std::vector<SliceClass> m_classOfString; // per StringId, when used as a category
    // The colour of each name with the category it first appeared with: painting looks
    // colours up instead of converting HSV for every drawn item.
    std::vector<QRgb> m_nameColor;
    std::vector<QRgb> m_nameFoldedColor;
    std::vector<StringId> m_nameCategory;
};

} // namespace ks

#include "widgets/peaksettings.h"

#include <QSettings>

namespace ks {

namespace {
const QString kTflopsKey = QStringLiteral("roofline/peakTflops");
const QString kTbpsKey = QStringLiteral("roofline/peakTbps");
} // namespace

PeakSettings PeakSettings::load()
{
    const QSettings settings;
    return {settings.value(kTflopsKey).toString(), settings.value(kTbpsKey).toString()};
}

void PeakSettings::save() const
{
    QSettings settings;
    settings.setValue(kTflopsKey, tflops.trimmed());
    settings.setValue(kTbpsKey, tbps.trimmed());
}

analysis::PeakOverrides PeakSettings::overrides() const
{
    analysis::PeakOverrides out;
    if (!tflops.trimmed().isEmpty()) {
        analysis::PeakOverrides parsed;
        if (!analysis::parsePeakTflops(tflops.trimmed().toStdString(), parsed))
            out.tflops = parsed.tflops;
    }
    if (!tbps.trimmed().isEmpty()) {
        analysis::PeakOverrides parsed;
        if (!analysis::parsePeakTBps(tbps.trimmed().toStdString(), parsed))
            out.memoryTBps = parsed.memoryTBps;
    }
    return out;
}

} // namespace ks

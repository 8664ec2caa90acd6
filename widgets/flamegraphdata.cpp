#include "widgets/flamegraphdata.h"

#include "widgets/statsformat.h"

#include <QCoreApplication>

#include <algorithm>
#include <cmath>
#include <limits>

namespace ks {

namespace {

// Children lists in display order (widest first) from parent links; a child comes after its
// parent in both node orders, so one backward pass widens parents for their children.
void finish(FlameGraphData& data)
{
    const std::size_t n = data.size();
    std::vector<double> childSum(n, 0.0);
    for (std::size_t i = n; i-- > 1;) {
        data.width[i] = std::max(data.width[i], childSum[i]);
        childSum[data.parent[i]] += data.width[i];
    }
    data.width[FlameGraphData::kRoot] = std::max(data.width[FlameGraphData::kRoot], childSum[FlameGraphData::kRoot]);
    data.childBegin.assign(n + 1, 0);
    for (std::size_t i = 1; i < n; ++i)
        ++data.childBegin[data.parent[i] + 1];
    for (std::size_t i = 0; i < n; ++i)
        data.childBegin[i + 1] += data.childBegin[i];
    data.childList.assign(n > 0 ? n - 1 : 0, 0);
    std::vector<std::uint32_t> fill(data.childBegin.begin(), data.childBegin.end() - 1);
    for (std::uint32_t i = 1; i < n; ++i)
        data.childList[fill[data.parent[i]]++] = i;
    data.row.assign(n, 0);
    for (std::uint32_t p = 0; p < n; ++p) {
        auto first = data.childList.begin() + data.childBegin[p],
             last = data.childList.begin() + data.childBegin[p + 1];
        std::sort(first, last, [&](std::uint32_t a, std::uint32_t b) {
            return data.width[a] != data.width[b] ? data.width[a] > data.width[b] : data.label[a] < data.label[b];
        });
        for (auto it = first; it != last; ++it)
            data.row[*it] = std::uint32_t(it - first);
    }
}

QString tr(const char* text) { return QCoreApplication::translate("FlameGraph", text); }

} // namespace

double FlameGraphData::change(std::uint32_t n) const
{
    if (base[n] <= 0)
        return next[n] > 0 ? std::numeric_limits<double>::infinity() : 0.0;
    return next[n] / base[n] - 1.0;
}

QString FlameGraphData::describe(std::uint32_t n) const
{
    const auto ns = [](double v) { return statsDuration(TimeNs(std::llround(v))); };
    QString text = label[n].toHtmlEscaped();
    if (isDiff) {
        const double delta = next[n] - base[n];
        QString percent = base[n] > 0 ? QString::number(100.0 * change(n), 'f', 1) + QLatin1Char('%') : tr("new");
        text += QStringLiteral("<br>") + tr("BASE %1 per step, NEW %2 per step").arg(ns(base[n]), ns(next[n]));
        text += QStringLiteral("<br>")
            + tr("Change %1%2 (%3)").arg(delta >= 0 ? QStringLiteral("+") : QString(), ns(delta), percent);
        if (vanished(n))
            text += QStringLiteral("<br>") + tr("Gone in NEW (width: BASE's time)");
        return text;
    }
    const double whole = width[kRoot] > 0 ? width[kRoot] : 1.0;
    text += QStringLiteral("<br>") + tr("Calls %1").arg(calls[n]);
    text += QStringLiteral("<br>") + tr("CPU total %1, self %2").arg(ns(cpuTotal[n]), ns(cpuSelf[n]));
    text += QStringLiteral("<br>") + tr("GPU total %1, self %2").arg(ns(gpuTotal[n]), ns(gpuSelf[n]));
    text += QStringLiteral("<br>")
        + tr("%1% of the %2 time")
              .arg(QString::number(100.0 * width[n] / whole, 'f', 2),
                   time == analysis::FoldedTime::Cpu ? tr("CPU") : tr("GPU"));
    return text;
}

std::shared_ptr<const FlameGraphData> makeFlameGraphData(const Trace& trace, const analysis::CallTree& tree,
                                                         analysis::FoldedTime time)
{
    auto data = std::make_shared<FlameGraphData>();
    data->time = time;
    data->bottomUp = tree.bottomUp;
    const std::size_t n = tree.size();
    data->parent.assign(tree.parent.begin(), tree.parent.end());
    data->kind.assign(tree.kind.begin(), tree.kind.end());
    data->label.reserve(n);
    data->width.resize(n);
    data->calls.assign(tree.calls.begin(), tree.calls.end());
    data->cpuTotal.assign(tree.cpuTotal.begin(), tree.cpuTotal.end());
    data->cpuSelf.assign(tree.cpuSelf.begin(), tree.cpuSelf.end());
    data->gpuTotal.assign(tree.gpuTotal.begin(), tree.gpuTotal.end());
    data->gpuSelf.assign(tree.gpuSelf.begin(), tree.gpuSelf.end());
    data->sourceNode.resize(n);
    for (std::uint32_t i = 0; i < n; ++i) {
        data->label.push_back(QString::fromStdString(analysis::callFrameLabel(trace, tree, i)));
        data->width[i] = double(time == analysis::FoldedTime::Cpu ? tree.cpuTotal[i] : tree.gpuTotal[i]);
        data->sourceNode[i] = i;
    }
    finish(*data);
    return data;
}

std::shared_ptr<const FlameGraphData> makeFlameGraphData(const analysis::CallTreeDiff& diff)
{
    auto data = std::make_shared<FlameGraphData>();
    data->isDiff = true;
    data->time = diff.time;
    const std::size_t n = diff.size();
    data->parent.assign(diff.parent.begin(), diff.parent.end());
    data->kind.assign(diff.kind.begin(), diff.kind.end());
    data->base.assign(diff.base.begin(), diff.base.end());
    data->next.assign(diff.next.begin(), diff.next.end());
    data->label.reserve(n);
    data->width.resize(n);
    for (std::uint32_t i = 0; i < n; ++i) {
        data->label.push_back(QString::fromStdString(diff.label[i]));
        data->width[i] = diff.vanished(i) ? diff.base[i] : diff.next[i];
    }
    data->calls.assign(n, 0);
    finish(*data);
    return data;
}

} // namespace ks

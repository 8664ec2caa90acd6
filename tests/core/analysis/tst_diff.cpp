// Before/after diff of train_baseline (fp32 SIMT sgemm, pageable copy, loss.item() per step)
// and train_optimized (bf16, SDPA, pinned copy, no sync): step times computed from the
// fixture events, one-sided kernel rows, aten::item calls, the Kernel category, families.
#include "core/analysis/diff.h"

#include "fixturejson.h"
#include "testfiles.h"

#include <QTest>

#include <fstream>

using namespace ks;
using namespace ks::analysis;

namespace {

using kstest::fixture;
using kstest::readGz;

// Mean ProfilerStep#N duration in ns, from the file's events.
double meanStepNs(const nlohmann::json& trace, std::size_t* count)
{
    double sum = 0;
    *count = 0;
    for (const auto& e : trace["traceEvents"]) {
        if (e.value("cat", "") == "user_annotation" && e.value("name", "").starts_with("ProfilerStep#")) {
            sum += std::llround(e["dur"].get<double>() * 1000.0);
            ++*count;
        }
    }
    return sum / double(*count);
}

const DiffRow* find(const std::vector<DiffRow>& rows, std::string_view name)
{
    for (const auto& r : rows) {
        if (r.name == name)
            return &r;
    }
    return nullptr;
}

} // namespace

class TestDiff : public QObject {
    Q_OBJECT
    LoadedDiff m_loaded;
    DiffReport m_report;

private Q_SLOTS:
    void initTestCase()
    {
        m_loaded =
            loadDiffPair(fixture("train_baseline.pt.trace.json.gz"), fixture("train_optimized.pt.trace.json.gz"));
        QVERIFY(!m_loaded.error);
        QCOMPARE(m_loaded.workspace.size(), std::size_t(2));
        m_report = diffTraces(m_loaded.workspace.members()[0], m_loaded.workspace.members()[1]);
    }

    void stepTimesFromTheEvents()
    {
        std::size_t baseSteps = 0, newSteps = 0;
        const double base = meanStepNs(readGz(fixture("train_baseline.pt.trace.json.gz")), &baseSteps);
        const double neu = meanStepNs(readGz(fixture("train_optimized.pt.trace.json.gz")), &newSteps);
        QCOMPARE(m_report.base.steps, baseSteps);
        QCOMPARE(m_report.neu.steps, newSteps);
        QCOMPARE(m_report.base.stepTimeNs, base); // 12.294 ms
        QCOMPARE(m_report.neu.stepTimeNs, neu); // 7.164 ms
        QCOMPARE(m_report.speedup, base / neu);
        QVERIFY(m_report.notes.empty());
        QVERIFY(m_report.summary.starts_with(
            "step time 12.294 ms \xE2\x86\x92 7.164 ms (1.72\xC3\x97 faster); GEMM kernels "));
        // Aligned at the first common step (ProfilerStep#3) of both.
        const auto& ws = m_loaded.workspace;
        QCOMPARE(ws.members()[1].step(3)->start + ws.members()[1].offset, ws.members()[0].step(3)->start);
    }

    void sgemmOnlyOnBaseAndAmongTheTopChanges()
    {
        std::size_t sgemm = 0;
        for (std::size_t i = 0; i < m_report.kernels.size(); ++i) {
            const DiffRow& row = m_report.kernels[i];
            if (row.name.find("sgemm") == std::string::npos)
                continue;
            ++sgemm;
            QVERIFY(row.basePresent && !row.newPresent);
            QCOMPARE(row.newCount, std::uint64_t(0));
            QVERIFY(row.baseCount > 0 && row.deltaNs() < 0);
            QCOMPARE(row.baseSlices.size(), std::size_t(row.baseCount));
            QVERIFY(row.newSlices.empty());
        }
        QCOMPARE(sgemm, std::size_t(4));
        // The largest change is an fp32 GEMM kernel; an sgemm is in the top 5.
        QVERIFY(m_report.kernels[0].name.find("gemm") != std::string::npos);
        bool sgemmInTop = false;
        for (std::size_t i = 0; i < 5; ++i)
            sgemmInTop |= m_report.kernels[i].name.find("sgemm") != std::string::npos;
        QVERIFY(sgemmInTop);
        for (std::size_t i = 1; i < m_report.kernels.size(); ++i)
            QVERIFY(std::fabs(m_report.kernels[i - 1].deltaNs()) >= std::fabs(m_report.kernels[i].deltaNs()));
    }

    void itemCallsOnlyOnBase()
    {
        const DiffRow* item = find(m_report.ops, "aten::item");
        QVERIFY(item);
        QVERIFY(item->baseCount > 0);
        QCOMPARE(item->newCount, std::uint64_t(0));
        QVERIFY(!item->newPresent);
    }

    void kernelCategoryShrinks()
    {
        QCOMPARE(m_report.categories.size(), std::size_t(7)); // no Communication in either
        QCOMPARE(m_report.categories[0].name, std::string("Kernel"));
        QVERIFY(m_report.categories[0].newNs < 0.5 * m_report.categories[0].baseNs);
        QCOMPARE(m_report.categories[1].name, std::string("Memcpy"));
        QVERIFY(m_report.categories[1].newNs < m_report.categories[1].baseNs);
    }

    void familiesAndCopies()
    {
        // fp32 SIMT/xmma GEMMs and bf16 nvjet GEMMs are one row.
        const DiffRow* gemm = find(m_report.kernelFamilies, "GEMM");
        QVERIFY(gemm && gemm->basePresent && gemm->newPresent);
        QCOMPARE(m_report.kernelFamilies[0].name, std::string("GEMM"));
        QVERIFY(gemm->newNs < 0.2 * gemm->baseNs);
        const DiffRow* attention = find(m_report.kernelFamilies, "attention (SDPA/flash)");
        QVERIFY(attention && !attention->basePresent && attention->newPresent);
        // Pageable and pinned host-to-device copies are one kind; the copy got faster.
        const DiffRow* htod = find(m_report.memcpy, "[CUDA memcpy HtoD]");
        QVERIFY(htod && htod->baseCount == 3 && htod->newCount == 3);
        QVERIFY(htod->newNs < htod->baseNs);
        QVERIFY(htod->baseBytes > 0 && htod->baseBytes == htod->newBytes);
    }

    // Eager → torch.compile of the same steps: the eager elementwise, reduce and layer norm
    // kernels give way to Inductor's fused Triton kernels, one family per kind; the GEMMs stay;
    // every CPU op of NEW's three steps is counted, though its steps window starts with the
    // first step's GPU work, after that step's outer ops began.
    void eagerToCompiledFamiliesAndOps()
    {
        const auto loaded = loadDiffPair(fixture("eager.pt.trace.json.gz"), fixture("compiled.pt.trace.json.gz"));
        QVERIFY(!loaded.error);
        const auto r = diffTraces(loaded.workspace.members()[0], loaded.workspace.members()[1]);
        const Trace& compiled = *loaded.workspace.members()[1].trace;
        std::uint64_t pointwise = 0, reduction = 0;
        for (SliceId k = 0; k < compiled.slices().size(); ++k) {
            const std::string_view name = compiled.str(compiled.slices().name[k]);
            const TimeNs start = compiled.slices().start[k];
            if (compiled.str(compiled.slices().category[k]) != "kernel" || start < r.neu.windowStart
                || start >= r.neu.windowEnd)
                continue; // Inductor also names a record_function after each kernel
            pointwise += name.starts_with("triton_poi_");
            reduction += name.starts_with("triton_red_") || name.starts_with("triton_per_");
        }
        QCOMPARE(pointwise, std::uint64_t(15));
        QCOMPARE(reduction, std::uint64_t(107));
        const DiffRow* tritonPointwise = find(r.kernelFamilies, "Triton pointwise");
        const DiffRow* tritonReduction = find(r.kernelFamilies, "Triton reduction");
        QVERIFY(tritonPointwise && !tritonPointwise->basePresent && tritonPointwise->newCount == pointwise);
        QVERIFY(tritonReduction && !tritonReduction->basePresent && tritonReduction->newCount == reduction);
        for (const char* eager : {"elementwise", "reduce", "layer norm"}) {
            const DiffRow* row = find(r.kernelFamilies, eager);
            QVERIFY2(row && row->basePresent && row->baseCount > 0, eager);
            QVERIFY2(row->newNs < 0.01 * row->baseNs, eager);
        }
        const DiffRow* gemm = find(r.kernelFamilies, "GEMM");
        QVERIFY(gemm && gemm->baseCount == 96 && gemm->newCount == 96);
        // The fused kernels take about half the time of the eager ones they replace.
        const double eagerNs = find(r.kernelFamilies, "elementwise")->baseNs + find(r.kernelFamilies, "reduce")->baseNs
            + find(r.kernelFamilies, "layer norm")->baseNs;
        const double fusedNs = tritonPointwise->newNs + tritonReduction->newNs;
        QVERIFY2(fusedNs > 0.4 * eagerNs && fusedNs < 0.7 * eagerNs, std::to_string(fusedNs / eagerNs).c_str());

        const DiffRow* steps = find(r.ops, "ProfilerStep*");
        QVERIFY(steps && steps->baseCount == 3 && steps->newCount == 3);
        const DiffRow* region = find(r.ops, "Torch-Compiled Region: 0/0");
        QVERIFY(region && !region->basePresent && region->newCount == 3);
    }

    void failingSideIsNamed()
    {
        kstest::TempDir dir;
        const std::string bad = dir.filePath("broken.json");
        std::ofstream(bad) << "not json at all";
        auto loaded = loadDiffPair(fixture("train_baseline.pt.trace.json.gz"), bad);
        QVERIFY(loaded.error);
        QVERIFY(loaded.error->starts_with("NEW " + bad + ": "));
        loaded = loadDiffPair(dir.filePath("missing.json"), fixture("train_baseline.pt.trace.json.gz"));
        QVERIFY(loaded.error && loaded.error->starts_with("BASE "));
    }

    void noStepsComparesWholeSpans()
    {
        auto loaded = loadDiffPair(fixture("square.pt.trace.json.gz"), fixture("train_optimized.pt.trace.json.gz"));
        QVERIFY(!loaded.error);
        const auto r = diffTraces(loaded.workspace.members()[0], loaded.workspace.members()[1]);
        QCOMPARE(r.base.steps, std::size_t(0));
        const Trace& square = *loaded.workspace.members()[0].trace;
        QCOMPARE(r.base.stepTimeNs, double(square.endTime() - square.startTime()));
        QCOMPARE(r.notes.size(), std::size_t(1));
        QVERIFY(r.notes[0].starts_with("BASE has no steps"));
        QVERIFY(r.summary.starts_with("span "));
    }
};

QTEST_GUILESS_MAIN(TestDiff)
#include "tst_diff.moc"

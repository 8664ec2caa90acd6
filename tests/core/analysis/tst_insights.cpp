// Insights on the fixtures: which findings each trace gets, with evidence names, counts and
// times checked against the fixture's own events (counted here through the JSON DOM).
#include "core/analysis/insights.h"
#include "core/analysis/insights_detectors.h"
#include "core/analysis/insightsjson.h"
#include "core/loading/loader.h"
#include "fixtureevents.h"
#include "fixtureloader.h"

#include <QTest>

#include <algorithm>
#include <cmath>
#include <map>
#include <regex>
#include <set>

using namespace ks;
using namespace ks::analysis;

namespace {

std::vector<Insight> insightsOf(const char* fixture)
{
    return findInsights(*facts::makeTraceFacts(testing::fixtureTrace(fixture)));
}

const Insight* find(const std::vector<Insight>& insights, const std::string& id)
{
    for (const auto& i : insights) {
        if (i.id == id)
            return &i;
    }
    return nullptr;
}

std::set<std::string> idsOf(const std::vector<Insight>& insights)
{
    std::set<std::string> ids;
    for (const auto& i : insights)
        ids.insert(i.id);
    return ids;
}

double sumDurUs(const std::vector<nlohmann::json>& events)
{
    double total = 0.0;
    for (const auto& e : events)
        total += e["dur"].get<double>();
    return total;
}

// The tests' own reading of "fp32 GEMM without tensor cores" (insights-notes §2).
bool looksFp32Gemm(const std::string& name)
{
    static const std::regex fp32(R"(simt|sgemm|ffma|f32f32|gemm\w*_kernel<float,)", std::regex::icase);
    static const std::regex tensorCore(R"(tf32|wgmma|hmma|nvjet|bf16|f16)", std::regex::icase);
    return std::regex_search(name, fp32) && !std::regex_search(name, tensorCore);
}

void checkSortedByTime(const std::vector<Insight>& insights)
{
    for (std::size_t i = 1; i < insights.size(); ++i)
        QVERIFY(insights[i - 1].timeUs >= insights[i].timeUs);
}

} // namespace

class TstInsights : public QObject {
    Q_OBJECT

private slots:
    void baselineHasTheThreeFixes()
    {
        const auto insights = insightsOf("train_baseline");
        const kstest::FixtureEvents fixture("train_baseline");
        const double steps = double(fixture.steps.size());
        checkSortedByTime(insights);

        // host-sync: every cudaStreamSynchronize inside the steps (3 x.to() + 3 loss.item()),
        // not the cudaDeviceSynchronize after the last step.
        const Insight* sync = find(insights, "host-sync");
        QVERIFY(sync);
        const auto syncs = fixture.select("cuda_runtime", [](const std::string& n) {
            return n == "cudaStreamSynchronize" || n == "cudaDeviceSynchronize";
        });
        QCOMPARE(syncs.size(), std::size_t(6));
        QCOMPARE(sync->evidence.size(), syncs.size());
        for (std::size_t i = 0; i < syncs.size(); ++i) {
            QCOMPARE(sync->evidence[i].name, syncs[i]["name"].get<std::string>());
            QCOMPARE(double(sync->evidence[i].start) / 1000.0, syncs[i]["ts"].get<double>());
        }
        int underItem = 0;
        for (const auto& e : sync->evidence)
            underItem += e.context.rfind("aten::_local_scalar_dense", 0) == 0;
        QCOMPARE(underItem, 3);
        // Time at stake: the blocked time plus the GPU idle that follows; at least the blocked time.
        QVERIFY(sync->timeUs >= sumDurUs(syncs) / steps - 1e-6);

        // fp32-gemm: the SIMT sgemm and FFMA xmma kernels of the steps.
        const Insight* fp32 = find(insights, "fp32-gemm");
        QVERIFY(fp32);
        const auto gemms = fixture.select("kernel", looksFp32Gemm);
        QCOMPARE(gemms.size(), std::size_t(120));
        QCOMPARE(fp32->evidence.size(), gemms.size());
        QVERIFY(std::abs(fp32->timeUs - sumDurUs(gemms) / steps) < 0.01);
        QCOMPARE(fp32->severity, Severity::High);
        QVERIFY(fp32->title.rfind("40 fp32 GEMM kernels per step without tensor cores", 0) == 0);
        // cnn_amp: one such kernel a step, in the singular.
        const auto cnnAmp = insightsOf("cnn_amp");
        const Insight* one = find(cnnAmp, "fp32-gemm");
        QVERIFY(one);
        QVERIFY(one->title.rfind("1 fp32 GEMM kernel per step without tensor cores", 0) == 0);

        // pageable-copy: one 8 MiB HtoD copy per step.
        const Insight* pageable = find(insights, "pageable-copy");
        QVERIFY(pageable);
        const auto copies =
            fixture.select("gpu_memcpy", [](const std::string& n) { return n == "Memcpy HtoD (Pageable -> Device)"; });
        QCOMPARE(copies.size(), std::size_t(3));
        QCOMPARE(pageable->evidence.size(), copies.size());
        for (std::size_t i = 0; i < copies.size(); ++i) {
            QCOMPARE(pageable->evidence[i].name, copies[i]["name"].get<std::string>());
            QCOMPARE(pageable->evidence[i].bytes, copies[i]["args"]["bytes"].get<std::int64_t>());
        }
        QVERIFY(std::abs(pageable->timeUs - sumDurUs(copies) / steps) < 0.01);
        const double meanStepUs =
            double(facts::makeTraceFacts(testing::fixtureTrace("train_baseline"))->meanStepTime()) / 1000.0;
        QVERIFY(std::abs(pageable->share - pageable->timeUs / meanStepUs) < 1e-6);
    }

    void optimizedHasNoneOfThem()
    {
        const auto ids = idsOf(insightsOf("train_optimized"));
        QVERIFY(!ids.count("host-sync")); // pinned non-blocking copy, no per-step .item()
        QVERIFY(!ids.count("fp32-gemm")); // bf16 autocast: nvjet / wgmma kernels
        QVERIFY(!ids.count("pageable-copy"));
    }

    void multistreamHasPageableCopiesAndSyncs()
    {
        const auto insights = insightsOf("multistream");
        const kstest::FixtureEvents fixture("multistream"); // no ProfilerSteps
        const Insight* pageable = find(insights, "pageable-copy");
        QVERIFY(pageable);
        const auto copies =
            fixture.select("gpu_memcpy", [](const std::string& n) { return n.find("Pageable") != std::string::npos; });
        QCOMPARE(pageable->evidence.size(), copies.size());
        QCOMPARE(copies.size(), std::size_t(4)); // the pinned copies are not evidence
        const Insight* sync = find(insights, "host-sync");
        QVERIFY(sync);
        // Every stream sync (x.to() and .item()), none of the two device syncs at the end.
        const auto streamSyncs =
            fixture.select("cuda_runtime", [](const std::string& n) { return n == "cudaStreamSynchronize"; });
        QCOMPARE(streamSyncs.size(), std::size_t(8));
        QCOMPARE(sync->evidence.size(), streamSyncs.size());
        for (const auto& e : sync->evidence)
            QCOMPARE(e.name, std::string("cudaStreamSynchronize"));
    }

    void transformerShowsWhatItsKernelsShow()
    {
        // fp32 with TF32 off (sgemm/FFMA kernels), a pageable x.to() copy and its stream sync
        // per step, no DataLoader, no DtoD share worth a finding.
        const auto insights = insightsOf("transformer");
        const kstest::FixtureEvents fixture("transformer");
        const auto ids = idsOf(insights);
        QVERIFY(ids.count("fp32-gemm") && ids.count("pageable-copy") && ids.count("host-sync"));
        QVERIFY(!ids.count("cpu-bound-dataloader") && !ids.count("memcpy-dtod"));
        QCOMPARE(find(insights, "fp32-gemm")->evidence.size(), fixture.select("kernel", looksFp32Gemm).size());
        QCOMPARE(find(insights, "fp32-gemm")->evidence.size(), std::size_t(51));
        QCOMPARE(find(insights, "pageable-copy")->evidence.size(), std::size_t(3));
        QCOMPARE(find(insights, "host-sync")->evidence.size(), std::size_t(3));
    }

    void mlpOpsFlagsOnlyTheFp32Steps()
    {
        const auto insights = insightsOf("mlp_ops");
        const kstest::FixtureEvents fixture("mlp_ops");
        const Insight* fp32 = find(insights, "fp32-gemm");
        QVERIFY(fp32);
        // The two fp32 steps' sgemm/FFMA kernels, none of the fp16 steps' nvjet kernels.
        QCOMPARE(fp32->evidence.size(), fixture.select("kernel", looksFp32Gemm).size());
        QCOMPARE(fp32->evidence.size(), std::size_t(10));
        for (const auto& e : fp32->evidence)
            QVERIFY(e.name.find("nvjet") == std::string::npos);
        const auto ids = idsOf(insights);
        QVERIFY(!ids.count("pageable-copy"));
        QVERIFY(!ids.count("host-sync")); // only the two device syncs after the last launch
    }

    void launchBoundLoop()
    {
        const auto insights = insightsOf("launchbound");
        const Insight* launch = find(insights, "launch-bound");
        QVERIFY(launch);
        QCOMPARE(launch->severity, Severity::High);
        double medianKernel = 0, medianLaunch = 0;
        for (const auto& [key, value] : launch->figures) {
            if (key == "median_kernel_us")
                medianKernel = value;
            if (key == "median_launch_us")
                medianLaunch = value;
        }
        QVERIFY(medianKernel > 0 && medianKernel < medianLaunch);
        const Insight* idle = find(insights, "gpu-idle");
        QVERIFY(idle);
        QCOMPARE(idle->cause, std::string("launch_bound"));
    }

    void slowLoaderIdlesTheGpu()
    {
        const auto insights = insightsOf("slowloader");
        const kstest::FixtureEvents fixture("slowloader");
        const Insight* idle = find(insights, "gpu-idle");
        QVERIFY(idle);
        QCOMPARE(idle->cause, std::string("data_loading"));
        QCOMPARE(insights.front().id, std::string("gpu-idle")); // the largest cost
        const auto loaders = fixture.select(
            "user_annotation", [](const std::string& n) { return n.rfind("enumerate(DataLoader)", 0) == 0; });
        const auto loaderOps =
            fixture.select("cpu_op", [](const std::string& n) { return n.rfind("enumerate(DataLoader)", 0) == 0; });
        const std::size_t loaderCount = loaders.size() + loaderOps.size();
        QCOMPARE(loaderCount, std::size_t(3));
        // Every data-loading gap points at a DataLoader range, and together they make most of the idle time.
        double loadingUs = 0;
        for (const auto& e : idle->evidence) {
            QVERIFY(e.duration >= thresholds::kMinIdleGapNs);
            if (e.name == "GPU idle (data loading)") {
                QVERIFY(e.context.rfind("enumerate(DataLoader)", 0) == 0);
                loadingUs += double(e.duration) / 1000.0;
            }
        }
        QVERIFY(loadingUs / 3.0 > 0.5 * idle->timeUs);
        const Insight* loader = find(insights, "cpu-bound-dataloader");
        QVERIFY(loader);
        QCOMPARE(loader->evidence.size(), loaderCount);
        const double loaderUs = sumDurUs(loaders.empty() ? loaderOps : loaders) / 3.0;
        QVERIFY(std::abs(loader->timeUs - loaderUs) < 0.01);
    }

    void cpuOnlyTraceHasNoGpuFindings()
    {
        // train_baseline's host events only: ops, Python frames, annotations.
        auto doc = nlohmann::json::parse(kstest::gunzipFile(kstest::fixture("train_baseline")));
        nlohmann::json kept = nlohmann::json::array();
        for (const auto& e : doc["traceEvents"]) {
            const std::string cat = e.value("cat", "");
            if (cat == "cpu_op" || cat == "python_function" || cat == "user_annotation" || e.value("ph", "") == "M")
                kept.push_back(e);
        }
        doc["traceEvents"] = kept;
        doc.erase("deviceProperties");
        const LoadResult loaded = loadTraceFromMemory(doc.dump(), "cpu_only.json");
        QVERIFY(loaded.ok());
        const auto insights = findInsights(*facts::makeTraceFacts(loaded.trace));
        QVERIFY2(insights.empty(), insights.empty() ? "" : insights.front().id.c_str());
    }

    // The NCCL run's merged file: two ranks on two GPUs, no ProfilerSteps. GPU time is summed
    // over both GPUs but reported per GPU, so no share passes 100 % (gpu-idle read 190 %).
    // Without its Optimizer.step ranges (which would be its steps), the whole run is one step.
    void twoGpusReportGpuTimePerGpu()
    {
        auto doc = nlohmann::json::parse(kstest::gunzipFile(kstest::fixture("collected_nccl_merged")));
        auto& events = doc["traceEvents"];
        events.erase(std::remove_if(events.begin(), events.end(),
                                    [](const auto& e) { return e.value("name", "") == "Optimizer.step#SGD.step"; }),
                     events.end());
        // The test's own idle time: per GPU, the gaps of 10 µs or more between its busy spans.
        std::map<std::int64_t, std::vector<std::pair<double, double>>> busy;
        for (const auto& e : doc["traceEvents"]) {
            const std::string cat = e.value("cat", "");
            if (e.value("ph", "") == "X" && (cat == "kernel" || cat == "gpu_memcpy" || cat == "gpu_memset"))
                busy[e["pid"].get<std::int64_t>()].emplace_back(e["ts"].get<double>(),
                                                                e["ts"].get<double>() + e["dur"].get<double>());
        }
        QCOMPARE(busy.size(), std::size_t(2));
        double idleUs = 0.0;
        for (auto& [gpu, spans] : busy) {
            std::sort(spans.begin(), spans.end());
            double end = spans.front().second;
            for (const auto& [a, b] : spans) {
                if (a - end >= 10.0)
                    idleUs += a - end;
                end = std::max(end, b);
            }
        }
        const auto facts = facts::makeTraceFacts(loadTraceFromMemory(doc.dump(), "merged.json").trace);
        QCOMPARE(facts->windows.sourceName, std::string("none"));
        const auto insights = findInsights(*facts);
        const Insight* idle = find(insights, "gpu-idle");
        QVERIFY(idle);
        QVERIFY(std::abs(idle->timeUs - idleUs / 2.0) < 1.0); // 8.25 s per GPU, not 16.5 s
        QVERIFY(idle->share > 0.9 && idle->share <= 1.0);
        QVERIFY(idle->title.starts_with("Each of the 2 GPUs is idle"));
        for (const auto& i : insights)
            QVERIFY2(i.share <= 1.0, i.id.c_str());
    }

    void oddTracesDoNotBreakIt()
    {
        // Zero-length GPU ops, a launch without its kernel, a kernel without a launch, a step
        // of zero length, absurd times: findings may be empty, nothing may crash.
        const char* text = R"json({"traceEvents":[
 {"ph":"X","cat":"user_annotation","name":"ProfilerStep#1","pid":1,"tid":1,"ts":0,"dur":100},
 {"ph":"X","cat":"user_annotation","name":"ProfilerStep#2","pid":1,"tid":1,"ts":100,"dur":0},
 {"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":1,"tid":1,"ts":10,"dur":5,"args":{"correlation":7}},
 {"ph":"X","cat":"cuda_runtime","name":"cudaStreamSynchronize","pid":1,"tid":1,"ts":20,"dur":5,"args":{"correlation":8}},
 {"ph":"X","cat":"kernel","name":"sgemm_kernel","pid":0,"tid":7,"ts":12,"dur":0,"args":{"correlation":7,"device":0,"stream":7}},
 {"ph":"X","cat":"gpu_memcpy","name":"Memcpy HtoD (Pageable -> Device)","pid":0,"tid":7,"ts":1e15,"dur":1e15,"args":{"correlation":99}}
]})json";
        const LoadResult loaded = loadTraceFromMemory(text, "odd.json");
        QVERIFY(loaded.ok());
        const auto facts = facts::makeTraceFacts(loaded.trace);
        const auto insights = findInsights(*facts);
        for (const auto& i : insights) {
            QVERIFY(std::isfinite(i.timeUs));
            QVERIFY(std::isfinite(i.share));
        }
        (void)insightsToJson(insights, {facts}, {"odd.json"}).dump();
    }

    void fp32RulesOnKernelNames()
    {
        using detail::isFp32GemmKernel;
        QVERIFY(isFp32GemmKernel("void "
                                 "cutlass::Kernel2<cutlass_80_simt_sgemm_256x128_8x4_nn_align1>(cutlass_80_simt_sgemm_"
                                 "256x128_8x4_nn_align1::Params)"));
        QVERIFY(isFp32GemmKernel("sm80_xmma_gemm_f32f32_f32f32_f32_nn_n_tilesize256x128x8_stage3_warpsize4x2x1_ffma_"
                                 "aligna4_alignc4_execute_kernel__5x_cublas"));
        QVERIFY(isFp32GemmKernel("void gemmSN_TN_kernel<float, 128, 16, 2, 4, 8, 9, false>"));
        QVERIFY(!isFp32GemmKernel("nvjet_sm90_tst_128x128_64x6_2x1_v_bz_NNT"));
        QVERIFY(!isFp32GemmKernel(
            "cudnn_generated_fort_native_sdpa_sm90_flash_fprop_wgmma_f16_knob_7_64x128x64_4x1x1_cga1x1x1_kernel0_0"));
        QVERIFY(!isFp32GemmKernel("sm80_xmma_gemm_tf32f32_tf32f32_f32_tn_n_tilesize128x128x16_stage4"));
        QVERIFY(!isFp32GemmKernel(
            "void at::native::vectorized_elementwise_kernel<4, at::native::AUnaryFunctor<float, float, float>>"));
    }

    void severityThresholds()
    {
        QCOMPARE(severityForShare(thresholds::kHighShare), Severity::High);
        QCOMPARE(severityForShare(thresholds::kHighShare - 1e-9), Severity::Medium);
        QCOMPARE(severityForShare(thresholds::kMediumShare), Severity::Medium);
        QCOMPARE(severityForShare(thresholds::kMediumShare - 1e-9), Severity::Low);
        // Findings carry the severity of their share.
        for (const auto& i : insightsOf("train_baseline"))
            QCOMPARE(i.severity, severityForShare(i.share));
    }

    void idleThresholdsHold()
    {
        const auto insights = insightsOf("train_baseline");
        const Insight* idle = find(insights, "gpu-idle");
        QVERIFY(idle);
        QVERIFY(idle->share >= thresholds::kGpuIdleMinShare);
        QVERIFY(idle->evidence.size() <= thresholds::kMaxGapEvidence);
        for (const auto& e : idle->evidence)
            QVERIFY(e.duration >= thresholds::kMinIdleGapNs);
        // DtoD copies in train_baseline stay under kDtodMinShare of the step: no memcpy-dtod.
        const kstest::FixtureEvents fixture("train_baseline");
        const double dtodUs =
            sumDurUs(
                fixture.select("gpu_memcpy", [](const std::string& n) { return n.find("DtoD") != std::string::npos; }))
            / 3.0;
        const double meanStepUs =
            double(facts::makeTraceFacts(testing::fixtureTrace("train_baseline"))->meanStepTime()) / 1000.0;
        QVERIFY(dtodUs / meanStepUs < thresholds::kDtodMinShare);
        QVERIFY(!find(insights, "memcpy-dtod"));
    }

    void ranksOfOneRun()
    {
        // Rank 1 sleeps before every step, so rank 0 waits inside its allreduces.
        const std::vector<std::shared_ptr<const facts::TraceFacts>> ranks{
            facts::makeTraceFacts(testing::fixtureTrace("straggler_rank0")),
            facts::makeTraceFacts(testing::fixtureTrace("straggler_rank1"))};
        const auto insights = findInsights(ranks);
        checkSortedByTime(insights);
        std::set<int> tagged;
        for (const auto& i : insights) {
            tagged.insert(i.traceIndex);
            QVERIFY2(i.share <= 1.0, i.id.c_str()); // overlapping syncs on several threads count once
            if (i.id == "low-occupancy") {
                for (const auto& e : i.evidence)
                    QVERIFY(e.name.find("nccl") == std::string::npos); // collectives wait by design
            }
        }
        QCOMPARE(tagged, (std::set<int>{0, 1}));
        // Rank 0's host blocks in syncs while its allreduces wait for rank 1.
        const auto rank0 = findInsights(*ranks[0]);
        QVERIFY(find(rank0, "host-sync"));
        QCOMPARE(find(rank0, "host-sync")->severity, Severity::High);

        // The straggler is rank 1 (trace 1): it slept 20 ms before each step, so rank 0's first
        // allreduce of every step ran about 21 ms (see tests/gpu/README.recordings.md).
        const Insight* straggler = find(insights, "straggler");
        QVERIFY(straggler);
        QCOMPARE(straggler->traceIndex, 1);
        QCOMPARE(straggler->severity, Severity::High);
        QVERIFY2(straggler->timeUs > 15'000 && straggler->timeUs < 25'000, std::to_string(straggler->timeUs).c_str());
        QVERIFY(straggler->title.find("Rank 1 ") == 0);
        QVERIFY(straggler->title.find("not in every step") == std::string::npos);
        // Evidence: rank 1's own allreduce kernels: it arrived last to both of every step (2 x 4).
        QCOMPARE(straggler->evidence.size(), std::size_t(8));
        for (const auto& e : straggler->evidence)
            QVERIFY(e.name.rfind("ncclDevKernel_AllReduce", 0) == 0);
        // A single trace never has a straggler.
        QVERIFY(!find(rank0, "straggler"));
    }

    void ddpWaitingMovesBetweenRanks()
    {
        // ddp_rank0/1: rank 1 waits in the first steps, rank 0 in the last (insights-notes §5):
        // the finding names the rank that caused most of the waiting, and says it is not every step.
        const std::vector<std::shared_ptr<const facts::TraceFacts>> ranks{
            facts::makeTraceFacts(testing::fixtureTrace("ddp_rank1")),
            facts::makeTraceFacts(testing::fixtureTrace("ddp_rank0"))};
        const Insight* straggler = nullptr;
        const auto insights = findInsights(ranks);
        straggler = find(insights, "straggler");
        QVERIFY(straggler);
        QCOMPARE(straggler->traceIndex, 1); // ddp_rank0, given second
        QVERIFY(straggler->title.find("Rank 0 ") == 0);
        QVERIFY(straggler->title.find("not in every step") != std::string::npos);
    }

    void jsonFollowsTheContract()
    {
        const auto facts = facts::makeTraceFacts(testing::fixtureTrace("train_baseline"));
        const auto insights = findInsights(*facts);
        const auto json = insightsToJson(insights, {facts}, {"train_baseline.pt.trace.json.gz"});
        const auto& list = json.at("insights");
        QCOMPARE(list.size(), insights.size());
        for (std::size_t i = 0; i < list.size(); ++i) {
            const auto& j = list[i];
            for (const char* key : {"id", "severity", "title", "time_us", "share", "evidence", "advice"})
                QVERIFY2(j.contains(key), key);
            if (i > 0)
                QVERIFY(list[i - 1]["time_us"].get<double>() >= j["time_us"].get<double>());
            for (const auto& e : j["evidence"]) {
                for (const char* key : {"name", "ts_us", "dur_us", "track"})
                    QVERIFY2(e.contains(key), key);
            }
        }
        const auto pageable =
            std::find_if(list.begin(), list.end(), [](const auto& j) { return j["id"] == "pageable-copy"; });
        QVERIFY(pageable != list.end());
        QCOMPARE((*pageable)["evidence"][0]["ts_us"].get<double>(), 4516914340875.832);
        QCOMPARE((*pageable)["evidence"][0]["track"].get<std::string>(), std::string("stream 7"));
    }
};

QTEST_GUILESS_MAIN(TstInsights)
#include "tst_insights.moc"

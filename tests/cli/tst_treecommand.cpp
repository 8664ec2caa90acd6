// kinetoscope-cli tree: folded stacks that flamegraph.pl/inferno/speedscope parse (every line
// "frames value", values summing to the tree's total), GPU stacks ending in the kernels under
// their launching ops, JSON nodes agreeing with `ops`, steps and bad options.
#include "clirun.h"
#include "testtext.h"

#include <nlohmann/json.hpp>

#include <QTest>

#include <regex>

class TstTreeCommand : public QObject {
    Q_OBJECT
private:
    static std::string fixture(const char* name) { return std::string(KS_TEST_DATA "/") + name + ".pt.trace.json.gz"; }

    static int run(const std::vector<std::string>& args, std::string* out = nullptr, std::string* err = nullptr)
    {
        return kstest::runCli(args, out, err);
    }

    static nlohmann::json rootOf(const std::vector<std::string>& args)
    {
        std::string out;
        if (run(kstest::concat({"tree", "--json"}, args), &out) != 0)
            return {};
        const auto tree = nlohmann::json::parse(out);
        return tree["nodes"][0];
    }

    // Parses folded text as flamegraph.pl does; returns the sum of the values (-1 if invalid).
    static long long foldedSum(const std::string& text, std::vector<std::string>* gpuStacks = nullptr)
    {
        static const std::regex line("([^\\n]+) ([0-9]+)");
        long long sum = 0;
        const std::vector<std::string> lines = kstest::split(text, '\n', true);
        if (lines.empty())
            return -1;
        for (const std::string& l : lines) {
            std::smatch match;
            if (!std::regex_match(l, match, line))
                return -1;
            const std::vector<std::string> frames = kstest::split(match.str(1), ';');
            for (const std::string& f : frames) {
                if (f.empty())
                    return -1;
            }
            if (gpuStacks && frames.back().starts_with("[gpu] "))
                gpuStacks->push_back(match.str(1));
            sum += std::stoll(match.str(2));
        }
        return sum;
    }

private Q_SLOTS:
    void foldedParsesAndSumsToTheTotal_data()
    {
        QTest::addColumn<std::vector<std::string>>("options");
        QTest::addColumn<std::string>("fixture");
        QTest::addColumn<std::string>("column");
        QTest::newRow("cpu") << std::vector<std::string>{} << std::string("train_baseline")
                             << std::string("cpu_total_ns");
        QTest::newRow("gpu") << std::vector<std::string>{"--gpu"} << std::string("train_baseline")
                             << std::string("gpu_total_ns");
        QTest::newRow("python gpu") << std::vector<std::string>{"--python", "--gpu"} << std::string("transformer")
                                    << std::string("gpu_total_ns");
        QTest::newRow("bottom-up") << std::vector<std::string>{"--bottom-up"} << std::string("mlp_ops")
                                   << std::string("cpu_total_ns");
        QTest::newRow("bottom-up gpu") << std::vector<std::string>{"--bottom-up", "--gpu"} << std::string("mlp_ops")
                                       << std::string("gpu_total_ns");
        QTest::newRow("step") << std::vector<std::string>{"--step", "4", "--gpu"} << std::string("train_baseline")
                              << std::string("gpu_total_ns");
    }
    void foldedParsesAndSumsToTheTotal()
    {
        QFETCH(std::vector<std::string>, options);
        QFETCH(std::string, fixture);
        QFETCH(std::string, column);
        const std::string file = TstTreeCommand::fixture(fixture.c_str());
        std::string folded;
        QCOMPARE(run(kstest::concat(kstest::concat({"tree", "--folded"}, options), {file}), &folded), 0);
        const long long sum = foldedSum(folded);
        QVERIFY(sum > 0);
        const auto root = rootOf(kstest::concat(options, {file}));
        QCOMPARE(sum, root[column].get<long long>());
    }

    // train_baseline's fp32 GEMMs: stacks ending in the kernel, launched by aten::mm/addmm/bmm.
    void gpuStacksEndInTheKernels()
    {
        std::string folded;
        QCOMPARE(run({"tree", "--folded", "--gpu", "--python", fixture("train_baseline")}, &folded), 0);
        std::vector<std::string> stacks;
        QVERIFY(foldedSum(folded, &stacks) > 0);
        int sgemm = 0;
        for (const std::string& stack : stacks) {
            const std::vector<std::string> frames = kstest::split(stack, ';');
            if (!kstest::contains(frames.back(), "sgemm"))
                continue;
            ++sgemm;
            const std::string launcher = frames[frames.size() - 2];
            QVERIFY2(launcher == std::string("aten::mm") || launcher == std::string("aten::addmm")
                         || launcher == std::string("aten::bmm"),
                     stack.c_str());
        }
        QVERIFY(sgemm >= 2);
        QVERIFY(!kstest::contains(folded, "[gpu] ;")); // no empty frames
    }

    // The root's self CPU is the operator table's "Self CPU time total".
    void jsonAgreesWithOps()
    {
        std::string out;
        QCOMPARE(run({"tree", "--json", fixture("mlp_ops")}, &out), 0);
        const auto tree = nlohmann::json::parse(out);
        QCOMPARE(tree["tree"].get<std::string>(), std::string("top-down"));
        QCOMPARE(tree["nodes"][0]["parent"].get<int>(), -1);
        QCOMPARE(tree["nodes"][0]["name"].get<std::string>(), std::string("all"));
        std::string ops;
        QCOMPARE(run({"ops", fixture("mlp_ops")}, &ops), 0);
        QVERIFY(kstest::contains(ops, "Self CPU time total: 12.565ms\n"));
        QCOMPARE(tree["nodes"][0]["cpu_total_ns"].get<long long>() / 1000, 12565LL);
        for (const auto& node : tree["nodes"]) {
            for (const char* key : {"id", "parent", "name", "kind", "calls", "cpu_total_ns", "cpu_self_ns",
                                    "gpu_total_ns", "gpu_self_ns"})
                QVERIFY(node.contains(key));
        }
    }

    void textTree()
    {
        std::string out;
        QCOMPARE(run({"tree", fixture("train_baseline")}, &out), 0);
        const std::string& text = out;
        QVERIFY(text.starts_with("     Calls"));
        QVERIFY(kstest::contains(text, "  all\n"));
        QVERIFY(kstest::contains(text, "    ProfilerStep*\n")); // the steps as one frame, under the root
    }

    void badStepAndOptions()
    {
        std::string err;
        QCOMPARE(run({"tree", "--step", "99", fixture("train_baseline")}, nullptr, &err), 1);
        QVERIFY(kstest::contains(err, "no step 99 (steps: 3, 4, 5)"));
        QCOMPARE(run({"tree", "--json", "--folded", fixture("mlp_ops")}), 2);
        QCOMPARE(run({"tree", "/nonexistent.json"}, nullptr, &err), 1);
    }
};

QTEST_GUILESS_MAIN(TstTreeCommand)
#include "tst_treecommand.moc"

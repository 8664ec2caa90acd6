// kinetoscope-cli tree: folded stacks that flamegraph.pl/inferno/speedscope parse (every line
// "frames value", values summing to the tree's total), GPU stacks ending in the kernels under
// their launching ops, JSON nodes agreeing with `ops`, steps and bad options.
#include "clirun.h"

#include <nlohmann/json.hpp>

#include <QRegularExpression>
#include <QTest>

class TstTreeCommand : public QObject {
    Q_OBJECT
private:
    static QString fixture(const char* name) { return QStringLiteral(KS_TEST_DATA "/%1.pt.trace.json.gz").arg(name); }

    static int run(const QStringList& args, QByteArray* out = nullptr, QByteArray* err = nullptr)
    {
        return kstest::runCli(args, out, err);
    }

    static nlohmann::json rootOf(const QStringList& args)
    {
        QByteArray out;
        if (run(QStringList{QStringLiteral("tree"), QStringLiteral("--json")} + args, &out) != 0)
            return {};
        const auto tree = nlohmann::json::parse(out.toStdString());
        return tree["nodes"][0];
    }

    // Parses folded text as flamegraph.pl does; returns the sum of the values (-1 if invalid).
    static long long foldedSum(const QByteArray& text, QStringList* gpuStacks = nullptr)
    {
        static const QRegularExpression line(QStringLiteral("^([^\\n]+) ([0-9]+)$"));
        long long sum = 0;
        const QStringList lines = QString::fromUtf8(text).split(QLatin1Char('\n'), Qt::SkipEmptyParts);
        if (lines.isEmpty())
            return -1;
        for (const QString& l : lines) {
            const auto match = line.match(l);
            if (!match.hasMatch())
                return -1;
            const QStringList frames = match.captured(1).split(QLatin1Char(';'));
            for (const QString& f : frames) {
                if (f.isEmpty())
                    return -1;
            }
            if (gpuStacks && frames.back().startsWith(QLatin1String("[gpu] ")))
                *gpuStacks << match.captured(1);
            sum += match.captured(2).toLongLong();
        }
        return sum;
    }

private Q_SLOTS:
    void foldedParsesAndSumsToTheTotal_data()
    {
        QTest::addColumn<QStringList>("options");
        QTest::addColumn<QString>("fixture");
        QTest::addColumn<QString>("column");
        QTest::newRow("cpu") << QStringList{} << "train_baseline"
                             << "cpu_total_ns";
        QTest::newRow("gpu") << QStringList{"--gpu"} << "train_baseline"
                             << "gpu_total_ns";
        QTest::newRow("python gpu") << QStringList{"--python", "--gpu"} << "transformer"
                                    << "gpu_total_ns";
        QTest::newRow("bottom-up") << QStringList{"--bottom-up"} << "mlp_ops"
                                   << "cpu_total_ns";
        QTest::newRow("bottom-up gpu") << QStringList{"--bottom-up", "--gpu"} << "mlp_ops"
                                       << "gpu_total_ns";
        QTest::newRow("step") << QStringList{"--step", "4", "--gpu"} << "train_baseline"
                              << "gpu_total_ns";
    }
    void foldedParsesAndSumsToTheTotal()
    {
        QFETCH(QStringList, options);
        QFETCH(QString, fixture);
        QFETCH(QString, column);
        const QString file = TstTreeCommand::fixture(fixture.toUtf8().constData());
        QByteArray folded;
        QCOMPARE(
            run(QStringList{QStringLiteral("tree"), QStringLiteral("--folded")} + options + QStringList{file}, &folded),
            0);
        const long long sum = foldedSum(folded);
        QVERIFY(sum > 0);
        const auto root = rootOf(options + QStringList{file});
        QCOMPARE(sum, root[column.toStdString()].get<long long>());
    }

    // train_baseline's fp32 GEMMs: stacks ending in the kernel, launched by aten::mm/addmm/bmm.
    void gpuStacksEndInTheKernels()
    {
        QByteArray folded;
        QCOMPARE(run({QStringLiteral("tree"), QStringLiteral("--folded"), QStringLiteral("--gpu"),
                      QStringLiteral("--python"), fixture("train_baseline")},
                     &folded),
                 0);
        QStringList stacks;
        QVERIFY(foldedSum(folded, &stacks) > 0);
        int sgemm = 0;
        for (const QString& stack : stacks) {
            const QStringList frames = stack.split(QLatin1Char(';'));
            if (!frames.back().contains(QLatin1String("sgemm")))
                continue;
            ++sgemm;
            const QString launcher = frames[frames.size() - 2];
            QVERIFY2(launcher == QLatin1String("aten::mm") || launcher == QLatin1String("aten::addmm")
                         || launcher == QLatin1String("aten::bmm"),
                     qPrintable(stack));
        }
        QVERIFY(sgemm >= 2);
        QVERIFY(!folded.contains("[gpu] ;")); // no empty frames
    }

    // The root's self CPU is the operator table's "Self CPU time total".
    void jsonAgreesWithOps()
    {
        QByteArray out;
        QCOMPARE(run({QStringLiteral("tree"), QStringLiteral("--json"), fixture("mlp_ops")}, &out), 0);
        const auto tree = nlohmann::json::parse(out.toStdString());
        QCOMPARE(tree["tree"].get<std::string>(), std::string("top-down"));
        QCOMPARE(tree["nodes"][0]["parent"].get<int>(), -1);
        QCOMPARE(tree["nodes"][0]["name"].get<std::string>(), std::string("all"));
        QByteArray ops;
        QCOMPARE(run({QStringLiteral("ops"), fixture("mlp_ops")}, &ops), 0);
        QVERIFY(ops.contains("Self CPU time total: 12.565ms\n"));
        QCOMPARE(tree["nodes"][0]["cpu_total_ns"].get<long long>() / 1000, 12565LL);
        for (const auto& node : tree["nodes"]) {
            for (const char* key : {"id", "parent", "name", "kind", "calls", "cpu_total_ns", "cpu_self_ns",
                                    "gpu_total_ns", "gpu_self_ns"})
                QVERIFY(node.contains(key));
        }
    }

    void textTree()
    {
        QByteArray out;
        QCOMPARE(run({QStringLiteral("tree"), fixture("train_baseline")}, &out), 0);
        const QString text = QString::fromUtf8(out);
        QVERIFY(text.startsWith(QLatin1String("     Calls")));
        QVERIFY(text.contains(QLatin1String("  all\n")));
        QVERIFY(text.contains(QLatin1String("    ProfilerStep*\n"))); // the steps as one frame, under the root
    }

    void badStepAndOptions()
    {
        QByteArray err;
        QCOMPARE(
            run({QStringLiteral("tree"), QStringLiteral("--step"), QStringLiteral("99"), fixture("train_baseline")},
                nullptr, &err),
            1);
        QVERIFY(err.contains("no step 99 (steps: 3, 4, 5)"));
        QCOMPARE(
            run({QStringLiteral("tree"), QStringLiteral("--json"), QStringLiteral("--folded"), fixture("mlp_ops")}), 2);
        QCOMPARE(run({QStringLiteral("tree"), QStringLiteral("/nonexistent.json")}, nullptr, &err), 1);
    }
};

QTEST_GUILESS_MAIN(TstTreeCommand)
#include "tst_treecommand.moc"

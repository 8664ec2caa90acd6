// kinetoscope-cli ops: torch's text table, --json rows, --sort/--top and bad options.
#include <nlohmann/json.hpp>

#include <QProcess>
#include <QTest>

class TestOpsCommand : public QObject {
    Q_OBJECT
private:
    static QString mlpOps() { return QStringLiteral(KS_TEST_DATA "/mlp_ops.pt.trace.json.gz"); }

    static int run(const QStringList& args, QByteArray* out = nullptr)
    {
        QProcess process;
        process.start(QStringLiteral(KS_CLI), QStringList{QStringLiteral("ops")} + args);
        if (!process.waitForFinished(60000))
            return -1;
        if (out)
            *out = process.readAllStandardOutput();
        return process.exitCode();
    }

private Q_SLOTS:
    void textTableLikeTorch()
    {
        QByteArray out;
        QCOMPARE(run({mlpOps()}, &out), 0);
        const QString text = QString::fromUtf8(out);
        const QStringList lines = text.split(QLatin1Char('\n'));
        QVERIFY(lines[1].contains(QLatin1String("Name    Self CPU %      Self CPU   CPU total %")));
        QVERIFY(lines[1].trimmed().endsWith(QLatin1String("# of Calls")));
        // Sorted by CUDA total; the GPU-side fp16_step first, as in torch's table.
        QVERIFY(lines[3].trimmed().startsWith(QLatin1String("fp16_step")));
        QVERIFY(lines[3].contains(QLatin1String("118.62%")));
        QVERIFY(text.contains(QLatin1String("Self CPU time total: 12.565ms\n")));
        QVERIFY(text.contains(QLatin1String("Self CUDA time total: 1.047ms\n")));
        // mlp_ops has no ProfilerStep: its 4 Optimizer.step#SGD.step iterations are the steps.
        QVERIFY(text.contains(QLatin1String("Steps: 4 from Optimizer.step\n")));
        QCOMPARE(lines.size(), 81 + 3 + 1 + 3 + 1); // rules, header, rows, footer, final newline
    }

    void jsonSortedAndCut()
    {
        QByteArray out;
        QCOMPARE(run({QStringLiteral("--json"), QStringLiteral("--sort"), QStringLiteral("self_cpu"),
                      QStringLiteral("--top"), QStringLiteral("3"), mlpOps()},
                     &out),
                 0);
        const auto rows = nlohmann::json::parse(out.toStdString());
        QCOMPARE(rows.size(), std::size_t(3));
        QCOMPARE(rows[0]["name"].get<std::string>(), std::string("Activity Buffer Request"));
        QCOMPARE(rows[0]["calls"].get<int>(), 1);
        QCOMPARE(rows[0]["self_cpu_us"].get<double>(), 2936.129);
        QCOMPARE(rows[0]["self_cuda_us"].get<double>(), 61.023);
        QCOMPARE(rows[1]["name"].get<std::string>(), std::string("fp32_step"));
        QCOMPARE(rows[1]["cpu_total_us"].get<double>(), 6784.311);
        for (const char* key : {"name", "calls", "self_cpu_us", "cpu_total_us", "self_cuda_us", "cuda_total_us"})
            QVERIFY(rows[2].contains(key));
    }

    void rejectsBadOptions()
    {
        QCOMPARE(run({QStringLiteral("--sort"), QStringLiteral("bogus"), mlpOps()}), 2);
        QCOMPARE(run({QStringLiteral("--top"), QStringLiteral("x"), mlpOps()}), 2);
        QCOMPARE(run({}), 2);
        QCOMPARE(run({QStringLiteral("/nonexistent.json")}), 1);
    }
};

QTEST_GUILESS_MAIN(TestOpsCommand)
#include "tst_opscommand.moc"

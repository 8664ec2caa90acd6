// kinetoscope-cli convert: every fixture converted (.json.gz → .json → .json.gz) gives the same
// `ops` and `gpu` output as the original; several inputs merge; bad input and usage errors.
#include "clirun.h"

#include <nlohmann/json.hpp>

#include <QTemporaryDir>
#include <QTest>

class TestConvertCommand : public QObject {
    Q_OBJECT
private:
    static QString fixture(const QString& name)
    {
        return QStringLiteral(KS_TEST_DATA "/") + name + ".pt.trace.json.gz";
    }

    static int run(const QStringList& args, QByteArray* out = nullptr, QByteArray* err = nullptr)
    {
        return kstest::runCli(args, out, err, 300000);
    }

    static QByteArray output(const QStringList& args)
    {
        QByteArray out;
        const int code = run(args, &out);
        return code == 0 ? out : QByteArray("exit ") + QByteArray::number(code);
    }

private Q_SLOTS:
    void opsAndGpuUnchanged_data()
    {
        QTest::addColumn<QString>("name");
        for (const char* name : {"square", "multistream", "transformer", "mlp_ops", "big"})
            QTest::newRow(name) << QString::fromLatin1(name);
    }
    void opsAndGpuUnchanged()
    {
        QFETCH(QString, name);
        QTemporaryDir dir;
        const QString plain = dir.filePath(name + ".pt.trace.json");
        const QString gz = dir.filePath(name + ".again.pt.trace.json.gz");
        QByteArray err;
        QCOMPARE(run({QStringLiteral("convert"), fixture(name), plain}, nullptr, &err), 0);
        QVERIFY2(err.contains("convert: wrote"), err.constData());
        QVERIFY2(!err.contains("warning"), err.constData());
        QCOMPARE(run({QStringLiteral("convert"), QStringLiteral("--gzip"), plain, gz}), 0);
        QFile file(gz);
        QVERIFY(file.open(QIODevice::ReadOnly));
        QCOMPARE(file.read(2), QByteArray("\x1f\x8b"));
        for (const QString& converted : {plain, gz}) {
            QCOMPARE(output({QStringLiteral("ops"), QStringLiteral("--json"), converted}),
                     output({QStringLiteral("ops"), QStringLiteral("--json"), fixture(name)}));
            QCOMPARE(output({QStringLiteral("ops"), converted}), output({QStringLiteral("ops"), fixture(name)}));
            QCOMPARE(output({QStringLiteral("gpu"), converted}), output({QStringLiteral("gpu"), fixture(name)}));
            auto gpuJson = [](const QString& path) {
                auto j = nlohmann::json::parse(
                    output({QStringLiteral("gpu"), QStringLiteral("--json"), path}).toStdString(), nullptr, false);
                if (j.is_object())
                    j.erase("file");
                return j;
            };
            QVERIFY(gpuJson(converted) == gpuJson(fixture(name)));
        }
        // `info` counts every kind the same, but for the process_name that kineto's text pids
        // ("Spans", "Traces") get when they become integers.
        const auto kinds = [](const QString& path) {
            auto j =
                nlohmann::json::parse(output({QStringLiteral("info"), QStringLiteral("--json"), path}).toStdString());
            return j["kinds"];
        };
        auto converted = kinds(gz), original = kinds(fixture(name));
        const std::string metadata = "metadata events (M)";
        QVERIFY(converted[metadata].get<int>() > original[metadata].get<int>());
        converted.erase(metadata);
        original.erase(metadata);
        QCOMPARE(converted.dump(), original.dump());
    }

    void mergesInputs()
    {
        QTemporaryDir dir;
        const QString merged = dir.filePath(QStringLiteral("merged.pt.trace.json"));
        QCOMPARE(run({QStringLiteral("convert"), fixture(QStringLiteral("square")), fixture(QStringLiteral("square")),
                      merged}),
                 0);
        const auto info = [](const QString& path) {
            return nlohmann::json::parse(
                output({QStringLiteral("info"), QStringLiteral("--json"), path}).toStdString());
        };
        const auto one = info(fixture(QStringLiteral("square")));
        const auto two = info(merged);
        QCOMPARE(two["slices"].get<int>(), 2 * one["slices"].get<int>());
        QCOMPARE(two["flows"].get<int>(), 2 * one["flows"].get<int>());
        for (const auto& p : two["processes"])
            QVERIFY(p["pid"].is_number_integer());
        // The second copy's launches still reach their kernels: paired flows doubled too.
        QCOMPARE(two["flow_categories"]["ac2g"]["paired"].get<int>(),
                 2 * one["flow_categories"]["ac2g"]["paired"].get<int>());
    }

    void errors()
    {
        QTemporaryDir dir;
        QByteArray err;
        QCOMPARE(run({QStringLiteral("convert"), fixture(QStringLiteral("square"))}, nullptr, &err), 2);
        QVERIFY(err.contains("usage"));
        QCOMPARE(run({QStringLiteral("convert"), QStringLiteral("--bogus"), QStringLiteral("a"), QStringLiteral("b")}),
                 2);
        QCOMPARE(run({QStringLiteral("convert"), QStringLiteral("/nonexistent.json"),
                      dir.filePath(QStringLiteral("o.json"))},
                     nullptr, &err),
                 1);
        QVERIFY2(err.contains("/nonexistent.json"), err.constData());
        QCOMPARE(run({QStringLiteral("convert"), fixture(QStringLiteral("square")),
                      QStringLiteral("/nonexistent-dir/o.json")},
                     nullptr, &err),
                 1);
        QVERIFY2(err.contains("/nonexistent-dir/o.json"), err.constData());
        QCOMPARE(run({QStringLiteral("convert"), QStringLiteral("--help")}), 0);
    }
};

QTEST_GUILESS_MAIN(TestConvertCommand)
#include "tst_convertcommand.moc"

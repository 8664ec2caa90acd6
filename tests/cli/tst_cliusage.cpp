// kinetoscope-cli's command line (CLI11): --version, --help on every subcommand, and usage
// errors that exit with 2 and name the offending option or argument.
#include "clirun.h"

#include <nlohmann/json.hpp>

#include <QTest>

namespace {

struct Run {
    int exitCode = -1;
    QString out;
    QString err;
};

Run cli(const QStringList& args)
{
    QByteArray out, err;
    const int exitCode = kstest::runCli(args, &out, &err);
    return {exitCode, QString::fromUtf8(out), QString::fromUtf8(err)};
}

QString fixture() { return QStringLiteral(KS_TEST_DATA "/mlp_ops.pt.trace.json.gz"); }

} // namespace

class TestCliUsage : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void version()
    {
        const Run run = cli({QStringLiteral("--version")});
        QCOMPARE(run.exitCode, 0);
        QCOMPARE(run.out.trimmed(), QStringLiteral("kinetoscope-cli " KS_VERSION));
    }

    void help_data()
    {
        QTest::addColumn<QStringList>("args");
        QTest::addColumn<QStringList>("mentions");
        QTest::newRow("top") << QStringList{"--help"} << QStringList{"info", "gpu", "ops", "collect", "--version"};
        QTest::newRow("info") << QStringList{"info", "--help"} << QStringList{"--json", "FILE"};
        QTest::newRow("gpu") << QStringList{"gpu", "--help"}
                             << QStringList{"--json", "--plugin-compat", "--steps", "NAME|REGEX", "FILE"};
        QTest::newRow("ops") << QStringList{"ops", "-h"}
                             << QStringList{"--sort", "--top", "--group-by-shape", "--json", "FILE"};
        QTest::newRow("collect") << QStringList{"collect", "--help"}
                                 << QStringList{"--output", "--duration",          "--env",
                                                "--merge",  "--collector-options", "PROGRAM"};
    }
    void help()
    {
        QFETCH(QStringList, args);
        QFETCH(QStringList, mentions);
        const Run run = cli(args);
        QCOMPARE(run.exitCode, 0);
        QVERIFY2(run.out.startsWith(QLatin1String("Usage:")) || run.out.contains(QLatin1String("\nUsage:")),
                 qPrintable(run.out));
        for (const QString& m : mentions)
            QVERIFY2(run.out.contains(m), qPrintable(m + QLatin1String(" missing in:\n") + run.out));
    }

    // Each error exits with 2 and its message names what was wrong.
    void usageErrors_data()
    {
        QTest::addColumn<QStringList>("args");
        QTest::addColumn<QString>("blamed");
        const QString trace = fixture();
        QTest::newRow("no command") << QStringList{} << "subcommand";
        QTest::newRow("unknown command") << QStringList{"bogus"} << "bogus";
        QTest::newRow("unknown option") << QStringList{"info", "--jsn", trace} << "--jsn";
        QTest::newRow("no file") << QStringList{"info"} << "FILE";
        QTest::newRow("two files") << QStringList{"gpu", trace, "B.json"} << "B.json";
        QTest::newRow("missing value") << QStringList{"ops", trace, "--sort"} << "--sort";
        QTest::newRow("unknown column") << QStringList{"ops", "--sort", "bogus", trace} << "--sort";
        QTest::newRow("negative top") << QStringList{"ops", "--top", "-5", trace} << "--top";
        QTest::newRow("top not a number") << QStringList{"ops", "--top=x", trace} << "--top";
        QTest::newRow("duration nan") << QStringList{"collect", "--duration", "nan", "/bin/true"} << "--duration";
        QTest::newRow("duration inf") << QStringList{"collect", "--duration=inf", "/bin/true"} << "--duration";
        QTest::newRow("duration negative") << QStringList{"collect", "--duration", "-1", "/bin/true"} << "--duration";
        QTest::newRow("env without =") << QStringList{"collect", "--env", "NOVALUE", "/bin/true"} << "--env";
        QTest::newRow("no program") << QStringList{"collect", "-o", "x.json"} << "PROGRAM";
    }
    void usageErrors()
    {
        QFETCH(QStringList, args);
        QFETCH(QString, blamed);
        const Run run = cli(args);
        QCOMPARE(run.exitCode, 2);
        QVERIFY2(run.err.contains(blamed), qPrintable(run.err));
        QVERIFY(run.out.isEmpty());
    }

    // --opt=value works like --opt value; collect passes everything after -- to the program.
    void equalsForm()
    {
        const Run run = cli({"ops", "--sort=self_cpu", "--top=3", "--json", fixture()});
        QCOMPARE(run.exitCode, 0);
        const auto rows = nlohmann::json::parse(run.out.toStdString());
        QCOMPARE(rows.size(), std::size_t(3));
        QVERIFY(rows[0]["self_cpu_us"].get<double>() >= rows[1]["self_cpu_us"].get<double>());
        QVERIFY(rows[1]["self_cpu_us"].get<double>() >= rows[2]["self_cpu_us"].get<double>());
    }
};

QTEST_GUILESS_MAIN(TestCliUsage)
#include "tst_cliusage.moc"

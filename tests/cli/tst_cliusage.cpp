// kinetoscope-cli's command line (CLI11): --version, --help on every subcommand, and usage
// errors that exit with 2 and name the offending option or argument.
#include "clirun.h"
#include "testtext.h"

#include <nlohmann/json.hpp>

#include <QTest>

namespace {

struct Run {
    int exitCode = -1;
    std::string out;
    std::string err;
};

Run cli(const std::vector<std::string>& args)
{
    std::string out, err;
    const int exitCode = kstest::runCli(args, &out, &err);
    return {exitCode, std::string(out), std::string(err)};
}

std::string fixture() { return std::string(KS_TEST_DATA "/mlp_ops.pt.trace.json.gz"); }

} // namespace

class TestCliUsage : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void version()
    {
        const Run run = cli({"--version"});
        QCOMPARE(run.exitCode, 0);
        QCOMPARE(kstest::trimmed(run.out), std::string("kinetoscope-cli " KS_VERSION));
    }

    void help_data()
    {
        QTest::addColumn<std::vector<std::string>>("args");
        QTest::addColumn<std::vector<std::string>>("mentions");
        QTest::newRow("top") << std::vector<std::string>{"--help"}
                             << std::vector<std::string>{"info", "gpu", "ops", "collect", "--version"};
        QTest::newRow("info") << std::vector<std::string>{"info", "--help"}
                              << std::vector<std::string>{"--json", "FILE"};
        QTest::newRow("gpu") << std::vector<std::string>{"gpu", "--help"}
                             << std::vector<std::string>{"--json", "--plugin-compat", "--steps", "NAME|REGEX", "FILE"};
        QTest::newRow("ops") << std::vector<std::string>{"ops", "-h"}
                             << std::vector<std::string>{"--sort", "--top", "--group-by-shape", "--json", "FILE"};
        QTest::newRow("collect") << std::vector<std::string>{"collect", "--help"}
                                 << std::vector<std::string>{"--output", "--duration",          "--env",
                                                             "--merge",  "--collector-options", "PROGRAM"};
    }
    void help()
    {
        QFETCH(std::vector<std::string>, args);
        QFETCH(std::vector<std::string>, mentions);
        const Run run = cli(args);
        QCOMPARE(run.exitCode, 0);
        QVERIFY2(run.out.starts_with("Usage:") || kstest::contains(run.out, "\nUsage:"), run.out.c_str());
        for (const std::string& m : mentions)
            QVERIFY2(kstest::contains(run.out, m), (m + " missing in:\n" + run.out).c_str());
    }

    // Each error exits with 2 and its message names what was wrong.
    void usageErrors_data()
    {
        QTest::addColumn<std::vector<std::string>>("args");
        QTest::addColumn<std::string>("blamed");
        const std::string trace = fixture();
        QTest::newRow("no command") << std::vector<std::string>{} << std::string("subcommand");
        QTest::newRow("unknown command") << std::vector<std::string>{"bogus"} << std::string("bogus");
        QTest::newRow("unknown option") << std::vector<std::string>{"info", "--jsn", trace} << std::string("--jsn");
        QTest::newRow("no file") << std::vector<std::string>{"info"} << std::string("FILE");
        QTest::newRow("two files") << std::vector<std::string>{"gpu", trace, "B.json"} << std::string("B.json");
        QTest::newRow("missing value") << std::vector<std::string>{"ops", trace, "--sort"} << std::string("--sort");
        QTest::newRow("unknown column") << std::vector<std::string>{"ops", "--sort", "bogus", trace}
                                        << std::string("--sort");
        QTest::newRow("negative top") << std::vector<std::string>{"ops", "--top", "-5", trace} << std::string("--top");
        QTest::newRow("top not a number") << std::vector<std::string>{"ops", "--top=x", trace} << std::string("--top");
        QTest::newRow("duration nan") << std::vector<std::string>{"collect", "--duration", "nan", "/bin/true"}
                                      << std::string("--duration");
        QTest::newRow("duration inf") << std::vector<std::string>{"collect", "--duration=inf", "/bin/true"}
                                      << std::string("--duration");
        QTest::newRow("duration negative")
            << std::vector<std::string>{"collect", "--duration", "-1", "/bin/true"} << std::string("--duration");
        QTest::newRow("env without =") << std::vector<std::string>{"collect", "--env", "NOVALUE", "/bin/true"}
                                       << std::string("--env");
        QTest::newRow("no program") << std::vector<std::string>{"collect", "-o", "x.json"} << std::string("PROGRAM");
    }
    void usageErrors()
    {
        QFETCH(std::vector<std::string>, args);
        QFETCH(std::string, blamed);
        const Run run = cli(args);
        QCOMPARE(run.exitCode, 2);
        QVERIFY2(kstest::contains(run.err, blamed), run.err.c_str());
        QVERIFY(run.out.empty());
    }

    // --opt=value works like --opt value; collect passes everything after -- to the program.
    void equalsForm()
    {
        const Run run = cli({"ops", "--sort=self_cpu", "--top=3", "--json", fixture()});
        QCOMPARE(run.exitCode, 0);
        const auto rows = nlohmann::json::parse(run.out);
        QCOMPARE(rows.size(), std::size_t(3));
        QVERIFY(rows[0]["self_cpu_us"].get<double>() >= rows[1]["self_cpu_us"].get<double>());
        QVERIFY(rows[1]["self_cpu_us"].get<double>() >= rows[2]["self_cpu_us"].get<double>());
    }
};

QTEST_GUILESS_MAIN(TestCliUsage)
#include "tst_cliusage.moc"

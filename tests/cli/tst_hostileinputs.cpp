// Every seed and committed reproducer of the fuzzers (tests/fuzz), and so every malformed
// class of trace-format.md §7, through `kinetoscope-cli info`, `ops` and `gpu`, as text and
// --json, and `convert` (the writer of Save As): a result (exit 0, JSON that parses, a
// written file with as many slices and instants) or a clear error naming the file (exit 1),
// never an abort. Files with bad UTF-8 load with U+FFFD in the output.
#include "clirun.h"
#include "testfiles.h"
#include "testtext.h"

#include <nlohmann/json.hpp>

#include <QtTest>

#include <filesystem>

namespace {

std::vector<std::string> hostileFiles()
{
    std::vector<std::string> files;
    for (const char* dir : {"corpus/trace", "reproducers/trace"}) {
        const std::string d = std::string(KS_FUZZ_DIR "/") + dir;
        for (const std::string& name : kstest::fileNames(d))
            files.push_back(d + "/" + name);
    }
    return files;
}

std::string fileName(const std::string& path) { return std::filesystem::path(path).filename().string(); }

const std::string kReplacement("\xEF\xBF\xBD");

// crashed: ended by a signal (an abort), or not in time.
kstest::ProgramRun runCli(const std::vector<std::string>& args)
{
    return kstest::runProgram(KS_CLI, args, kstest::ProgramOptions{{}, false, 60000});
}

// The JSON text, or a discarded value when it does not parse.
nlohmann::json parseJson(const std::string& text) { return nlohmann::json::parse(text, nullptr, false); }

nlohmann::json infoJson(const std::string& path) { return parseJson(runCli({"info", "--json", path}).out); }

} // namespace

class TestHostileInputs : public QObject {
    Q_OBJECT
private slots:
    void cliCommands_data()
    {
        QTest::addColumn<std::string>("path");
        QTest::addColumn<std::string>("command");
        QTest::addColumn<bool>("json");
        const std::vector<std::string> files = hostileFiles();
        QVERIFY(files.size() >= 20);
        for (const std::string& path : files) {
            for (const char* command : {"info", "ops", "gpu"}) {
                for (bool json : {false, true}) {
                    const std::string row = fileName(path) + " " + command + (json ? " --json" : "");
                    QTest::newRow(row.c_str()) << path << std::string(command) << json;
                }
            }
        }
    }

    void cliCommands()
    {
        QFETCH(std::string, path);
        QFETCH(std::string, command);
        QFETCH(bool, json);
        std::vector<std::string> args{command};
        if (json)
            args.push_back("--json");
        args.push_back(path);
        const kstest::ProgramRun cli = runCli(args);
        const std::string& out = cli.out;
        const std::string& err = cli.err;
        QVERIFY2(!cli.crashed, err.c_str()); // no abort, no signal
        QVERIFY2(cli.exitCode == 0 || cli.exitCode == 1, err.c_str());
        if (cli.exitCode == 1) {
            QVERIFY2(kstest::contains(err, path), err.c_str()); // the error names the file
        } else if (json) {
            QVERIFY2(!parseJson(out).is_discarded(), out.substr(0, 2000).c_str());
        }
        // Whatever came out is valid UTF-8.
        QVERIFY(kstest::isValidUtf8(out));
        if (fileName(path).starts_with("utf8-")) {
            QCOMPARE(cli.exitCode, 0);
            if (command == std::string("ops")) // the op names, sanitized
                QVERIFY2(kstest::contains(out, kReplacement), out.substr(0, 2000).c_str());
            if (command == std::string("info")) // the warning, with its offset
                QVERIFY2(kstest::contains(out, "invalid-utf8"), out.substr(0, 2000).c_str());
        }
    }

    // Save As through `convert`: written, and the file reloads with as many slices and
    // instants; or the input's load error naming it.
    void convertWritesOrNamesTheFile_data()
    {
        QTest::addColumn<std::string>("path");
        for (const std::string& path : hostileFiles())
            QTest::newRow(fileName(path).c_str()) << path;
    }
    void convertWritesOrNamesTheFile()
    {
        QFETCH(std::string, path);
        kstest::TempDir dir;
        const std::string written = dir.filePath("written.json");
        const kstest::ProgramRun cli = runCli({"convert", path, written});
        QVERIFY2(!cli.crashed, cli.err.c_str());
        QVERIFY2(cli.exitCode == 0 || cli.exitCode == 1, cli.err.c_str());
        if (cli.exitCode == 1) {
            QVERIFY2(kstest::contains(cli.err, path), cli.err.c_str());
            return;
        }
        const nlohmann::json before = infoJson(path), after = infoJson(written);
        QVERIFY(before.is_object() && after.is_object());
        QCOMPARE(after.value("slices", std::int64_t(-1)), before.value("slices", std::int64_t(-2)));
        QCOMPARE(after.value("instants", std::int64_t(-1)), before.value("instants", std::int64_t(-2)));
    }

    // The op from issue 10: "aten::m\xffm" is listed as "aten::m\uFFFDm".
    void opsJsonNamesTheSanitizedOp()
    {
        const kstest::ProgramRun cli = runCli({"ops", "--json", KS_FUZZ_DIR "/corpus/trace/utf8-invalid-name.json"});
        QCOMPARE(cli.exitCode, 0);
        const nlohmann::json doc = parseJson(cli.out);
        QVERIFY(!doc.is_discarded());
        const std::string text = doc.dump();
        QVERIFY2(kstest::contains(text, "\"aten::m" + kReplacement + "m\""), text.c_str());
    }
};

QTEST_APPLESS_MAIN(TestHostileInputs)
#include "tst_hostileinputs.moc"

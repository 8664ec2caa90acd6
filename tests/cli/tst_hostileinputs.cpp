// Every seed and committed reproducer of the fuzzers (tests/fuzz), and so every malformed
// class of trace-format.md §7, through `kinetoscope-cli info`, `ops` and `gpu`, as text and
// --json, and `convert` (the writer of Save As): a result (exit 0, JSON that parses, a
// written file with as many slices and instants) or a clear error naming the file (exit 1),
// never an abort. Files with bad UTF-8 load with U+FFFD in the output.
#include <nlohmann/json.hpp>

#include <QDir>
#include <QProcess>
#include <QTemporaryDir>
#include <QtTest>

namespace {

QStringList hostileFiles()
{
    QStringList files;
    for (const char* dir : {"corpus/trace", "reproducers/trace"}) {
        const QDir d(QStringLiteral(KS_FUZZ_DIR "/") + QLatin1String(dir));
        for (const QString& name : d.entryList(QDir::Files, QDir::Name))
            files << d.filePath(name);
    }
    return files;
}

const QByteArray kReplacement("\xEF\xBF\xBD");

struct CliRun {
    QProcess::ExitStatus status = QProcess::CrashExit;
    int code = -1;
    QByteArray out, err;
};

CliRun runCli(const QStringList& args)
{
    QProcess cli;
    cli.start(QStringLiteral(KS_CLI), args);
    CliRun run;
    if (!cli.waitForFinished(60000))
        return run;
    run.status = cli.exitStatus();
    run.code = cli.exitCode();
    run.out = cli.readAllStandardOutput();
    run.err = cli.readAllStandardError();
    return run;
}

// The JSON text, or a discarded value when it does not parse.
nlohmann::json parseJson(const QByteArray& text) { return nlohmann::json::parse(text.toStdString(), nullptr, false); }

nlohmann::json infoJson(const QString& path)
{
    return parseJson(runCli({QStringLiteral("info"), QStringLiteral("--json"), path}).out);
}

} // namespace

class TestHostileInputs : public QObject {
    Q_OBJECT
private slots:
    void cliCommands_data()
    {
        QTest::addColumn<QString>("path");
        QTest::addColumn<QString>("command");
        QTest::addColumn<bool>("json");
        const QStringList files = hostileFiles();
        QVERIFY(files.size() >= 20);
        for (const QString& path : files) {
            for (const char* command : {"info", "ops", "gpu"}) {
                for (bool json : {false, true}) {
                    const QString row = QFileInfo(path).fileName() + " " + command + (json ? " --json" : "");
                    QTest::newRow(qPrintable(row)) << path << command << json;
                }
            }
        }
    }

    void cliCommands()
    {
        QFETCH(QString, path);
        QFETCH(QString, command);
        QFETCH(bool, json);
        QStringList args{command};
        if (json)
            args << QStringLiteral("--json");
        const CliRun cli = runCli(args << path);
        const QByteArray& out = cli.out;
        const QByteArray& err = cli.err;
        QVERIFY2(cli.status == QProcess::NormalExit, err.constData()); // no abort, no signal
        QVERIFY2(cli.code == 0 || cli.code == 1, err.constData());
        if (cli.code == 1) {
            QVERIFY2(err.contains(path.toUtf8()), err.constData()); // the error names the file
        } else if (json) {
            QVERIFY2(!parseJson(out).is_discarded(), out.left(2000).constData());
        }
        // Whatever came out is valid UTF-8.
        QCOMPARE(QString::fromUtf8(out).toUtf8(), out);
        if (QFileInfo(path).fileName().startsWith(QLatin1String("utf8-"))) {
            QCOMPARE(cli.code, 0);
            if (command == QLatin1String("ops")) // the op names, sanitized
                QVERIFY2(out.contains(kReplacement), out.left(2000).constData());
            if (command == QLatin1String("info")) // the warning, with its offset
                QVERIFY2(out.contains("invalid-utf8"), out.left(2000).constData());
        }
    }

    // Save As through `convert`: written, and the file reloads with as many slices and
    // instants; or the input's load error naming it.
    void convertWritesOrNamesTheFile_data()
    {
        QTest::addColumn<QString>("path");
        for (const QString& path : hostileFiles())
            QTest::newRow(qPrintable(QFileInfo(path).fileName())) << path;
    }
    void convertWritesOrNamesTheFile()
    {
        QFETCH(QString, path);
        QTemporaryDir dir;
        const QString written = dir.filePath(QStringLiteral("written.json"));
        const CliRun cli = runCli({QStringLiteral("convert"), path, written});
        QVERIFY2(cli.status == QProcess::NormalExit, cli.err.constData());
        QVERIFY2(cli.code == 0 || cli.code == 1, cli.err.constData());
        if (cli.code == 1) {
            QVERIFY2(cli.err.contains(path.toUtf8()), cli.err.constData());
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
        QProcess cli;
        cli.start(QStringLiteral(KS_CLI),
                  {"ops", "--json", QStringLiteral(KS_FUZZ_DIR "/corpus/trace/utf8-invalid-name.json")});
        QVERIFY(cli.waitForFinished(60000));
        QCOMPARE(cli.exitCode(), 0);
        const nlohmann::json doc = parseJson(cli.readAllStandardOutput());
        QVERIFY(!doc.is_discarded());
        const QByteArray text = QByteArray::fromStdString(doc.dump());
        QVERIFY2(text.contains("\"aten::m" + kReplacement + "m\""), text.constData());
    }
};

QTEST_APPLESS_MAIN(TestHostileInputs)
#include "tst_hostileinputs.moc"

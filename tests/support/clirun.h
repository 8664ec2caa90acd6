#pragma once
// Test helpers for the command line: kinetoscope-cli (or any program) run as a process, its
// exit status and output, and its --json output parsed. Tests that use runCli() define KS_CLI
// (the binary's path) in CMake.
#include <nlohmann/json.hpp>

#include <QByteArray>
#include <QProcess>
#include <QString>
#include <QStringList>

namespace kstest {

// The exit status of `program args` (-1 when it did not finish in time), with what it wrote.
inline int runProgram(const QString& program, const QStringList& args, QByteArray* out = nullptr,
                      QByteArray* err = nullptr, int timeoutMs = 120000)
{
    QProcess process;
    process.start(program, args);
    if (!process.waitForFinished(timeoutMs))
        return -1;
    if (out)
        *out = process.readAllStandardOutput();
    if (err)
        *err = process.readAllStandardError();
    return process.exitCode();
}

#ifdef KS_CLI
inline int runCli(const QStringList& args, QByteArray* out = nullptr, QByteArray* err = nullptr, int timeoutMs = 120000)
{
    return runProgram(QStringLiteral(KS_CLI), args, out, err, timeoutMs);
}

// Its standard output as JSON; null (with its standard error as a warning) when it fails.
inline nlohmann::json runCliJson(const QStringList& args)
{
    QByteArray out, err;
    if (runCli(args, &out, &err) != 0) {
        qWarning("kinetoscope-cli failed: %s", err.constData());
        return nullptr;
    }
    return nlohmann::json::parse(out.toStdString());
}
#endif

} // namespace kstest

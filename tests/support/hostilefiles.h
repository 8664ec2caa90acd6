#pragma once
// The hostile trace inputs every "never abort" test walks: the fuzz seeds (fixture prefixes and
// the malformed classes) and every committed reproducer. Needs KS_FUZZ_DIR from the test's CMake.

#include <QDir>
#include <QTest>

namespace kstest {

// Adds one data row ("path") per hostile file; returns how many it added.
inline int addHostileFileRows()
{
    QTest::addColumn<QString>("path");
    int files = 0;
    for (const char* dir : {"corpus/trace", "reproducers/trace"}) {
        const QDir d(QStringLiteral(KS_FUZZ_DIR "/") + QLatin1String(dir));
        for (const QString& name : d.entryList(QDir::Files, QDir::Name)) {
            QTest::newRow(qPrintable(name)) << d.filePath(name);
            ++files;
        }
    }
    return files;
}

} // namespace kstest

#pragma once
// The hostile trace inputs every "never abort" test walks: the fuzz seeds (fixture prefixes and
// the malformed classes) and every committed reproducer. Needs KS_FUZZ_DIR from the test's CMake.

#include "testfiles.h"

#include <QTest>

namespace kstest {

// Adds one data row ("path") per hostile file; returns how many it added.
inline int addHostileFileRows()
{
    QTest::addColumn<std::string>("path");
    int files = 0;
    for (const char* dir : {"corpus/trace", "reproducers/trace"}) {
        const std::string d = std::string(KS_FUZZ_DIR "/") + dir;
        for (const std::string& name : fileNames(d)) {
            QTest::newRow(name.c_str()) << d + "/" + name;
            ++files;
        }
    }
    return files;
}

} // namespace kstest

// The read-ahead thread of the byte source turns an exception into a stream error, and
// kinetoscope-cli never aborts: a trace whose path is not valid UTF-8 is read, and whatever
// a command fails to handle becomes "error: …" and exit 1 (never 134, SIGABRT).
#include "clirun.h"
#include "core/loading/bytesource.h"
#include "testfiles.h"

#include <QTest>

#include <cstdio>
#include <filesystem>
#include <memory>
#include <stdexcept>
#include <string>

namespace {

// Delivers one chunk, then fails as an inner source out of memory would.
class FailingSource : public ks::ByteSource {
public:
    std::size_t read(char* dest, std::size_t capacity) override
    {
        if (m_reads++ > 0)
            throw std::runtime_error("inflate ran out of memory");
        const std::size_t n = std::min<std::size_t>(capacity, 5);
        std::copy_n("{\"tra", n, dest);
        return n;
    }
    std::uint64_t inputConsumed() const override { return 5; }
    std::uint64_t inputSize() const override { return 10; }
    std::string error() const override { return {}; }
    std::shared_ptr<const ks::EventTextSource> textSource() override { return nullptr; }

private:
    int m_reads = 0;
};

} // namespace

class TestNoAbort : public QObject {
    Q_OBJECT
private slots:
    void readAheadExceptionBecomesStreamError()
    {
        auto source = ks::prefetchingSource(std::make_unique<FailingSource>(), 5);
        char buffer[16];
        std::string got;
        for (std::size_t n; (n = source->read(buffer, sizeof buffer)) > 0;)
            got.append(buffer, n);
        QCOMPARE(got, std::string("{\"tra")); // what came before the failure
        QCOMPARE(source->error(), std::string("read-ahead failed: inflate ran out of memory"));
    }

    void cliInfoJsonOnNonUtf8Path()
    {
        const kstest::TempDir dir;
        QVERIFY(dir.isValid());
        const std::string path = dir.filePath("tr\xff\xfe"
                                              "ace.pt.trace.json.gz");
        std::filesystem::copy_file(KS_TEST_DATA "/square.pt.trace.json.gz", path);
        kstest::ProgramOptions merged;
        merged.mergeOutput = true;
        const kstest::ProgramRun run = kstest::runProgram(KS_CLI, {"info", "--json", path}, merged);
        QVERIFY(!run.crashed);
        QVERIFY(run.exitCode == 0 || (run.exitCode == 1 && run.out.rfind("error: ", 0) == 0));
        std::printf("info --json on a non-UTF-8 path: exit %d\n", run.exitCode);
    }
};

QTEST_APPLESS_MAIN(TestNoAbort)
#include "tst_noabort.moc"

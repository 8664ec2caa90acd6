// The read-ahead thread of the byte source turns an exception into a stream error, and
// kinetoscope-cli never aborts: a trace whose path is not valid UTF-8 is read, and whatever
// a command fails to handle becomes "error: …" and exit 1 (never 134, SIGABRT).
#include "minitest.h"

#include "core/loading/bytesource.h"

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <memory>
#include <stdexcept>
#include <string>
#include <sys/wait.h>
#include <unistd.h>

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

struct Run {
    int exitCode = -1; // -1: killed by a signal
    int signal = 0;
    std::string out;
};

Run runCli(const std::string& arguments)
{
    Run run;
    const std::string command = std::string(KS_CLI) + " " + arguments + " 2>&1";
    FILE* pipe = popen(command.c_str(), "r");
    char chunk[4096];
    for (std::size_t n; (n = std::fread(chunk, 1, sizeof chunk, pipe)) > 0;)
        run.out.append(chunk, n);
    const int status = pclose(pipe);
    if (WIFEXITED(status))
        run.exitCode = WEXITSTATUS(status);
    else if (WIFSIGNALED(status))
        run.signal = WTERMSIG(status);
    return run;
}

std::string shellQuoted(const std::string& text) { return "'" + text + "'"; }

} // namespace

KS_TEST(readAheadExceptionBecomesStreamError)
{
    auto source = ks::prefetchingSource(std::make_unique<FailingSource>(), 5);
    char buffer[16];
    std::string got;
    for (std::size_t n; (n = source->read(buffer, sizeof buffer)) > 0;)
        got.append(buffer, n);
    KS_CHECK_EQ(got, std::string("{\"tra")); // what came before the failure
    KS_CHECK_EQ(source->error(), std::string("read-ahead failed: inflate ran out of memory"));
}

KS_TEST(cliInfoJsonOnNonUtf8Path)
{
    char dir[] = "/tmp/ks-noabort-XXXXXX";
    KS_CHECK(mkdtemp(dir));
    const std::string path = std::string(dir)
        + "/tr\xff\xfe"
          "ace.pt.trace.json.gz";
    std::filesystem::copy_file(KS_TEST_DATA "/square.pt.trace.json.gz", path);
    const Run run = runCli("info --json " + shellQuoted(path));
    std::filesystem::remove_all(dir);
    KS_CHECK_EQ(run.signal, 0);
    KS_CHECK(run.exitCode == 0 || (run.exitCode == 1 && run.out.rfind("error: ", 0) == 0));
    std::printf("info --json on a non-UTF-8 path: exit %d\n", run.exitCode);
}

KS_TEST_MAIN()

// Stands in for a CUDA program with the injection library loaded: connects to the
// collector named in the environment and streams kernels and launches for about a second,
// as the real library does, so that the CLI and the GUI session can be tested end to end
// without a GPU. usage: fake_target [BATCHES [EXIT_CODE|kill [PAIRS [PERIOD_MS]]]]
// Each batch is PAIRS (10) launches with their kernels, one batch every PERIOD_MS (100): a
// large PAIRS and a short period stand in for a launch-bound training loop (tests/gpu/run-gui.sh
// measures the live GUI with it).
#include "collector/protocol/environment.h"
#include "collector/protocol/framing.h"

#include <algorithm>
#include <chrono>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <string>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <thread>
#include <unistd.h>

using namespace ks::wire;

namespace {

std::int64_t nowNs()
{
    return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::system_clock::now().time_since_epoch())
        .count();
}

} // namespace

int main(int argc, char** argv)
{
    const int batches = argc > 1 ? std::atoi(argv[1]) : 10;
    const int pairs = argc > 3 ? std::max(1, std::atoi(argv[3])) : 10;
    const int periodMs = argc > 4 ? std::max(0, std::atoi(argv[4])) : 100;
    const char* socketPath = std::getenv(kSocketEnv);
    const char* token = std::getenv(kTokenEnv);
    if (!socketPath || !token)
        return 0; // like a program that never initialises CUDA
    const int fd = socket(AF_UNIX, SOCK_STREAM, 0);
    sockaddr_un address{};
    address.sun_family = AF_UNIX;
    std::strncpy(address.sun_path, socketPath, sizeof address.sun_path - 1);
    if (connect(fd, reinterpret_cast<const sockaddr*>(&address), sizeof address) != 0)
        return 2;
    const auto send = [fd](const std::vector<std::uint8_t>& bytes) {
        return ::send(fd, bytes.data(), bytes.size(), MSG_NOSIGNAL) == static_cast<ssize_t>(bytes.size());
    };
    std::vector<std::uint8_t> out;
    Hello hello;
    hello.token = token;
    hello.pid = getpid();
    hello.ppid = getppid();
    hello.executable = "/usr/bin/fake_target";
    hello.arguments = {"fake_target"};
    appendFrame(out, hello);
    appendFrame(out, StringDef{1, "cudaLaunchKernel_v7000"});
    appendFrame(out, StringDef{2, "_Z10fakeKernelPfi"});
    send(out);
    const auto tid = static_cast<std::uint64_t>(syscall(SYS_gettid));
    std::uint32_t correlation = 1;
    for (int b = 0; b < batches; ++b) {
        out.clear();
        for (int i = 0; i < pairs; ++i, ++correlation) {
            Api api;
            api.start = nowNs();
            api.end = api.start + 4000;
            api.domain = static_cast<std::uint8_t>(ApiDomain::Runtime);
            api.cbid = 211;
            api.name = 1;
            api.correlation = correlation;
            api.threadId = tid;
            appendFrame(out, api);
            Kernel kernel;
            kernel.start = api.end + 6000;
            kernel.end = kernel.start + 20000;
            kernel.stream = 7;
            kernel.correlation = correlation;
            kernel.name = 2;
            kernel.grid[0] = 264;
            kernel.block[0] = 256;
            kernel.grid[1] = kernel.grid[2] = kernel.block[1] = kernel.block[2] = 1;
            appendFrame(out, kernel);
        }
        send(out);
        std::this_thread::sleep_for(std::chrono::milliseconds(periodMs));
    }
    if (argc > 2 && !std::strcmp(argv[2], "kill"))
        raise(SIGKILL);
    out.clear();
    appendFrame(out, Goodbye{static_cast<std::uint64_t>(batches) * pairs * 2, 1, 1});
    send(out);
    close(fd);
    return argc > 2 ? std::atoi(argv[2]) : 0;
}

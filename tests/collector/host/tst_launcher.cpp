// Launcher: program lookup errors, the environment handed to the target, exit status and
// signal propagation.
#include "collector/host/launcher.h"
#include "collector/protocol/environment.h"

#include "testfiles.h"

#include <QTest>

#include <algorithm>
#include <csignal>
#include <filesystem>
#include <fstream>
#include <sys/stat.h>

using namespace ks::collector;

namespace {

InjectionSettings injection()
{
    return {"/opt/kinetoscope/lib/libkinetoscope_injection.so", "/run/user/1000/kinetoscope-x/c.sock",
            "00112233445566778899aabbccddeeff", ""};
}

bool contains(const std::vector<std::string>& env, const std::string& entry)
{
    return std::find(env.begin(), env.end(), entry) != env.end();
}

} // namespace

class TestLauncher : public QObject {
    Q_OBJECT
private slots:
    void resolvesThroughPath()
    {
        std::string error;
        const auto sh = resolveProgram("sh", error, "/nonexistent:/bin:/usr/bin");
        QVERIFY2(sh.has_value(), error.c_str());
        QCOMPARE(*sh, std::string("/bin/sh"));
    }

    void programErrors()
    {
        kstest::TempDir dir;
        const std::string plain = dir.filePath("data.txt");
        std::ofstream(plain) << "not a program";
        std::string error;
        QVERIFY(!resolveProgram("/nonexistent/program", error));
        QVERIFY2(error.find("No such file") != std::string::npos, error.c_str());
        QVERIFY(!resolveProgram(plain, error));
        QVERIFY2(error.find("not executable") != std::string::npos, error.c_str());
        QVERIFY(!resolveProgram(dir.path(), error));
        QVERIFY2(error.find("not a regular file") != std::string::npos, error.c_str());
        QVERIFY(!resolveProgram("kinetoscope-no-such-command", error, "/bin:/usr/bin"));
        QVERIFY2(error.find("command not found") != std::string::npos, error.c_str());
        // Found on PATH but not executable: say so rather than "not found".
        QVERIFY(!resolveProgram("data.txt", error, dir.path().c_str()));
        QVERIFY2(error.find("not executable") != std::string::npos, error.c_str());
        QVERIFY(!resolveProgram("", error));
    }

    void environmentKeepsUserVariables()
    {
        LaunchRequest request;
        request.environment = {{"CUDA_VISIBLE_DEVICES", "1"}, {"HOME", "/home/other"}};
        std::string error;
        const auto env =
            buildEnvironment({"HOME=/home/me", "PATH=/usr/bin", "LD_PRELOAD=/lib/x.so"}, request, injection(), error);
        QVERIFY2(env.has_value(), error.c_str());
        QVERIFY(contains(*env, "PATH=/usr/bin"));
        QVERIFY(contains(*env, "LD_PRELOAD=/lib/x.so"));
        QVERIFY(contains(*env, "HOME=/home/other"));
        QVERIFY(!contains(*env, "HOME=/home/me"));
        QVERIFY(contains(*env, "CUDA_VISIBLE_DEVICES=1"));
        QVERIFY(contains(*env, "CUDA_INJECTION64_PATH=/opt/kinetoscope/lib/libkinetoscope_injection.so"));
        QVERIFY(contains(*env, "NVTX_INJECTION64_PATH=/opt/kinetoscope/lib/libkinetoscope_injection.so"));
        QVERIFY(contains(*env, std::string(ks::wire::kSocketEnv) + "=/run/user/1000/kinetoscope-x/c.sock"));
        QVERIFY(contains(*env, std::string(ks::wire::kTokenEnv) + "=00112233445566778899aabbccddeeff"));
        QCOMPARE(env->size(), std::size_t(8)); // 3 inherited + 1 added + 4 for the collector
    }

    void existingInjectionIsRefused()
    {
        std::string error;
        QVERIFY(
            !buildEnvironment({"CUDA_INJECTION64_PATH=/opt/nsight/libToolsInjection64.so"}, {}, injection(), error));
        QVERIFY2(error.find("already set") != std::string::npos, error.c_str());
        LaunchRequest request;
        request.environment = {{"CUDA_INJECTION64_PATH", "/x.so"}};
        QVERIFY(!buildEnvironment({}, request, injection(), error));
        InjectionSettings relative = injection();
        relative.libraryPath = "libkinetoscope_injection.so";
        QVERIFY(!buildEnvironment({}, {}, relative, error));
        QVERIFY2(error.find("absolute") != std::string::npos, error.c_str());
    }

    void exitCodePropagates()
    {
        ChildProcess child;
        LaunchRequest request{"sh", {"-c", "exit 3"}, {}, {}};
        std::string error;
        QVERIFY2(child.start(request, currentEnvironment(), error), error.c_str());
        const auto status = child.waitFor(10000);
        QVERIFY(status);
        QVERIFY(!status->signaled);
        QCOMPARE(status->code, 3);
        QCOMPARE(status->shellCode(), 3);
    }

    void signalPropagates()
    {
        ChildProcess child;
        LaunchRequest request{"sh", {"-c", "kill -SEGV $$"}, {}, {}};
        std::string error;
        QVERIFY2(child.start(request, currentEnvironment(), error), error.c_str());
        const auto status = child.waitFor(10000);
        QVERIFY(status);
        QVERIFY(status->signaled);
        QCOMPARE(status->code, SIGSEGV);
        QCOMPARE(status->shellCode(), 128 + SIGSEGV);
        QVERIFY(status->describe().find("signal 11") != std::string::npos);
    }

    void environmentAndWorkingDirectoryReachTheChild()
    {
        kstest::TempDir dir;
        const std::string out = dir.filePath("out.txt");
        LaunchRequest request{"sh",
                              {"-c", "pwd > out.txt; echo \"$KS_TEST_VALUE\" >> out.txt"},
                              dir.path(),
                              {{"KS_TEST_VALUE", "hello world"}}};
        std::string error;
        const auto env = buildEnvironment(currentEnvironment(), request, injection(), error);
        QVERIFY(env);
        ChildProcess child;
        QVERIFY2(child.start(request, *env, error), error.c_str());
        QVERIFY(child.waitFor(10000));
        std::ifstream in(out);
        std::string pwd, value;
        std::getline(in, pwd);
        std::getline(in, value);
        QCOMPARE(pwd, std::filesystem::canonical(dir.path()).string());
        QCOMPARE(value, std::string("hello world"));
    }

    void missingWorkingDirectoryFails()
    {
        ChildProcess child;
        std::string error;
        QVERIFY(!child.start({"sh", {}, "/nonexistent/dir", {}}, currentEnvironment(), error));
        QVERIFY2(error.find("does not exist") != std::string::npos, error.c_str());
        QVERIFY(!child.start({"/nonexistent/program", {}, {}, {}}, currentEnvironment(), error));
    }
};

QTEST_GUILESS_MAIN(TestLauncher)
#include "tst_launcher.moc"

// --pytorch: which targets are Python, the environment the target gets, and the shipped
// sitecustomize run by a real Python against a stand-in `torch` package (no torch needed):
// emit_nvtx entered once torch is imported (with shapes for ops-shapes, without a GPU
// synchronise), the user's sitecustomize chained, and a clear message for a script that
// enters emit_nvtx itself, a user sitecustomize that raises, a torch too old for shapes and
// a program that never imports torch. Where the observer library lies beside the injection
// library (a stand-in here), it replaces emit_nvtx, pauses while torch.profiler runs, and
// emit_nvtx comes back when it was built for another torch, declines or fails.
#include "collector/host/pythonsite.h"

#include "clirun.h"
#include "testfiles.h"
#include "testtext.h"

#include <QTest>

#include <filesystem>
#include <fstream>
#include <sys/stat.h>

using namespace ks::collector;

namespace {

void writeFile(const std::string& path, const std::string& text, bool executable = false)
{
    std::ofstream(path) << text;
    if (executable)
        chmod(path.c_str(), 0755);
}

// A `torch` with just what the hook touches; it logs what happened to LOG.
std::string fakeTorch(bool withShapes)
{
    std::string text = R"(import os
LOG = os.environ["FAKE_TORCH_LOG"]
def log(text):
    open(LOG, "a").write(text + "\n")
__version__ = "9.9-fake"
class _Cuda:
    @staticmethod
    def synchronize():
        log("synchronize")
cuda = _Cuda()
class emit_nvtx:
)";
    text += withShapes
        ? "    def __init__(self, enabled=True, record_shapes=False):\n        self.record_shapes = record_shapes\n"
        : "    def __init__(self, enabled=True):\n        self.record_shapes = None\n";
    text += R"(        self.entered = False
    def __enter__(self):
        cuda.synchronize()
        self.entered = True
        log("enter record_shapes=%s" % self.record_shapes)
        return self
    def __exit__(self, *exc):
        log("exit")
        return False
class _Profiler:
    pass
profiler = _Profiler()
profiler.emit_nvtx = emit_nvtx
class _Autograd:
    pass
autograd = _Autograd()
autograd.profiler = profiler
)";
    return text;
}

struct PythonRun {
    int exitCode = -1;
    std::string stderrText;
    std::vector<std::string> log;
};

} // namespace

class TestPythonSite : public QObject {
    Q_OBJECT
private:
    std::string m_python;

    PythonRun run(const std::string& pythonPath, const std::string& mode, const std::string& code,
                  const std::string& logPath, const std::vector<std::string>& extraEnvironment = {})
    {
        kstest::ProgramOptions options;
        options.environment = kstest::concat({"CUDA_INJECTION64_PATH"}, extraEnvironment);
        options.environment.insert(options.environment.end(),
                                   {"PYTHONPATH=" + pythonPath, "KINETOSCOPE_PYTORCH=" + mode,
                                    "FAKE_TORCH_LOG=" + logPath, "KINETOSCOPE_PYTORCH_CHILD"});
        options.timeoutMs = 30000;
        const kstest::ProgramRun p = kstest::runProgram(m_python, {"-c", code}, options);
        PythonRun r;
        r.exitCode = p.exitCode;
        r.stderrText = p.err;
        r.log = kstest::split(kstest::readFile(logPath), '\n', true);
        return r;
    }

private slots:
    void initTestCase() { m_python = kstest::findExecutable("python3"); }

    void pythonTargetsAreRecognised()
    {
        kstest::TempDir dir;
        writeFile(dir.filePath("train.py"), "print(1)\n");
        writeFile(dir.filePath("python3.11"), "", true);
        writeFile(dir.filePath("torchrun"), "#!/usr/bin/env python3\nimport sys\n", true);
        writeFile(dir.filePath("job.sh"), "#!/bin/sh\necho python\n", true);
        writeFile(dir.filePath("binary"),
                  std::string("\x7f"
                              "ELF\x02\x01",
                              6),
                  true);
        QVERIFY(isPythonProgram(dir.filePath("train.py")));
        QVERIFY(isPythonProgram(dir.filePath("python3.11")));
        QVERIFY(isPythonProgram(dir.filePath("torchrun")));
        QVERIFY(!isPythonProgram(dir.filePath("job.sh")));
        QVERIFY(!isPythonProgram(dir.filePath("binary")));
        QVERIFY(!isPythonProgram(dir.filePath("missing")));
        QCOMPARE(pytorchOpsFromName("ops-shapes"), std::optional(PyTorchOps::OpsShapes));
        QCOMPARE(pytorchOpsFromName("shapes"), std::nullopt);
    }

    void environmentPutsOursFirst()
    {
        LaunchRequest inherited;
        addPyTorchEnvironment(inherited, PyTorchOps::OpsShapes, "/site", "/a:/b");
        const std::vector<std::pair<std::string, std::string>> expected{{"PYTHONPATH", "/site:/a:/b"},
                                                                        {"KINETOSCOPE_PYTORCH", "ops-shapes"}};
        QCOMPARE(inherited.environment, expected);
        LaunchRequest own; // --env PYTHONPATH=/c replaces what the target would inherit
        own.environment = {{"X", "1"}, {"PYTHONPATH", "/c"}};
        addPyTorchEnvironment(own, PyTorchOps::Ops, "/site", "/a");
        const std::vector<std::pair<std::string, std::string>> expectedOwn{
            {"X", "1"}, {"PYTHONPATH", "/site:/c"}, {"KINETOSCOPE_PYTORCH", "ops"}};
        QCOMPARE(own.environment, expectedOwn);
        LaunchRequest none;
        addPyTorchEnvironment(none, PyTorchOps::Ops, "/site", nullptr);
        QCOMPARE(none.environment.front().second, std::string("/site"));
    }

    void hookEntersEmitNvtxAndChainsUserSite()
    {
        if (m_python.empty())
            QSKIP("no python3");
        kstest::TempDir dir;
        std::filesystem::create_directories(dir.filePath("torchpkg/torch"));
        std::filesystem::create_directories(dir.filePath("user"));
        writeFile(dir.filePath("torchpkg/torch/__init__.py"), fakeTorch(true));
        writeFile(dir.filePath("user/sitecustomize.py"),
                  "import os\nopen(os.environ['FAKE_TORCH_LOG'], 'a').write('user site\\n')\n");
        const std::string path =
            std::string(KS_PYTHON_SITE) + ":" + dir.filePath("user") + ":" + dir.filePath("torchpkg");
        // The script enters emit_nvtx itself too: ours stays the only one.
        const PythonRun r = run(path, "ops-shapes",
                                "import torch\nwith torch.autograd.profiler.emit_nvtx(record_shapes=True):\n    pass\n",
                                dir.filePath("log"));
        QCOMPARE(r.exitCode, 0);
        QCOMPARE(r.log, std::vector<std::string>({"user site", "enter record_shapes=True"}));
        QVERIFY2(kstest::contains(r.stderrText, "enters emit_nvtx itself"), r.stderrText.c_str());
        QVERIFY(!kstest::contains(r.stderrText, "never imported torch"));

        const PythonRun plain = run(path, "ops", "import torch\n", dir.filePath("log2"));
        QCOMPARE(plain.log, std::vector<std::string>({"user site", "enter record_shapes=False"}));
        const PythonRun off = run(path, "off", "import torch\n", dir.filePath("log3"));
        QCOMPARE(off.log, std::vector<std::string>({"user site"}));
    }

    void observerReplacesEmitNvtxWhereBuilt()
    {
        if (m_python.empty())
            QSKIP("no python3");
        kstest::TempDir dir;
        std::filesystem::create_directories(dir.filePath("torchpkg/torch"));
        std::filesystem::create_directories(dir.filePath("lib"));
        writeFile(dir.filePath("torchpkg/torch/__init__.py"), fakeTorch(true) + R"(
def _enable_profiler(*args, **kwargs):
    log("kineto on")
def _disable_profiler(*args, **kwargs):
    log("kineto off")
profiler._enable_profiler = _enable_profiler
profiler._disable_profiler = _disable_profiler
profiler._is_profiler_enabled = False
def _run_on_profiler_stop():
    profiler._is_profiler_enabled = False
profiler._run_on_profiler_stop = _run_on_profiler_stop
)");
        QVERIFY(std::filesystem::copy_file(KS_FAKE_OBSERVER, dir.filePath("lib/libkinetoscope_torch_observer.so")));
        const std::string injection = dir.filePath("lib/libkinetoscope_injection.so");
        const std::string path = std::string(KS_PYTHON_SITE) + ":" + dir.filePath("torchpkg");
        // torch.profiler's __exit__: _disable_profiler(), then _run_on_profiler_stop() clears the
        // flag that makes torch record its profiler-only ranges; the observer's stays set.
        const std::string script = "import torch\n"
                                   "profiler = torch.autograd.profiler\n"
                                   "torch.log('profiling=%s' % profiler._is_profiler_enabled)\n"
                                   "profiler._enable_profiler()\n"
                                   "profiler._disable_profiler()\n"
                                   "profiler._run_on_profiler_stop()\n"
                                   "torch.log('profiling=%s' % profiler._is_profiler_enabled)\n"
                                   "with profiler.emit_nvtx(record_shapes=True):\n"
                                   "    pass\n";
        const PythonRun r =
            run(path, "ops-shapes", script, dir.filePath("log"), {"CUDA_INJECTION64_PATH=" + injection});
        QVERIFY2(r.exitCode == 0, r.stderrText.c_str());
        QCOMPARE(r.log,
                 std::vector<std::string>({"observer start injection=" + injection + " shapes=1", "profiling=True",
                                           "observer pause 1", "kineto on", "kineto off", "observer pause 0",
                                           "profiling=True"}));
        QVERIFY2(kstest::contains(r.stderrText, "torch.profiler starts"), r.stderrText.c_str());
        QVERIFY2(kstest::contains(r.stderrText, "enters emit_nvtx itself"), r.stderrText.c_str());

        // Built for another torch: emit_nvtx, and why.
        const PythonRun other = run(path, "ops", "import torch\n", dir.filePath("log2"),
                                    {"CUDA_INJECTION64_PATH=" + injection, "FAKE_OBSERVER_RELEASE=1.0"});
        QCOMPARE(other.log, std::vector<std::string>({"enter record_shapes=False"}));
        QVERIFY2(kstest::contains(other.stderrText, "built for torch 1.0, this program imports 9.9-fake"),
                 other.stderrText.c_str());
        // The collector asks for emit_nvtx (ops=nvtx, nvtx=cupti): no message.
        const PythonRun declined = run(path, "ops", "import torch\n", dir.filePath("log3"),
                                       {"CUDA_INJECTION64_PATH=" + injection, "FAKE_OBSERVER_START=1"});
        QCOMPARE(declined.log,
                 std::vector<std::string>(
                     {"observer start injection=" + injection + " shapes=0", "enter record_shapes=False"}));
        QVERIFY2(!kstest::contains(declined.stderrText, "observer"), declined.stderrText.c_str());
        const PythonRun failed = run(path, "ops", "import torch\n", dir.filePath("log4"),
                                     {"CUDA_INJECTION64_PATH=" + injection, "FAKE_OBSERVER_START=2"});
        QCOMPARE(failed.log.back(), std::string("enter record_shapes=False"));
        QVERIFY2(kstest::contains(failed.stderrText, "cannot start (fake failure)"), failed.stderrText.c_str());
        // No observer beside the injection library (torch was not found at build time): emit_nvtx, silently.
        const PythonRun absent =
            run(path, "ops", "import torch\n", dir.filePath("log5"),
                {"CUDA_INJECTION64_PATH=" + dir.filePath("elsewhere/libkinetoscope_injection.so")});
        QCOMPARE(absent.log, std::vector<std::string>({"enter record_shapes=False"}));
        QVERIFY2(!kstest::contains(absent.stderrText, "observer"), absent.stderrText.c_str());
    }

    void faultsGetClearMessages()
    {
        if (m_python.empty())
            QSKIP("no python3");
        kstest::TempDir dir;
        std::filesystem::create_directories(dir.filePath("old/torch"));
        std::filesystem::create_directories(dir.filePath("user"));
        writeFile(dir.filePath("old/torch/__init__.py"), fakeTorch(false));
        writeFile(dir.filePath("user/sitecustomize.py"), "raise ValueError('broken site')\n");
        const std::string site = std::string(KS_PYTHON_SITE);
        const PythonRun raising = run(site + ":" + dir.filePath("user") + ":" + dir.filePath("old"), "ops-shapes",
                                      "import torch\nprint('ran')\n", dir.filePath("log"));
        QCOMPARE(raising.exitCode, 0);
        QVERIFY2(kstest::contains(raising.stderrText, "sitecustomize")
                     && kstest::contains(raising.stderrText, "broken site"),
                 raising.stderrText.c_str());
        QVERIFY2(kstest::contains(raising.stderrText, "too old for emit_nvtx(record_shapes"),
                 raising.stderrText.c_str());
        QCOMPARE(raising.log, std::vector<std::string>({"enter record_shapes=None"})); // ops without shapes still

        const PythonRun noTorch = run(site, "ops", "print('no torch here')\n", dir.filePath("log2"));
        QCOMPARE(noTorch.exitCode, 0);
        QVERIFY2(kstest::contains(noTorch.stderrText, "never imported torch"), noTorch.stderrText.c_str());
    }
};

QTEST_GUILESS_MAIN(TestPythonSite)
#include "tst_pythonsite.moc"

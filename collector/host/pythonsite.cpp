#include "collector/host/pythonsite.h"

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <unistd.h>

namespace ks::collector {

std::optional<PyTorchOps> pytorchOpsFromName(std::string_view name)
{
    if (name == "off")
        return PyTorchOps::Off;
    if (name == "ops")
        return PyTorchOps::Ops;
    if (name == "ops-shapes")
        return PyTorchOps::OpsShapes;
    return std::nullopt;
}

std::string_view pytorchOpsName(PyTorchOps mode)
{
    switch (mode) {
    case PyTorchOps::Off: return "off";
    case PyTorchOps::Ops: return "ops";
    case PyTorchOps::OpsShapes: return "ops-shapes";
    }
    return "off";
}

bool isPythonProgram(const std::string& program)
{
    const auto slash = program.rfind('/');
    const std::string_view base = std::string_view(program).substr(slash == std::string::npos ? 0 : slash + 1);
    if (base.substr(0, 6) == "python" || (base.size() > 3 && base.substr(base.size() - 3) == ".py"))
        return true;
    std::ifstream in(program, std::ios::binary);
    char head[2] = {};
    if (!in.read(head, 2) || head[0] != '#' || head[1] != '!')
        return false;
    std::string line;
    std::getline(in, line);
    return line.size() < 512 && line.find("python") != std::string::npos;
}

std::optional<std::string> findPythonSiteDirectory(std::string& error)
{
    constexpr const char* kName = "sitecustomize.py";
    if (const char* explicitDir = std::getenv("KINETOSCOPE_PYTHON_SITE"); explicitDir && *explicitDir) {
        const std::string file = std::string(explicitDir) + "/" + kName;
        if (explicitDir[0] == '/' && access(file.c_str(), R_OK) == 0)
            return std::string(explicitDir);
        error = std::string("KINETOSCOPE_PYTHON_SITE=") + explicitDir + " is not an absolute folder with " + kName;
        return std::nullopt;
    }
    std::string dir;
    const auto found = findNextToExecutable(
        {"/../collector/python/", std::string("/") + KS_PYTHON_SITE_INSTALL_DIR + "/"}, kName, dir);
    if (!found) {
        error = std::string(kName) + " of the collector was not found next to " + dir
            + " (set KINETOSCOPE_PYTHON_SITE, or --pytorch=off)";
        return std::nullopt;
    }
    return found->substr(0, found->rfind('/'));
}

void addPyTorchEnvironment(LaunchRequest& request, PyTorchOps mode, const std::string& siteDirectory,
                           const char* inheritedPythonPath)
{
    auto& env = request.environment;
    std::string pythonPath = inheritedPythonPath ? inheritedPythonPath : "";
    const auto own = std::find_if(env.begin(), env.end(), [](const auto& kv) { return kv.first == "PYTHONPATH"; });
    if (own != env.end()) {
        pythonPath = own->second;
        env.erase(own);
    }
    env.emplace_back("PYTHONPATH", pythonPath.empty() ? siteDirectory : siteDirectory + ":" + pythonPath);
    env.emplace_back("KINETOSCOPE_PYTORCH", std::string(pytorchOpsName(mode)));
}

std::optional<PyTorchOps> preparePyTorchOps(LaunchRequest& request, std::optional<PyTorchOps> requested,
                                            std::vector<std::string>& notes, std::string& error)
{
    std::string unresolved;
    const auto program = resolveProgram(request.program, unresolved);
    const bool python = program && isPythonProgram(*program);
    const PyTorchOps mode = requested.value_or(python ? PyTorchOps::Ops : PyTorchOps::Off);
    if (mode == PyTorchOps::Off)
        return mode;
    const std::string name(pytorchOpsName(mode));
    if (!python && program)
        notes.push_back("--pytorch=" + name + ": " + *program
                        + " does not look like a Python program; the hook only acts if it starts one");
    const auto site = findPythonSiteDirectory(error);
    if (!site) {
        error = "--pytorch: " + error;
        return std::nullopt;
    }
    addPyTorchEnvironment(request, mode, *site, std::getenv("PYTHONPATH"));
    return mode;
}

} // namespace ks::collector

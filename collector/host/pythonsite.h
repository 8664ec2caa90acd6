#pragma once
// --pytorch=off|ops|ops-shapes: a Python target gets the collector's sitecustomize first on
// PYTHONPATH (it enters torch.autograd.profiler.emit_nvtx once torch is imported and chains
// the user's own sitecustomize), so PyTorch's operators arrive as NVTX op ranges.
#include "collector/host/launcher.h"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace ks::collector {

enum class PyTorchOps : std::uint8_t { Off, Ops, OpsShapes };

std::optional<PyTorchOps> pytorchOpsFromName(std::string_view name);
std::string_view pytorchOpsName(PyTorchOps mode);

// python, python3.11, a *.py script, or an executable whose "#!" line names python
// (torchrun, accelerate, ...). `program` is a path (resolved by resolveProgram).
bool isPythonProgram(const std::string& program);

// The folder holding the collector's sitecustomize.py: KINETOSCOPE_PYTHON_SITE, else next to
// this executable (build tree or install prefix).
std::optional<std::string> findPythonSiteDirectory(std::string& error);

// Adds PYTHONPATH (ours first, then what the target would have had: `inheritedPythonPath`
// or the request's own --env value) and KINETOSCOPE_PYTORCH to the request.
void addPyTorchEnvironment(LaunchRequest& request, PyTorchOps mode, const std::string& siteDirectory,
                           const char* inheritedPythonPath);

// --pytorch for a launch (the CLI's and the GUI's): `requested` unset means ops for a Python
// program, else off. Adds the environment when on and returns the mode; `notes` gets warnings
// for the user. nullopt with `error` when the hook is wanted but cannot be found.
std::optional<PyTorchOps> preparePyTorchOps(LaunchRequest& request, std::optional<PyTorchOps> requested,
                                            std::vector<std::string>& notes, std::string& error);

} // namespace ks::collector

#pragma once
// The subcommands of kinetoscope-cli, one file each, parsed with CLI11.
//
// How to add a command `foo`:
//   1. Write cli/foo_command.cpp with `void addFooCommand(CLI::App& app)` that calls
//      `app.add_subcommand("foo", "one line for the command list")`, adds its options to the
//      returned subcommand (values into a std::shared_ptr'd options struct that the callback
//      captures), checks values with validators (`->check(...)`) so that bad ones are usage
//      errors naming the option, and sets `->callback([options] { exitWith(runFoo(*options)); })`.
//   2. Declare addFooCommand below, call it from main.cpp, add the file to cli/CMakeLists.txt.
// Usage errors (unknown option, missing or bad value, extra argument) exit with 2 and name the
// option; `--help` works on every subcommand and `--opt=value` is accepted everywhere.
#include "core/analysis/devicepeaks.h"
#include "core/facts/stepfinder.h"

#include <CLI/CLI.hpp>

#include <cmath>
#include <ostream>
#include <string>

namespace ks::cli {

inline constexpr int kUsageError = 2;

// Ends a command's callback with `status`; main() returns it. 0 returns normally.
inline void exitWith(int status)
{
    if (status != 0)
        throw CLI::RuntimeError(status);
}

// Validators whose messages say what a value needs (CLI::PositiveNumber lets nan through).
inline const CLI::Validator kPositiveFinite(
    [](const std::string& text) -> std::string {
        double value = 0;
        if (!CLI::detail::lexical_cast(text, value) || !std::isfinite(value) || value <= 0)
            return "needs a positive finite number, got '" + text + "'";
        return {};
    },
    "");
inline const CLI::Validator kCount(
    [](const std::string& text) -> std::string {
        unsigned long long value = 0;
        if (text.empty() || text.front() == '-' || !CLI::detail::lexical_cast(text, value))
            return "needs a whole number >= 0, got '" + text + "'";
        return {};
    },
    "");

// --steps NAME|REGEX: the user's steps for traces without ProfilerStep#N (facts::StepFinder);
// a bad regex is a usage error naming the option.
inline void addStepsOption(CLI::App* command, facts::StepRules& rules)
{
    const CLI::Validator pattern(
        [](const std::string& text) -> std::string {
            if (text.empty())
                return "needs a slice name or a regular expression";
            const std::string error = facts::stepPatternError(text);
            return error.empty() ? std::string() : "'" + text + "' is " + error;
        },
        "");
    command
        ->add_option("--steps", rules.userPattern,
                     "steps without ProfilerStep#N: ranges named NAME, or whose names match REGEX")
        ->type_name("NAME|REGEX")
        ->check(pattern);
}

// --peak-tflops PEAK and --peak-tbps TBPS: the user's roofs instead of the datasheet's
// (docs/roofline.md), parsed into `overrides`; a bad value is a usage error naming the option.
inline void addPeakOptions(CLI::App* command, analysis::PeakOverrides& overrides)
{
    using Parse = std::optional<std::string> (*)(std::string_view, analysis::PeakOverrides&);
    const auto add = [&](const char* name, Parse parse, const char* help, const char* typeName) {
        const CLI::Validator valid(
            [parse](const std::string& text) -> std::string {
                analysis::PeakOverrides scratch;
                return parse(text, scratch).value_or(std::string());
            },
            "");
        command
            ->add_option_function<std::string>(
                name, [parse, &overrides](const std::string& text) { parse(text, overrides); }, help)
            ->type_name(typeName)
            ->check(valid);
    };
    add("--peak-tflops", &analysis::parsePeakTflops,
        "compute roofs in TFLOP/s: one for all, or fp64=,fp32=,tf32=,bf16=,fp8=", "PEAK");
    add("--peak-tbps", &analysis::parsePeakTBps, "memory roof in TB/s", "TBPS");
}

void addInfoCommand(CLI::App& app);
void addGpuCommand(CLI::App& app);
void addOpsCommand(CLI::App& app);
void addCollectCommand(CLI::App& app);
void addInsightsCommand(CLI::App& app);
void addConvertCommand(CLI::App& app);
void addDiffCommand(CLI::App& app);
void addRanksCommand(CLI::App& app);
void addSummarizeCommand(CLI::App& app);

void addTreeCommand(CLI::App& app);
void addQueryCommand(CLI::App& app);
void addMemoryCommand(CLI::App& app);
void addCriticalPathCommand(CLI::App& app);

} // namespace ks::cli

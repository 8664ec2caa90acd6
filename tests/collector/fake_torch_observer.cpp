// Stands in for libkinetoscope_torch_observer.so in tst_pythonsite (no torch needed): appends
// each call to FAKE_TORCH_LOG and answers with FAKE_OBSERVER_RELEASE (the torch release it was
// "built for", default the fake torch's) and FAKE_OBSERVER_START (0 started, 1 declined, 2 failed).
#include <cstdio>
#include <cstdlib>

namespace {

void logLine(const char* format, const char* text, int number)
{
    const char* path = std::getenv("FAKE_TORCH_LOG");
    if (FILE* f = path ? std::fopen(path, "a") : nullptr) {
        std::fprintf(f, format, text, number);
        std::fputc('\n', f);
        std::fclose(f);
    }
}

} // namespace

extern "C" __attribute__((visibility("default"))) const char* kinetoscope_observer_torch_release(void)
{
    const char* release = std::getenv("FAKE_OBSERVER_RELEASE");
    return release ? release : "9.9-fake";
}

extern "C" __attribute__((visibility("default"))) int kinetoscope_observer_start(const char* injection, int shapes,
                                                                                 char* error, std::size_t bytes)
{
    logLine("observer start injection=%s shapes=%d", injection ? injection : "(null)", shapes);
    const char* answer = std::getenv("FAKE_OBSERVER_START");
    const int code = answer ? std::atoi(answer) : 0;
    if (code == 2)
        std::snprintf(error, bytes, "fake failure");
    return code;
}

extern "C" __attribute__((visibility("default"))) void kinetoscope_observer_pause(int paused)
{
    logLine("observer pause%s %d", "", paused);
}

#pragma once
// A dependency-free test harness for the tests that must build without Qt (the GPU machine
// has none): KS_TEST registers a case, KS_CHECK/KS_CHECK_EQ record a failure and return
// from the case, main() runs every case (or those named on the command line) and exits 1
// on any failure. ctest runs each executable like a Qt Test one.
#include <cstdio>
#include <cstring>
#include <functional>
#include <sstream>
#include <string>
#include <vector>

namespace ks::minitest {

struct Case {
    const char* name;
    void (*body)();
};

inline std::vector<Case>& cases()
{
    static std::vector<Case> all;
    return all;
}

inline bool& currentFailed()
{
    static bool failed = false;
    return failed;
}

struct Registrar {
    Registrar(const char* name, void (*body)()) { cases().push_back({name, body}); }
};

inline void fail(const char* file, int line, const std::string& what)
{
    std::fprintf(stderr, "FAIL %s:%d: %s\n", file, line, what.c_str());
    currentFailed() = true;
}

template <class T>
std::string show(const T& value)
{
    if constexpr (requires(std::ostream& os) { os << value; }) {
        std::ostringstream out;
        out << value;
        return out.str();
    } else {
        return "?";
    }
}

inline int runAll(int argc, char** argv)
{
    int failed = 0;
    int ran = 0;
    for (const Case& c : cases()) {
        bool selected = argc < 2;
        for (int i = 1; i < argc; ++i)
            selected = selected || std::strcmp(argv[i], c.name) == 0;
        if (!selected)
            continue;
        ++ran;
        currentFailed() = false;
        try {
            c.body();
        } catch (const std::exception& e) {
            fail(__FILE__, __LINE__, std::string("exception: ") + e.what());
        }
        std::printf("%s %s\n", currentFailed() ? "FAIL!" : "PASS ", c.name);
        failed += currentFailed() ? 1 : 0;
    }
    std::printf("%d passed, %d failed\n", ran - failed, failed);
    return failed == 0 && ran > 0 ? 0 : 1;
}

} // namespace ks::minitest

#define KS_TEST(name)                                                                                              \
    static void name();                                                                                            \
    static const ks::minitest::Registrar name##_registrar(#name, name);                                             \
    static void name()

#define KS_CHECK(condition)                                                                                        \
    do {                                                                                                           \
        if (!(condition)) {                                                                                        \
            ks::minitest::fail(__FILE__, __LINE__, #condition);                                                    \
            return;                                                                                                \
        }                                                                                                          \
    } while (false)

#define KS_CHECK_EQ(actual, expected)                                                                              \
    do {                                                                                                           \
        const auto& ksActual = (actual);                                                                           \
        const auto& ksExpected = (expected);                                                                       \
        if (!(ksActual == ksExpected)) {                                                                           \
            ks::minitest::fail(__FILE__, __LINE__,                                                                 \
                               std::string(#actual " == " #expected ": ") + ks::minitest::show(ksActual)         \
                                   + " != " + ks::minitest::show(ksExpected));                                     \
            return;                                                                                                \
        }                                                                                                          \
    } while (false)

#define KS_TEST_MAIN()                                                                                             \
    int main(int argc, char** argv) { return ks::minitest::runAll(argc, argv); }

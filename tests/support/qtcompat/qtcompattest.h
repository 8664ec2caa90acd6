#pragma once
// The Qt Test half of the compatibility layer (see qtcompat.h): QCOMPARE, QVERIFY, data rows,
// QSKIP, QTRY_COMPARE, and a runner that calls the slots the generated "<test>.moc" lists.
#include "qtcompatprocess.h"

namespace ks::qtcompat {

enum class Outcome { Passed, Failed, Skipped };

struct State {
    Outcome outcome = Outcome::Passed;
    std::string function; // "TestClass::function"
    std::string tag;
};

inline State& state()
{
    static State s;
    return s;
}

inline void report(const char* kind, const std::string& what, const char* file, int line)
{
    const State& s = state();
    std::printf("%s: %s(%s) %s\n   Loc: [%s(%d)]\n", kind, s.function.c_str(), s.tag.c_str(), what.c_str(), file, line);
}

inline bool fail(const std::string& what, const char* file, int line)
{
    report("FAIL!  ", what, file, line);
    state().outcome = Outcome::Failed;
    return false;
}

// QVERIFY2's and QFAIL's message: text of any of the string types.
inline std::string messageText(const std::string& text) { return text; }
inline std::string messageText(const char* text) { return text ? text : ""; }

// Values as QTest prints them, for what this layer knows how to print.
template <class T>
std::string show(const T& value)
{
    if constexpr (std::is_enum_v<T>) {
        return std::to_string(static_cast<long long>(value));
    } else if constexpr (std::is_same_v<T, bool>) {
        return value ? "true" : "false";
    } else if constexpr (std::is_same_v<T, QStringList>) {
        std::string out = "(";
        for (qsizetype i = 0; i < value.size(); ++i)
            out += (i ? ", \"" : "\"") + std::string(value[std::size_t(i)]) + "\"";
        return out + ")";
    } else if constexpr (requires(std::ostream & os) { os << value; }) {
        std::ostringstream out;
        out.precision(17);
        out << value;
        return out.str();
    } else {
        return "<value>";
    }
}

// QTest's floating-point comparison: relative 1e-12 (double) or 1e-5 (float), exact around zero,
// NaN equal to NaN and infinities to the same infinity.
template <class F>
bool fuzzyEqual(F actual, F expected)
{
    const F nullBound = std::is_same_v<F, float> ? F(0.00001) : F(0.000000000001);
    const F scale = std::is_same_v<F, float> ? F(100000) : F(1000000000000);
    if (std::isnan(expected))
        return std::isnan(actual);
    if (std::isinf(expected))
        return std::isinf(actual) && (actual < 0) == (expected < 0);
    if (std::abs(expected) > nullBound)
        return std::abs(actual - expected) * scale <= std::min(std::abs(actual), std::abs(expected));
    return std::abs(actual) <= nullBound;
}

template <class T>
constexpr bool plainInteger =
    std::is_integral_v<
        T> && !std::is_same_v<T, bool> && !std::is_same_v<T, char> && !std::is_same_v<T, char8_t> && !std::is_same_v<T, char16_t> && !std::is_same_v<T, char32_t> && !std::is_same_v<T, wchar_t>;

template <class A, class B>
bool equal(const A& actual, const B& expected)
{
    if constexpr (std::is_floating_point_v<A> && std::is_floating_point_v<B>) {
        using F = std::common_type_t<A, B>;
        return fuzzyEqual(F(actual), F(expected));
    } else if constexpr (plainInteger<A> && plainInteger<B>) {
        return std::cmp_equal(actual, expected);
    } else {
        return actual == expected;
    }
}

template <class A, class B>
bool compare(const A& actual, const B& expected, const char* actualText, const char* expectedText, const char* file,
             int line)
{
    if (equal(actual, expected))
        return true;
    return fail(std::string("Compared values are not the same\n   Actual   (") + actualText + "): " + show(actual)
                    + "\n   Expected (" + expectedText + "): " + show(expected),
                file, line);
}

struct Column {
    std::string name;
    const std::type_info* type;
};

struct Row {
    std::string tag;
    std::vector<std::any> values;
};

struct DataTable {
    std::vector<Column> columns;
    std::vector<Row> rows;
};

inline DataTable& table()
{
    static DataTable t;
    return t;
}

inline const Row*& currentRow()
{
    static const Row* row = nullptr;
    return row;
}

class RowBuilder {
public:
    explicit RowBuilder(Row& row)
        : m_row(&row)
    {
    }
    template <class V>
    RowBuilder& operator<<(const V& value)
    {
        if constexpr (std::is_convertible_v<const V&, const char*>)
            m_row->values.emplace_back(QString(static_cast<const char*>(value))); // as Qt: text is a QString
        else
            m_row->values.emplace_back(value);
        return *this;
    }

private:
    Row* m_row;
};

template <class T>
T fetch(const char* name)
{
    const DataTable& t = table();
    const Row* row = currentRow();
    for (std::size_t i = 0; row && i < t.columns.size() && i < row->values.size(); ++i) {
        if (t.columns[i].name != name)
            continue;
        if (const T* value = std::any_cast<T>(&row->values[i]))
            return *value;
        std::fprintf(stderr, "QFETCH(%s): row \"%s\" holds %s, not %s\n", name, row->tag.c_str(),
                     row->values[i].type().name(), typeid(T).name());
        std::abort(); // as Qt's QFETCH assertion: the test itself is wrong
    }
    std::fprintf(stderr, "QFETCH: no column \"%s\"\n", name);
    std::abort();
}

// QSKIP returns from the function like Qt's; this marks the outcome.
inline void skip(const char* why, const char* file, int line)
{
    report("SKIP   ", why, file, line);
    state().outcome = Outcome::Skipped;
}

// Specialized by the generated "<test>.moc": addTo(Runner<T>&) names the class and its slots.
template <class T>
struct SlotTable;

template <class T>
class Runner {
public:
    using Function = void (T::*)();

    void setClassName(const char* name) { m_className = name; }
    void add(const char* name, Function function) { m_functions.push_back({name, function}); }

    int run(int argc, char** argv)
    {
        T test;
        const std::string& className = m_className;
        std::printf("********* Start testing of %s (Qt Test compatibility layer, no Qt) *********\n",
                    className.c_str());
        int passed = 0, failed = 0, skipped = 0;
        auto count = [&](Outcome o, const std::string& name, const std::string& tag) {
            if (o == Outcome::Passed) {
                ++passed;
                std::printf("PASS   : %s::%s(%s)\n", className.c_str(), name.c_str(), tag.c_str());
            }
            failed += o == Outcome::Failed ? 1 : 0;
            skipped += o == Outcome::Skipped ? 1 : 0;
        };
        bool setUpFailed = false;
        if (Function f = find("initTestCase")) {
            setUpFailed = !call(test, f, "initTestCase", "");
            count(state().outcome, "initTestCase", "");
        }
        for (const auto& [name, function] : m_functions) {
            if (setUpFailed || isSpecial(name) || !selected(name, argc, argv))
                continue;
            table() = DataTable{};
            Row noData{"", {}};
            std::vector<const Row*> rows{&noData};
            if (Function data = find(name + "_data")) {
                call(test, data, name + "_data", "");
                rows.clear();
                for (const Row& r : table().rows)
                    rows.push_back(&r);
            }
            for (const Row* row : rows) {
                currentRow() = row;
                call(test, function, name, row->tag);
                count(state().outcome, name, row->tag);
            }
            currentRow() = nullptr;
        }
        std::printf("Totals: %d passed, %d failed, %d skipped\n", passed, failed, skipped);
        std::printf("********* Finished testing of %s *********\n", className.c_str());
        return failed == 0 && passed > 0 ? 0 : 1;
    }

private:
    static bool isSpecial(const std::string& name)
    {
        return name == "initTestCase" || (name.size() > 5 && name.compare(name.size() - 5, 5, "_data") == 0);
    }
    static bool selected(const std::string& name, int argc, char** argv)
    {
        bool any = false;
        for (int i = 1; i < argc; ++i) {
            if (argv[i][0] == '-')
                continue;
            any = true;
            if (name == argv[i])
                return true;
        }
        return !any;
    }
    Function find(const std::string& name) const
    {
        for (const auto& [n, f] : m_functions)
            if (n == name)
                return f;
        return nullptr;
    }
    bool call(T& test, Function f, const std::string& name, const std::string& tag) const
    {
        state() = State{Outcome::Passed, m_className + "::" + name, tag};
        try {
            (test.*f)();
        } catch (const std::exception& e) {
            fail(std::string("Caught unhandled exception: ") + e.what(), __FILE__, __LINE__);
        } catch (...) {
            fail("Caught unhandled exception", __FILE__, __LINE__);
        }
        return state().outcome == Outcome::Passed;
    }

    std::string m_className;
    std::vector<std::pair<std::string, Function>> m_functions;
};

} // namespace ks::qtcompat

namespace QTest {

template <class T>
void addColumn(const char* name)
{
    ks::qtcompat::table().columns.push_back({name, &typeid(T)});
}

inline ks::qtcompat::RowBuilder newRow(const char* tag)
{
    auto& rows = ks::qtcompat::table().rows;
    rows.push_back({tag, {}});
    return ks::qtcompat::RowBuilder(rows.back());
}

inline ks::qtcompat::RowBuilder addRow(const char* format, ...)
{
    char tag[1024];
    va_list args;
    va_start(args, format);
    std::vsnprintf(tag, sizeof tag, format, args);
    va_end(args);
    return newRow(tag);
}

} // namespace QTest

// The class's slots are private: the generated table is a friend.
#define Q_OBJECT                                                                                                       \
    template <class>                                                                                                   \
    friend struct ::ks::qtcompat::SlotTable;
#define slots
#define Q_SLOTS
#define Q_DECLARE_METATYPE(Type) // data rows hold any copyable type

// The slot table is defined after this, by the .moc the test includes last.
#define QTEST_APPLESS_MAIN(TestClass)                                                                                  \
    void ksQtCompatAddSlots(ks::qtcompat::Runner<TestClass>& runner);                                                  \
    int main(int argc, char** argv)                                                                                    \
    {                                                                                                                  \
        ks::qtcompat::Runner<TestClass> runner;                                                                        \
        ksQtCompatAddSlots(runner);                                                                                    \
        return runner.run(argc, argv);                                                                                 \
    }
#define QTEST_GUILESS_MAIN(TestClass) QTEST_APPLESS_MAIN(TestClass)
#define QTEST_MAIN(TestClass) QTEST_APPLESS_MAIN(TestClass)

#define QVERIFY2(condition, message)                                                                                   \
    do {                                                                                                               \
        if (!(condition)) {                                                                                            \
            ks::qtcompat::fail("'" #condition "' returned FALSE. (" + ks::qtcompat::messageText(message) + ")",        \
                               __FILE__, __LINE__);                                                                    \
            return;                                                                                                    \
        }                                                                                                              \
    } while (false)
#define QVERIFY(condition)                                                                                             \
    do {                                                                                                               \
        if (!(condition)) {                                                                                            \
            ks::qtcompat::fail("'" #condition "' returned FALSE.", __FILE__, __LINE__);                                \
            return;                                                                                                    \
        }                                                                                                              \
    } while (false)
#define QCOMPARE(actual, expected)                                                                                     \
    do {                                                                                                               \
        if (!ks::qtcompat::compare(actual, expected, #actual, #expected, __FILE__, __LINE__))                          \
            return;                                                                                                    \
    } while (false)
#define QFAIL(message)                                                                                                 \
    do {                                                                                                               \
        ks::qtcompat::fail(ks::qtcompat::messageText(message), __FILE__, __LINE__);                                    \
        return;                                                                                                        \
    } while (false)
#define QSKIP(message)                                                                                                 \
    do {                                                                                                               \
        ks::qtcompat::skip(message, __FILE__, __LINE__);                                                               \
        return;                                                                                                        \
    } while (false)
#define QFETCH(Type, name) Type name = ks::qtcompat::fetch<Type>(#name)

// Polls for up to 5 s, as Qt's.
#define QTRY_COMPARE(actual, expected)                                                                                 \
    do {                                                                                                               \
        const auto ksTryDeadline = std::chrono::steady_clock::now() + std::chrono::seconds(5);                         \
        while (!ks::qtcompat::equal(actual, expected) && std::chrono::steady_clock::now() < ksTryDeadline)             \
            std::this_thread::sleep_for(std::chrono::milliseconds(10));                                                \
        QCOMPARE(actual, expected);                                                                                    \
    } while (false)

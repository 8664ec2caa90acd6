#pragma once
// Qt Test without Qt: what the core, CLI and collector tests use of Qt Test and Qt Core, on the
// standard library, so that they build and run where Qt is absent (the GPU machine,
// KINETOSCOPE_BUILD_GUI=OFF). tests/CMakeLists.txt puts this folder on the include path only
// when Qt Test is not found; its <QTest>, <QString>, ... headers all land here, and a generated
// "<test>.moc" lists the test class's slots (qtcompat.cmake). Semantics follow Qt's where a
// test could tell: QCOMPARE is fuzzy for floating point, data rows, QSKIP, QTRY_COMPARE.
// Strings are UTF-8 bytes (no UTF-16 QString): a test that counts non-ASCII characters needs
// real Qt. Only what these tests use is here (docs/testing.md): a test that needs more of Qt
// either adds it here or is written with tests/support/minitest.h. Here: the text types and
// small pieces; qtcompatfiles.h, qtcompatprocess.h and qtcompattest.h hold the rest.
#include <algorithm>
#include <any>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstdarg>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <initializer_list>
#include <map>
#include <optional>
#include <regex>
#include <sstream>
#include <string>
#include <string_view>
#include <thread>
#include <type_traits>
#include <typeinfo>
#include <utility>
#include <vector>

using qint64 = long long;
using qsizetype = std::ptrdiff_t;

template <class T>
T qAbs(const T& v)
{
    return v < T(0) ? -v : v;
}

class QString;
class QByteArray;
class QStringList;

namespace Qt {
enum SplitBehaviorFlags { KeepEmptyParts, SkipEmptyParts };
}

namespace ks::qtcompat {

// The text operations QString and QByteArray share (both are UTF-8 bytes here).
template <class Self>
class Text : public std::string {
public:
    using std::string::string;
    Text() = default;
    Text(const std::string& s)
        : std::string(s)
    {
    }
    Text(std::string&& s)
        : std::string(std::move(s))
    {
    }
    Text(std::string_view s)
        : std::string(s)
    {
    }
    // (text, length) with any integer length, -1 meaning up to the NUL, as Qt's.
    template <class Length>
    requires std::is_integral_v<Length> Text(const char* s, Length n)
        : std::string(s ? (isNegative(n) ? std::string(s) : std::string(s, std::size_t(n))) : std::string())
    {
    }

    qsizetype size() const { return qsizetype(std::string::size()); }
    qsizetype length() const { return size(); }
    qsizetype count() const { return size(); }
    bool isEmpty() const { return empty(); }
    bool isNull() const { return empty(); }
    const char* constData() const { return c_str(); }
    std::string toStdString() const { return *this; }
    bool contains(std::string_view s) const { return find(s) != npos; }
    bool contains(char c) const { return find(c) != npos; }
    bool startsWith(std::string_view s) const { return std::string_view(*this).substr(0, s.size()) == s; }
    bool startsWith(char c) const { return !empty() && front() == c; }
    bool endsWith(std::string_view s) const
    {
        return size() >= qsizetype(s.size()) && std::string_view(*this).substr(std::string::size() - s.size()) == s;
    }
    bool endsWith(char c) const { return !empty() && back() == c; }
    qsizetype indexOf(std::string_view s, qsizetype from = 0) const { return position(find(s, std::size_t(from))); }
    qsizetype indexOf(char c, qsizetype from = 0) const { return position(find(c, std::size_t(from))); }
    qsizetype lastIndexOf(std::string_view s) const { return position(rfind(s)); }
    qsizetype lastIndexOf(char c) const { return position(rfind(c)); }
    qsizetype count(std::string_view s) const
    {
        qsizetype n = 0;
        for (std::size_t at = find(s); !s.empty() && at != npos; at = find(s, at + s.size()))
            ++n;
        return n;
    }
    Self left(qsizetype n) const { return Self(substr(0, std::size_t(std::max<qsizetype>(n, 0)))); }
    Self right(qsizetype n) const
    {
        return Self(substr(std::string::size() - std::size_t(std::clamp<qsizetype>(n, 0, size()))));
    }
    Self mid(qsizetype from, qsizetype n = -1) const
    {
        if (from >= size())
            return Self();
        return Self(substr(std::size_t(from), n < 0 ? npos : std::size_t(n)));
    }
    Self trimmed() const
    {
        const char* space = " \t\n\r\f\v";
        const std::size_t first = find_first_not_of(space);
        return first == npos ? Self() : Self(substr(first, find_last_not_of(space) - first + 1));
    }
    Self repeated(qsizetype times) const
    {
        Self out;
        for (qsizetype i = 0; i < times; ++i)
            out += *this;
        return out;
    }
    Self& append(std::string_view s)
    {
        std::string::append(s);
        return self();
    }
    Self& append(char c)
    {
        push_back(c);
        return self();
    }
    qint64 toLongLong(bool* ok = nullptr, int base = 10) const
    {
        const std::string text = trimmed();
        char* end = nullptr;
        errno = 0;
        const qint64 v = std::strtoll(text.c_str(), &end, base);
        const bool good = !text.empty() && errno == 0 && end == text.c_str() + text.size();
        if (ok)
            *ok = good;
        return good ? v : 0;
    }

private:
    template <class Length>
    static bool isNegative(Length n)
    {
        if constexpr (std::is_signed_v<Length>)
            return n < 0;
        else
            return false;
    }
    Self& self() { return static_cast<Self&>(*this); }
    static qsizetype position(std::size_t at) { return at == npos ? -1 : qsizetype(at); }
};

// printf's %f, %e or %g with `precision` digits (Qt's 'f', 'e', 'g').
inline std::string numberText(double v, char format, int precision)
{
    const char spec[] = {'%', '.', '*', format, '\0'};
    char text[512];
    std::snprintf(text, sizeof text, spec, precision, v);
    return text;
}

template <class T>
std::string numberText(T v)
{
    if constexpr (std::is_floating_point_v<T>) {
        std::ostringstream out;
        out.precision(6);
        out << v;
        return out.str();
    } else {
        return std::to_string(v);
    }
}

// As QString::fromUtf8 decodes: each byte of an invalid sequence (overlong, surrogate, beyond
// U+10FFFF, truncated) becomes U+FFFD.
inline std::string validUtf8(std::string_view in)
{
    std::string out;
    out.reserve(in.size());
    for (std::size_t i = 0; i < in.size();) {
        const auto byte = [&](std::size_t k) { return static_cast<unsigned char>(in[k]); };
        const unsigned char lead = byte(i);
        std::size_t length = lead < 0x80   ? 1
            : lead >= 0xC2 && lead <= 0xDF ? 2
            : lead >= 0xE0 && lead <= 0xEF ? 3
            : lead >= 0xF0 && lead <= 0xF4 ? 4
                                           : 0;
        bool valid = length != 0 && i + length <= in.size();
        for (std::size_t k = 1; valid && k < length; ++k)
            valid = (byte(i + k) & 0xC0) == 0x80;
        if (valid && length == 3) {
            const unsigned second = byte(i + 1);
            valid = !(lead == 0xE0 && second < 0xA0) && !(lead == 0xED && second >= 0xA0);
        }
        if (valid && length == 4) {
            const unsigned second = byte(i + 1);
            valid = !(lead == 0xF0 && second < 0x90) && !(lead == 0xF4 && second >= 0x90);
        }
        if (valid) {
            out.append(in.substr(i, length));
            i += length;
        } else {
            out.append("\xEF\xBF\xBD");
            ++i;
        }
    }
    return out;
}

} // namespace ks::qtcompat

class QByteArray : public ks::qtcompat::Text<QByteArray> {
public:
    using Text::Text;
    QByteArray() = default;
    QByteArray(const char* s)
        : Text(s ? s : "")
    {
    }
    QByteArray(qsizetype n, char c)
        : Text(std::string(std::size_t(n), c))
    {
    }
    static QByteArray fromStdString(const std::string& s) { return QByteArray(s); }
    template <class T>
    static QByteArray number(T v)
    {
        return QByteArray(ks::qtcompat::numberText(v));
    }
    static QByteArray number(double v, char format, int precision = 6)
    {
        return QByteArray(ks::qtcompat::numberText(v, format, precision));
    }
    std::vector<QByteArray> split(char sep) const;
};

class QString : public ks::qtcompat::Text<QString> {
public:
    using Text::Text;
    QString() = default;
    QString(const char* s)
        : Text(s ? s : "")
    {
    }
    QString(const QByteArray& s)
        : Text(std::string(s))
    {
    }
    QString(char c)
        : Text(std::string(1, c))
    {
    }
    static QString fromStdString(const std::string& s) { return QString(s); }
    static QString fromUtf8(const char* s, qsizetype n = -1) { return QString(ks::qtcompat::validUtf8(QString(s, n))); }
    static QString fromUtf8(const QByteArray& s) { return QString(ks::qtcompat::validUtf8(s)); }
    static QString fromLatin1(const char* s, qsizetype n = -1) { return QString(s, n); }
    template <class T>
    static QString number(T v)
    {
        return QString(ks::qtcompat::numberText(v));
    }
    static QString number(double v, char format, int precision = 6)
    {
        return QString(ks::qtcompat::numberText(v, format, precision));
    }
    QByteArray toUtf8() const { return QByteArray(std::string(*this)); }
    QByteArray toLocal8Bit() const { return toUtf8(); }
    QStringList split(std::string_view sep, Qt::SplitBehaviorFlags behavior = Qt::KeepEmptyParts) const;
    QStringList split(char sep, Qt::SplitBehaviorFlags behavior = Qt::KeepEmptyParts) const;

    // "%1 of %2": the lowest-numbered marker takes the argument, as in Qt.
    QString arg(const QString& a) const
    {
        int lowest = 100;
        for (std::size_t i = 0; i + 1 < std::string::size(); ++i)
            if ((*this)[i] == '%' && std::isdigit(static_cast<unsigned char>((*this)[i + 1])))
                lowest = std::min(lowest, (*this)[i + 1] - '0');
        if (lowest == 100)
            return *this;
        const std::string marker = "%" + std::to_string(lowest);
        QString out = *this;
        for (std::size_t at = out.find(marker); at != npos; at = out.find(marker, at + a.std::string::size()))
            out.std::string::replace(at, marker.size(), a);
        return out;
    }
    // Unlike Qt's, a marker inside `a` is replaced too (no test passes one).
    QString arg(const QString& a, const QString& b) const { return arg(a).arg(b); }
    QString arg(const char* a) const { return arg(QString(a)); }
    QString arg(const std::string& a) const { return arg(QString(a)); }
    QString arg(char a) const { return arg(QString(a)); }
    template <class T>
    requires std::is_arithmetic_v<T> QString arg(T a)
    const { return arg(QString(ks::qtcompat::numberText(a))); }
};

using QLatin1String = QString;
inline char QLatin1Char(char c) { return c; }
#define QStringLiteral(text) QString(text)
#define qPrintable(text) (std::string(text).c_str())

inline QString operator+(const QString& a, const QString& b) { return QString(std::string(a) + std::string(b)); }
inline QString operator+(const QString& a, const char* b) { return QString(std::string(a) + b); }
inline QString operator+(const char* a, const QString& b) { return QString(a + std::string(b)); }
inline QString operator+(const QString& a, char b) { return QString(std::string(a) + b); }
inline QByteArray operator+(const QByteArray& a, const QByteArray& b)
{
    return QByteArray(std::string(a) + std::string(b));
}
inline QByteArray operator+(const QByteArray& a, const char* b) { return QByteArray(std::string(a) + b); }
inline QByteArray operator+(const char* a, const QByteArray& b) { return QByteArray(a + std::string(b)); }
inline QByteArray operator+(const QByteArray& a, char b) { return QByteArray(std::string(a) + b); }

class QStringList : public std::vector<QString> {
public:
    using std::vector<QString>::vector;
    QStringList() = default;
    QStringList(std::vector<QString> v)
        : std::vector<QString>(std::move(v))
    {
    }
    QStringList(std::initializer_list<QString> v)
        : std::vector<QString>(v)
    {
    }
    qsizetype size() const { return qsizetype(std::vector<QString>::size()); }
    qsizetype count() const { return size(); }
    qsizetype length() const { return size(); }
    bool isEmpty() const { return empty(); }
    bool contains(const QString& s) const { return std::find(begin(), end(), s) != end(); }
    qsizetype count(const QString& s) const { return qsizetype(std::count(begin(), end(), s)); }
    qsizetype indexOf(const QString& s, qsizetype from = 0) const
    {
        const auto it = std::find(begin() + std::min(from, size()), end(), s);
        return it == end() ? -1 : qsizetype(it - begin());
    }
    QStringList mid(qsizetype from, qsizetype n = -1) const
    {
        const qsizetype first = std::clamp<qsizetype>(from, 0, size());
        const qsizetype last = n < 0 ? size() : std::min(size(), first + n);
        return QStringList(std::vector<QString>(begin() + first, begin() + last));
    }
    const QString& first() const { return front(); }
    const QString& last() const { return back(); }
    QString join(std::string_view sep) const
    {
        QString out;
        for (std::size_t i = 0; i < std::vector<QString>::size(); ++i)
            out += (i ? std::string(sep) : std::string()) + std::string((*this)[i]);
        return out;
    }
    QString join(char sep) const { return join(std::string_view(&sep, 1)); }
    QStringList& operator<<(const QString& s)
    {
        push_back(s);
        return *this;
    }
    QStringList& operator<<(const QStringList& l)
    {
        insert(end(), l.begin(), l.end());
        return *this;
    }
    QStringList& operator+=(const QStringList& l) { return *this << l; }
    QStringList& operator+=(const QString& s) { return *this << s; }
    QStringList operator+(const QStringList& l) const
    {
        QStringList out = *this;
        return out << l;
    }
    template <class Pattern>
    QStringList filter(const Pattern& pattern) const
    {
        QStringList out;
        for (const QString& s : *this)
            if (pattern.matches(s))
                out << s;
        return out;
    }
};

inline QStringList QString::split(std::string_view sep, Qt::SplitBehaviorFlags behavior) const
{
    QStringList out;
    const auto add = [&](std::string part) {
        if (!part.empty() || behavior == Qt::KeepEmptyParts)
            out << QString(std::move(part));
    };
    std::size_t from = 0;
    for (std::size_t at = find(sep); !sep.empty() && at != npos; at = find(sep, from)) {
        add(substr(from, at - from));
        from = at + sep.size();
    }
    add(substr(from));
    return out;
}

inline QStringList QString::split(char sep, Qt::SplitBehaviorFlags behavior) const
{
    return split(std::string_view(&sep, 1), behavior);
}

inline std::vector<QByteArray> QByteArray::split(char sep) const
{
    std::vector<QByteArray> out;
    for (const QString& part : QString(*this).split(sep))
        out.push_back(QByteArray(std::string(part)));
    return out;
}

// On std::regex (ECMAScript: the tests' patterns mean the same in Qt's PCRE).
class QRegularExpressionMatch {
public:
    bool hasMatch() const { return !m_captures.empty(); }
    QString captured(int n) const { return n < int(m_captures.size()) ? m_captures[std::size_t(n)] : QString(); }

private:
    friend class QRegularExpression;
    std::vector<QString> m_captures;
};

class QRegularExpression {
public:
    explicit QRegularExpression(const QString& pattern)
        : m_regex(pattern)
    {
    }
    QRegularExpressionMatch match(const QString& s) const
    {
        QRegularExpressionMatch found;
        std::smatch m;
        if (std::regex_search(s.begin(), s.end(), m, m_regex))
            for (const auto& capture : m)
                found.m_captures.push_back(QString(capture.str()));
        return found;
    }
    bool matches(const QString& s) const { return std::regex_search(s.begin(), s.end(), m_regex); }

private:
    std::regex m_regex;
};

class QObject {
public:
    virtual ~QObject() = default;
};

class QElapsedTimer {
public:
    void start() { m_start = std::chrono::steady_clock::now(); }
    qint64 elapsed() const
    {
        return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - m_start)
            .count();
    }

private:
    std::chrono::steady_clock::time_point m_start = std::chrono::steady_clock::now();
};

// ---- messages --------------------------------------------------------------------------------

#define qWarning(...) (std::fprintf(stderr, __VA_ARGS__), std::fputc('\n', stderr))
#define qFatal(...) (std::fprintf(stderr, __VA_ARGS__), std::fputc('\n', stderr), std::abort())

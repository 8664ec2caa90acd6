#include "core/loading/jsonscan.h"

#include <QtTest>

using namespace ks::json;

class TestJsonScan : public QObject {
    Q_OBJECT
private slots:
    void decimalToNs_data()
    {
        QTest::addColumn<std::string>("text");
        QTest::addColumn<std::int64_t>("ns");
        QTest::addColumn<bool>("ok");
        // kineto's µs with three decimals must come out exact (trace-format.md §5): through
        // double, 4441053504039.333 * 1000 is off by one.
        QTest::newRow("kineto") << std::string("4441053504039.333") << std::int64_t(4441053504039333) << true;
        QTest::newRow("integer") << std::string("12") << std::int64_t(12000) << true;
        QTest::newRow("short fraction") << std::string("0.5") << std::int64_t(500) << true;
        QTest::newRow("sub-ns rounds up") << std::string("1.0005") << std::int64_t(1001) << true;
        QTest::newRow("sub-ns rounds down") << std::string("1.0004") << std::int64_t(1000) << true;
        QTest::newRow("exponent") << std::string("1.5e3") << std::int64_t(1500000) << true;
        QTest::newRow("negative") << std::string("-2.250") << std::int64_t(-2250) << true;
        QTest::newRow("absolute epoch us")
            << std::string("1700000000123456.789") << std::int64_t(1700000000123456789) << true;
        QTest::newRow("overflow") << std::string("1e400") << std::int64_t(0) << false;
        QTest::newRow("too large") << std::string("99999999999999999999") << std::int64_t(0) << false;
        QTest::newRow("junk") << std::string("12abc") << std::int64_t(0) << false;
        QTest::newRow("empty") << std::string() << std::int64_t(0) << false;
    }
    void decimalToNs()
    {
        QFETCH(std::string, text);
        QFETCH(std::int64_t, ns);
        QFETCH(bool, ok);
        std::int64_t out = 0;
        const std::string s = text;
        QCOMPARE(decimalToScaled(s, 3, out), ok);
        if (ok)
            QCOMPARE(std::int64_t(out), ns);
    }

    void everyKinetoValueExact()
    {
        // All 3-decimal values of a range parse exactly (the double route fails ~24%).
        for (std::int64_t ns = 4441053504039000; ns < 4441053504039000 + 5000; ++ns) {
            const std::string s = std::to_string(ns / 1000) + "." + std::to_string(1000 + ns % 1000).substr(1);
            std::int64_t out = 0;
            QVERIFY(decimalToScaled(s, 3, out));
            QCOMPARE(out, ns);
        }
    }

    void strings_data()
    {
        QTest::addColumn<std::string>("json");
        QTest::addColumn<std::string>("expected");
        QTest::newRow("plain") << std::string("\"aten::mm\"") << std::string("aten::mm");
        QTest::newRow("escapes") << std::string("\"a\\\"b\\\\c\\n\"") << std::string("a\"b\\c\n");
        QTest::newRow("unicode") << std::string("\"\\u00e9\"") << std::string("é");
        QTest::newRow("surrogate pair") << std::string("\"\\ud83d\\ude00\"") << std::string("😀");
        QTest::newRow("lone surrogate") << std::string("\"x\\ud800y\"") << std::string("x\uFFFDy");
        QTest::newRow("bad escape") << std::string("\"\\q\"") << std::string("\uFFFD");
    }
    void strings()
    {
        QFETCH(std::string, json);
        QFETCH(std::string, expected);
        Cursor c{json.c_str(), json.c_str() + json.size()};
        std::string_view out;
        std::string scratch;
        QCOMPARE(parseString(c, out, scratch), Status::Ok);
        QCOMPARE(std::string(out), expected);
        QCOMPARE(c.p, json.c_str() + json.size());
    }

    // A string with a malformed \u escape reads the same wherever the window ends once the
    // string has: a non-hex byte decides, not the end of the window (a fuzz_loader finding:
    // `\u"` at the end of a chunk made an entry unfinished that a whole load read).
    void malformedUnicodeEscapeReadsTheSameInAnyWindow_data()
    {
        QTest::addColumn<std::string>("json");
        QTest::addColumn<std::string>("expected");
        QTest::newRow("quote after \\u") << std::string("\"x\\u\"}}") << std::string("x\uFFFD");
        QTest::newRow("two hex digits") << std::string("\"x\\u12\"}}") << std::string("x\uFFFD12");
        QTest::newRow("bad low half") << std::string("\"\\ud83d\\u\"}}") << std::string("\uFFFD\uFFFD");
    }
    void malformedUnicodeEscapeReadsTheSameInAnyWindow()
    {
        QFETCH(std::string, json);
        QFETCH(std::string, expected);
        const std::size_t stringEnd = json.rfind('"') + 1;
        for (std::size_t end = stringEnd; end <= json.size(); ++end) {
            Cursor c{json.c_str(), json.c_str() + end};
            std::string_view out;
            std::string scratch;
            QCOMPARE(parseString(c, out, scratch), Status::Ok);
            QCOMPARE(std::string(out), expected);
            QCOMPARE(c.p, json.c_str() + stringEnd);
        }
    }

    void incompleteNeverReadsPastTheEnd()
    {
        const std::string full = "{\"a\":[1,{\"b\":\"x\\\"]\"}],\"c\":-1.5e3} ";
        for (std::size_t cut = 1; cut < full.size() - 1; ++cut) {
            Cursor c{full.c_str(), full.c_str() + cut};
            QCOMPARE(skipValue(c), Status::Incomplete);
        }
        Cursor c{full.c_str(), full.c_str() + full.size()};
        QCOMPARE(skipValue(c), Status::Ok);
        QCOMPARE(*c.p, ' ');
    }

    void deepNestingIsIterative()
    {
        std::string deep(100000, '[');
        deep += std::string(100000, ']') + ",";
        Cursor c{deep.data(), deep.data() + deep.size()};
        QCOMPARE(skipValue(c), Status::Ok);
        QCOMPARE(*c.p, ',');
    }

    // The loader cuts traceEvents where whole entries end. Against skipValue() entry by entry,
    // for every end of the window: brackets and escaped quotes in strings, backslashes on the
    // 64-byte blocks' edges, nested containers, scalars and strings between the objects.
    void wholeEntriesEndAgreesWithSkipValue()
    {
        std::string text;
        // (No raw string literals: moc of Qt 6.4 stops reading the file at them.)
        const char* entries[] = {
            "{\"name\": \"a{b[c\", \"args\": {\"x\": [1, {\"y\": \"]}\"}]}}",
            "{\"name\": \"quote \\\" { inside\", \"ts\": 1.5}",
            "{\"name\": \"backslash \\\\\", \"v\": \"\\\\\\\" ]\"}",
            "[1, 2, {\"z\": []}]",
            "17",
            "\"a string entry with } and ]\"",
            "{}",
        };
        for (int i = 0; i < 60; ++i) {
            text += entries[i % std::size(entries)];
            text += std::string(static_cast<std::size_t>(i % 5), ' ') + (i % 3 ? ",\n" : ", ");
        }
        text += "]";
        const char* begin = text.data();
        for (std::size_t n = 0; n <= text.size(); ++n) {
            const char* end = begin + n;
            const char* expected = begin;
            Cursor c{begin, end};
            while (true) {
                while (c.p < end && (isSpace(*c.p) || *c.p == ','))
                    ++c.p;
                if (c.p >= end || *c.p == ']')
                    break;
                const bool container = *c.p == '{' || *c.p == '[';
                if (skipValue(c) != Status::Ok)
                    break;
                if (container)
                    expected = c.p;
            }
            QCOMPARE(wholeEntriesEnd(begin, end) - begin, expected - begin);
        }
    }

    // The cut also tells the parse workers whether its entries need a UTF-8 and escape check:
    // one byte >= 0x80 or one backslash anywhere in the cut, in a 64-byte block or the tail
    // after the last block, makes it not plain.
    void wholeEntriesEndTellsPlainAscii()
    {
        std::string plain;
        for (int i = 0; i < 40; ++i)
            plain += "{\"name\": \"aten::mm\", \"args\": {\"External id\": " + std::to_string(i) + "}},\n";
        plain += "]";
        const auto check = [](const std::string& text) {
            bool plainAscii = false;
            const char* end = wholeEntriesEnd(text.data(), text.data() + text.size(), &plainAscii);
            if (*end != ',')
                return -1; // not cut after an entry
            return plainAscii ? 1 : 0;
        };
        QCOMPARE(check(plain), 1);
        // In the first entry, one in the middle of a block, and the last (in the tail): the 't' of
        // "aten", inside a string, so the entries stay the same.
        const std::size_t middle = plain.find("{\"name", 64 * 5);
        const std::size_t last = plain.rfind("{\"name");
        for (const std::size_t entry : {std::size_t(0), middle, last}) {
            const std::size_t at = entry + 11;
            QCOMPARE(plain[at], 't');
            std::string accented = plain;
            accented.replace(at, 1, "\xC3\xA9");
            QCOMPARE(check(accented), 0);
            std::string escaped = plain;
            escaped.replace(at, 1, "\\n");
            QCOMPARE(check(escaped), 0);
        }
    }
};

QTEST_APPLESS_MAIN(TestJsonScan)
#include "tst_jsonscan.moc"

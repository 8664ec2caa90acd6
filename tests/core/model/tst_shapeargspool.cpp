// The loader's pool of distinct shape args (core/model/shapeargspool.h): one id per distinct
// text through the index's growth, texts whose hashes collide kept apart, and a full pool that
// keeps no more while it still finds what it holds.
#include "core/model/shapeargspool.h"
#include "core/model/trace.h"

#include <QTest>

#include <cstdint>
#include <string>
#include <vector>

using namespace ks;

namespace {

struct OwnedText {
    std::string dims, types, concrete;
    ShapeArgsText view() const { return {dims, types, concrete}; }
};

std::vector<OwnedText> distinctTexts(int count)
{
    std::vector<OwnedText> texts;
    for (int i = 0; i < count; ++i) {
        const std::string n = std::to_string(i);
        texts.push_back({"[[" + n + ", 64], [64, " + n + "]]", R"(["float", "float"])", i % 3 ? R"(["", ""])" : ""});
    }
    return texts;
}

} // namespace

class TestShapeArgsPool : public QObject {
    Q_OBJECT
private slots:
    void internsEachDistinctTextOnce()
    {
        const auto texts = distinctTexts(5000); // the index grows from 64 slots to 16384
        ShapeArgsPool pool;
        for (std::size_t i = 0; i < texts.size(); ++i)
            QCOMPARE(pool.intern(texts[i].view(), ShapeArgsPool::hashOf(texts[i].view())), std::uint32_t(i));
        QCOMPARE(pool.size(), texts.size());
        for (std::size_t i = 0; i < texts.size(); ++i) {
            const OwnedText copy = texts[i]; // equal text at other addresses
            QCOMPARE(pool.intern(copy.view(), ShapeArgsPool::hashOf(copy.view())), std::uint32_t(i));
            QVERIFY(pool.view(std::uint32_t(i)) == texts[i].view());
        }
        QCOMPARE(pool.size(), texts.size());
        QCOMPARE(ShapeArgsPool::hashOf({}), ShapeArgsPool::kNoArgsHash);
        QVERIFY(pool.intern({}, ShapeArgsPool::kNoArgsHash) != kNoIndex);
        QCOMPARE(pool.size(), texts.size() + 1);
    }

    void textsWithOneHashStayApart()
    {
        // The same array under another key hashes alike (an absent array adds nothing to the hash).
        const OwnedText asDims{"[[1]]", "", ""}, asTypes{"", "[[1]]", ""};
        QCOMPARE(ShapeArgsPool::hashOf(asDims.view()), ShapeArgsPool::hashOf(asTypes.view()));
        ShapeArgsPool pool;
        const std::uint32_t dims = pool.intern(asDims.view(), ShapeArgsPool::hashOf(asDims.view()));
        const std::uint32_t types = pool.intern(asTypes.view(), ShapeArgsPool::hashOf(asTypes.view()));
        QVERIFY(dims != types);
        QVERIFY(pool.view(types) == asTypes.view());
        // Every text under one hash: each lookup walks the others and still finds its own.
        const auto texts = distinctTexts(300);
        ShapeArgsPool colliding;
        for (std::size_t i = 0; i < texts.size(); ++i)
            QCOMPARE(colliding.intern(texts[i].view(), 42), std::uint32_t(i));
        for (std::size_t i = 0; i < texts.size(); ++i)
            QCOMPARE(colliding.intern(texts[i].view(), 42), std::uint32_t(i));
    }

    void fullPoolKeepsNoMore()
    {
        ShapeArgsPool pool;
        const std::size_t arrays = ShapeArgsPool::kMaxTextBytes / (std::size_t(1) << 20);
        std::vector<OwnedText> texts;
        for (std::size_t i = 0; i <= arrays; ++i)
            texts.push_back({"[" + std::to_string(i) + std::string((std::size_t(1) << 20) - 4, ' ') + "]", "", ""});
        for (std::size_t i = 0; i < arrays; ++i)
            QCOMPARE(pool.intern(texts[i].view(), ShapeArgsPool::hashOf(texts[i].view())), std::uint32_t(i));
        QCOMPARE(pool.intern(texts[arrays].view(), ShapeArgsPool::hashOf(texts[arrays].view())), kNoIndex);
        QCOMPARE(pool.intern(texts[0].view(), ShapeArgsPool::hashOf(texts[0].view())), std::uint32_t(0));
        QCOMPARE(pool.size(), arrays);
    }
};

QTEST_APPLESS_MAIN(TestShapeArgsPool)
#include "tst_shapeargspool.moc"

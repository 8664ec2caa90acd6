#include "fixture.h"
#include "widgets/detailspanel.h"

#include <QApplication>
#include <QClipboard>
#include <QSignalSpy>
#include <QTest>
#include <QTreeWidget>

using namespace ks;

class TestDetailsPanel : public QObject {
    Q_OBJECT
private:
    std::shared_ptr<const Trace> m_trace;
    SliceId m_kernel = kNoSlice;
    SliceId m_launch = kNoSlice;

    static QTreeWidgetItem* child(QTreeWidgetItem* parent, const QString& key)
    {
        for (int i = 0; i < parent->childCount(); ++i) {
            if (parent->child(i)->text(0) == key)
                return parent->child(i);
        }
        return nullptr;
    }

private Q_SLOTS:
    void initTestCase()
    {
        m_trace = test::loadFixture("transformer");
        m_kernel = test::findByCorrelation(*m_trace, "kernel", 4297);
        m_launch = test::findByCorrelation(*m_trace, "cuda_runtime", 4297);
        QVERIFY(m_kernel != kNoSlice && m_launch != kNoSlice);
    }

    void showsKernelFields()
    {
        DetailsPanel panel;
        panel.setTrace(m_trace);
        panel.showSlice(m_kernel);
        QVERIFY(panel.fieldValue("Name").startsWith("sm80_xmma_gemm_f32f32_f32f32_f32_tn_n_tilesize128x128x8"));
        QCOMPARE(panel.fieldValue("Category"), QStringLiteral("kernel"));
        QCOMPARE(panel.fieldValue("Track"), QStringLiteral("GPU 0 · NVIDIA H200 / stream 7"));
        // ts 4441053502021.843 µs, trace start 4441053500240.926 µs, base 1790857026 s.
        QCOMPARE(panel.fieldValue("Start"), QString::fromStdString(formatDuration(1'780'917)));
        QCOMPARE(panel.fieldValue("Start (absolute)"), QStringLiteral("2026-11-21 21:54:39.502021843 UTC"));
        QCOMPARE(panel.fieldValue("Duration"), QString::fromStdString(formatDuration(90'912)));
        QCOMPARE(panel.fieldValue("Self time"), QString::fromStdString(formatDuration(90'912)));
        // Nested in the gpu_user_annotations ProfilerStep#2 and Self-Attention.
        QCOMPARE(panel.fieldValue("Depth"), QStringLiteral("2"));

        // Args are decoded from the raw event text.
        QTreeWidgetItem* args = panel.tree()->findItems("Arguments", Qt::MatchExactly).value(0);
        QVERIFY(args);
        QCOMPARE(child(args, "correlation")->text(1), QStringLiteral("4297"));
        QCOMPARE(child(args, "grid")->text(1), QStringLiteral("[16,12,1]"));
        QCOMPARE(child(args, "registers per thread")->text(1), QStringLiteral("255"));
        QCOMPARE(child(args, "est. achieved occupancy %")->text(1), QStringLiteral("9"));

        QTreeWidgetItem* flow = panel.tree()->findItems("Incoming flow", Qt::MatchExactly).value(0);
        QVERIFY(flow);
        QVERIFY2(flow->text(1).startsWith("ac2g: from cudaLaunchKernelExC on thread 572 (python3) (start to start "),
                 qPrintable(flow->text(1)));
        QVERIFY(flow->text(1).contains(QString::fromStdString(formatDuration(11'415))));
        // One term each, defined where it is shown (issue 35): "delay" alone no longer appears.
        QVERIFY(!flow->text(1).contains(QStringLiteral("delay")));
        QVERIFY(flow->toolTip(1).contains(QStringLiteral("Start to start: the flow's target starts")));
        QTreeWidgetItem* launchDelay = child(flow, "Launch delay");
        QVERIFY(launchDelay);
        QVERIFY(launchDelay->toolTip(0).contains(QStringLiteral("minus the end of its launch call")));
        QVERIFY(panel.tree()->findItems("Outgoing flow", Qt::MatchExactly).isEmpty());
    }

    void clickingAFlowEntryReportsTheOtherEnd()
    {
        DetailsPanel panel;
        panel.setTrace(m_trace);
        panel.showSlice(m_launch);
        QSignalSpy spy(&panel, &DetailsPanel::flowTargetActivated);
        QTreeWidgetItem* flow = panel.tree()->findItems("Outgoing flow", Qt::MatchExactly).value(0);
        QVERIFY(flow);
        Q_EMIT panel.tree()->itemClicked(flow, 1);
        QCOMPARE(spy.count(), 1);
        QCOMPARE(spy.at(0).at(0).value<SliceId>(), m_kernel);
    }

    void copiesSelectedRows()
    {
        DetailsPanel panel;
        panel.setTrace(m_trace);
        panel.showSlice(m_launch);
        QTreeWidgetItem* name = panel.tree()->findItems("Name", Qt::MatchExactly).value(0);
        name->setSelected(true);
        panel.copySelection();
        QCOMPARE(QApplication::clipboard()->text(), QStringLiteral("Name\tcudaLaunchKernelExC"));
    }

    void clearsForNoSelection()
    {
        DetailsPanel panel;
        panel.setTrace(m_trace);
        panel.showSlice(m_kernel);
        panel.showSlice(kNoSlice);
        QCOMPARE(panel.tree()->topLevelItemCount(), 0);
        QVERIFY(panel.flowLinks().empty());
    }
};

QTEST_MAIN(TestDetailsPanel)
#include "tst_detailspanel.moc"

#include "app/colortheme.h"
#include "app/mainwindow.h"
#include "app/memorypolicy.h"
#include "app/notescontroller.h"
#include "core/version.h"

#include <QApplication>
#include <QCommandLineParser>
#include <QIcon>

#include <cstdio>
#include <exception>

namespace {

int runApp(int argc, char** argv)
{
    ks::useMemoryPolicyForLargeTraces();
    QApplication app(argc, argv);
    QApplication::setOrganizationName(QStringLiteral("Kinetoscope"));
    QApplication::setApplicationName(QStringLiteral("kinetoscope"));
    QApplication::setApplicationVersion(QString::fromLatin1(ks::kVersion));
    QApplication::setDesktopFileName(QStringLiteral(KS_APP_ID)); // the installed .desktop entry
    QApplication::setWindowIcon(QIcon::fromTheme(QStringLiteral(KS_APP_ID)));

    QCommandLineParser parser;
    parser.setApplicationDescription(QApplication::translate("main", "Viewer for PyTorch profiler traces"));
    parser.addHelpOption();
    parser.addVersionOption();
    const QCommandLineOption demo(QStringLiteral("demo"),
                                  QApplication::translate("main", "Open the bundled demo trace."));
    parser.addOption(demo);
    const QCommandLineOption diff(QStringLiteral("diff"),
                                  QApplication::translate("main", "Compare two traces: BASE above NEW."));
    parser.addOption(diff);
    const QCommandLineOption view(
        QStringLiteral("view"),
        QApplication::translate("main", "Open FILE at its view NAME, saved in FILE.kinetoscope.json (Save View As…)."),
        QStringLiteral("NAME"));
    parser.addOption(view);
    parser.addPositionalArgument(
        QStringLiteral("files"),
        QApplication::translate("main",
                                "Traces to open (*.pt.trace.json[.gz]); several files or "
                                "a folder open as the ranks of one run; with --diff, BASE NEW."),
        QStringLiteral("[file...]"));
    parser.process(app);
    const QStringList files = parser.positionalArguments();
    if (parser.isSet(diff) && files.size() != 2) {
        std::fprintf(stderr, "%s\n", qPrintable(QApplication::translate("main", "--diff needs two traces: BASE NEW")));
        return 2;
    }

    if (parser.isSet(view) && (files.size() != 1 || parser.isSet(diff))) {
        std::fprintf(stderr, "%s\n", qPrintable(QApplication::translate("main", "--view NAME needs one trace: FILE")));
        return 2;
    }

    if (const ks::ColorTheme theme = ks::savedColorTheme(); theme != ks::ColorTheme::System)
        ks::applyColorTheme(theme);
    ks::MainWindow window;
    window.show();
    if (parser.isSet(view))
        window.notes()->openViewOnLoad(parser.value(view));
    if (parser.isSet(diff))
        window.openComparison(files[0], files[1]);
    else if (!files.isEmpty())
        window.openFiles(files);
    else if (parser.isSet(demo))
        window.openDemo();
    return app.exec();
}

} // namespace

// Nothing ends in std::terminate: an exception that reached main is an error, exit 1.
int main(int argc, char** argv)
{
    try {
        return runApp(argc, argv);
    } catch (const std::exception& e) {
        std::fprintf(stderr, "error: %s\n", e.what());
    } catch (...) {
        std::fprintf(stderr, "error: unexpected failure\n");
    }
    return 1;
}

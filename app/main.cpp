#include "app/mainwindow.h"
#include "core/version.h"

#include <QApplication>
#include <QCommandLineParser>
#include <QIcon>

#include <cstdio>
#include <exception>

namespace {

int runApp(int argc, char** argv)
{
    QApplication app(argc, argv);
    QApplication::setOrganizationName(QStringLiteral("Kinetoscope"));
    QApplication::setApplicationName(QStringLiteral("kinetoscope"));
    QApplication::setApplicationVersion(QString::fromLatin1(ks::kVersion));
    QApplication::setDesktopFileName(QStringLiteral(KS_APP_ID)); // the installed .desktop entry
    QApplication::setWindowIcon(QIcon::fromTheme(QStringLiteral("kinetoscope")));

    QCommandLineParser parser;
    parser.setApplicationDescription(QApplication::translate("main", "Viewer for PyTorch profiler traces"));
    parser.addHelpOption();
    parser.addVersionOption();
    const QCommandLineOption demo(QStringLiteral("demo"),
                                  QApplication::translate("main", "Open the bundled demo trace."));
    parser.addOption(demo);
    parser.addPositionalArgument(QStringLiteral("file"),
                                 QApplication::translate("main", "Trace to open (*.pt.trace.json[.gz])."),
                                 QStringLiteral("[file]"));
    parser.process(app);

    ks::MainWindow window;
    window.show();
    if (!parser.positionalArguments().isEmpty())
        window.openFile(parser.positionalArguments().constFirst());
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

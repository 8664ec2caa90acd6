#include "app/mainwindow.h"

#include <QApplication>
#include <QCommandLineParser>

#include <cstdio>

int main(int argc, char** argv)
{
    QApplication app(argc, argv);
    QApplication::setOrganizationName(QStringLiteral("Kinetoscope"));
    QApplication::setApplicationName(QStringLiteral("kinetoscope"));
    QApplication::setApplicationVersion(QStringLiteral(KS_VERSION));

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
    parser.addPositionalArgument(QStringLiteral("files"),
                                 QApplication::translate("main", "Traces to open (*.pt.trace.json[.gz]); several files or "
                                                                 "a folder open as the ranks of one run; with --diff, BASE NEW."),
                                 QStringLiteral("[file...]"));
    parser.process(app);
    const QStringList files = parser.positionalArguments();
    if (parser.isSet(diff) && files.size() != 2) {
        std::fprintf(stderr, "%s\n", qPrintable(QApplication::translate("main", "--diff needs two traces: BASE NEW")));
        return 2;
    }

    ks::MainWindow window;
    window.show();
    if (parser.isSet(diff))
        window.openComparison(files[0], files[1]);
    else if (!files.isEmpty())
        window.openFiles(files);
    else if (parser.isSet(demo))
        window.openDemo();
    return app.exec();
}

// The GUI's job view from a folder of rank summaries (issue 40: 1,024 ranks settle in <= 2 s at
// <= 300 MB RSS on 2 cores): the main window opens the folder as a user would (a folder on the
// command line), and the time until the Job dock, the heat map and the summary rows are shown
// and painted, with the RSS then and at the peak, is printed.
//   bench_jobview DIR     DIR: summaries, e.g. from bench/job-scale.sh (WORK/summaries)
#include "app/jobcontroller.h"
#include "app/mainwindow.h"
#include "bench/measure.h"
#include "widgets/timelinewidget.h"

#include <QApplication>
#include <QElapsedTimer>
#include <QFile>
#include <QSignalSpy>

#include <cstdio>

namespace {

double rssMb(const char* field) // "VmRSS", "VmHWM"
{
    QFile status(QStringLiteral("/proc/self/status"));
    if (!status.open(QIODevice::ReadOnly))
        return -1;
    for (const QByteArray& line : status.readAll().split('\n')) {
        if (line.startsWith(field))
            return line.mid(int(qstrlen(field)) + 1).trimmed().split(' ').front().toDouble() / 1024.0;
    }
    return -1;
}

} // namespace

int main(int argc, char** argv)
{
    if (argc != 2)
        return std::fprintf(stderr, "usage: bench_jobview DIR   (a folder of rank summaries)\n"), 2;
    qputenv("QT_QPA_PLATFORM", "offscreen");
    QApplication app(argc, argv);
    ks::MainWindow window;
    window.resize(1920, 1080);
    window.show();
    QApplication::processEvents();
    const double before = rssMb("VmRSS");
    const auto start = ks::bench::Clock::now();
    const double cpu0 = ks::bench::cpuSeconds();
    QSignalSpy shown(window.job(), &ks::JobController::jobShown);
    window.openFiles({QString::fromLocal8Bit(argv[1])});
    if (!shown.wait(120'000))
        return std::fprintf(stderr, "bench_jobview: the job view did not open in 2 minutes\n"), 1;
    window.grab(); // painted: the Job dock, the heat map, the timeline's summary rows
    QApplication::processEvents();
    const double seconds = ks::bench::secondsSince(start);
    const auto job = window.job()->job();
    std::size_t collectives = 0;
    for (const auto& kernels : job->report.matching.kernels)
        collectives += kernels.size();
    std::printf("job view of %zu ranks (%zu collectives, %zu steps in the heat map, %zu summaries left out) "
                "settled in %.2f s wall, %.2f s CPU; RSS %.0f MB (%.0f MB before opening), peak %.0f MB\n"
                "verdict: %s\n",
                job->ranks.size(), collectives, job->heatMap.steps.size(), job->errors.size(), seconds,
                ks::bench::cpuSeconds() - cpu0, rssMb("VmRSS"), before, rssMb("VmHWM"),
                job->report.straggler.text.c_str());
    return 0;
}

#include "app/recorddialog.h"

#include "collector/protocol/injectionoptions.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDialogButtonBox>
#include <QDoubleSpinBox>
#include <QFileDialog>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QMessageBox>
#include <QPlainTextEdit>
#include <QProcess>
#include <QPushButton>
#include <QSettings>

#include <algorithm>

namespace ks {
namespace {

QWidget* withBrowse(QLineEdit* edit, QWidget* parent, const std::function<QString()>& browse)
{
    auto* row = new QWidget(parent);
    auto* layout = new QHBoxLayout(row);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(edit);
    auto* button = new QPushButton(QObject::tr("Browse…"), row);
    QObject::connect(button, &QPushButton::clicked, row, [edit, browse] {
        const QString chosen = browse();
        if (!chosen.isEmpty())
            edit->setText(chosen);
    });
    layout->addWidget(button);
    return row;
}

QDoubleSpinBox* secondsBox(QWidget* parent, const QString& zeroText)
{
    auto* box = new QDoubleSpinBox(parent);
    box->setRange(0, 24 * 3600);
    box->setDecimals(1);
    box->setSuffix(QObject::tr(" s"));
    box->setSpecialValueText(zeroText); // shown at 0
    return box;
}

QString secondsText(double seconds) { return QString::number(seconds, 'g', 10); }

void selectData(QComboBox* box, const QString& data)
{
    const int index = box->findData(data);
    box->setCurrentIndex(index >= 0 ? index : 0);
}

} // namespace

RecordDialog::RecordDialog(QWidget* parent)
    : QDialog(parent)
    , m_program(new QLineEdit(this))
    , m_arguments(new QLineEdit(this))
    , m_workingDirectory(new QLineEdit(this))
    , m_environment(new QPlainTextEdit(this))
    , m_pytorch(new QComboBox(this))
    , m_capture(new QComboBox(this))
    , m_nvtxName(new QLineEdit(this))
    , m_delay(secondsBox(this, tr("none")))
    , m_duration(secondsBox(this, tr("to the end")))
    , m_stepMarker(new QLineEdit(this))
    , m_collectorOptions(new QLineEdit(this))
    , m_startPaused(new QCheckBox(tr("Start with the capture &paused (press Resume Capture to begin)"), this))
    , m_liveWindow(
          new QCheckBox(tr("Live timeline shows the most &recent events (all of them once the recording ends)"), this))
    , m_commandLine(new QLabel(this))
{
    setWindowTitle(tr("Record a CUDA Program"));
    // Names for tests and accessibility tools.
    m_program->setObjectName(QStringLiteral("program"));
    m_arguments->setObjectName(QStringLiteral("arguments"));
    m_environment->setObjectName(QStringLiteral("environment"));
    m_pytorch->setObjectName(QStringLiteral("pytorch"));
    m_capture->setObjectName(QStringLiteral("capture"));
    m_nvtxName->setObjectName(QStringLiteral("nvtxName"));
    m_delay->setObjectName(QStringLiteral("delay"));
    m_duration->setObjectName(QStringLiteral("duration"));
    m_stepMarker->setObjectName(QStringLiteral("stepMarker"));
    m_collectorOptions->setObjectName(QStringLiteral("collectorOptions"));
    m_startPaused->setObjectName(QStringLiteral("startPaused"));
    m_liveWindow->setObjectName(QStringLiteral("liveWindow"));
    m_liveWindow->setToolTip(tr("The live timeline keeps up with the program past millions of events by holding "
                                "the most recent %L1 at most; the finished trace holds everything")
                                 .arg(RecordingOptions::kLiveWindowSlices));
    m_commandLine->setObjectName(QStringLiteral("commandLine"));
    m_program->setPlaceholderText(tr("e.g. python3 or /path/to/app"));
    m_arguments->setPlaceholderText(tr("e.g. train.py --epochs 1 (quote arguments with spaces)"));
    m_workingDirectory->setPlaceholderText(tr("current directory"));
    m_environment->setPlaceholderText(tr("One K=V per line, e.g. CUDA_VISIBLE_DEVICES=0"));
    m_environment->setTabChangesFocus(true);

    auto* form = new QFormLayout;
    form->addRow(tr("&Program:"), withBrowse(m_program, this, [this] {
                     return QFileDialog::getOpenFileName(this, tr("Program to Record"), m_workingDirectory->text());
                 }));
    form->addRow(tr("&Arguments:"), m_arguments);
    form->addRow(tr("&Working directory:"), withBrowse(m_workingDirectory, this, [this] {
                     return QFileDialog::getExistingDirectory(this, tr("Working Directory"),
                                                              m_workingDirectory->text());
                 }));
    form->addRow(tr("&Environment:"), m_environment);

    m_pytorch->addItem(tr("Automatic: operators for Python programs"), QString());
    m_pytorch->addItem(tr("Off"), QStringLiteral("off"));
    m_pytorch->addItem(tr("Operators"), QStringLiteral("ops"));
    m_pytorch->addItem(tr("Operators with input shapes (costs more)"), QStringLiteral("ops-shapes"));
    form->addRow(tr("P&yTorch:"), m_pytorch);
    m_capture->addItem(tr("The whole run"), QString());
    m_capture->addItem(tr("Between cudaProfilerStart and cudaProfilerStop"), QStringLiteral("cudaProfilerApi"));
    m_capture->addItem(tr("Inside NVTX ranges named:"), QStringLiteral("nvtx"));
    m_nvtxName->setPlaceholderText(tr("range or record_function name"));
    auto* captureRow = new QWidget(this);
    auto* captureLayout = new QHBoxLayout(captureRow);
    captureLayout->setContentsMargins(0, 0, 0, 0);
    captureLayout->addWidget(m_capture);
    captureLayout->addWidget(m_nvtxName, 1);
    form->addRow(tr("&Capture:"), captureRow);
    auto* timeRow = new QWidget(this);
    auto* timeLayout = new QHBoxLayout(timeRow);
    timeLayout->setContentsMargins(0, 0, 0, 0);
    timeLayout->addWidget(new QLabel(tr("delay"), timeRow));
    timeLayout->addWidget(m_delay);
    timeLayout->addWidget(new QLabel(tr("duration"), timeRow));
    timeLayout->addWidget(m_duration);
    timeLayout->addStretch(1);
    form->addRow(tr("&Time:"), timeRow);
    m_stepMarker->setPlaceholderText(tr("optional: NVTX range or record_function label opened once per step"));
    form->addRow(tr("Step &marker:"), m_stepMarker);
    m_collectorOptions->setPlaceholderText(tr("optional, comma-separated: e.g. buffer_mb=16,stats=1"));
    m_collectorOptions->setToolTip(tr("What kinetoscope-cli collect --collector-options takes (docs/cli.md): "
                                      "buffer_mb, max_buffers, flush_ms, kinds, api, nvtx, ops, stats, ..."));
    form->addRow(tr("C&ollector options:"), m_collectorOptions);
    form->addRow(QString(), m_startPaused);
    form->addRow(QString(), m_liveWindow);
    m_commandLine->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_commandLine->setWordWrap(true);
    form->addRow(tr("Command line:"), m_commandLine);

    auto* buttons = new QDialogButtonBox(QDialogButtonBox::Cancel, this);
    buttons->addButton(tr("&Start Recording"), QDialogButtonBox::AcceptRole);
    connect(buttons, &QDialogButtonBox::accepted, this, &QDialog::accept);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);

    auto* layout = new QVBoxLayout(this);
    layout->addLayout(form);
    layout->addWidget(buttons);
    resize(640, sizeHint().height());
    load();
    for (QLineEdit* edit : {m_program, m_arguments, m_nvtxName, m_stepMarker, m_collectorOptions})
        connect(edit, &QLineEdit::textChanged, this, &RecordDialog::updateCommandLine);
    connect(m_environment, &QPlainTextEdit::textChanged, this, &RecordDialog::updateCommandLine);
    for (QComboBox* box : {m_pytorch, m_capture})
        connect(box, &QComboBox::currentIndexChanged, this, &RecordDialog::updateCommandLine);
    for (QDoubleSpinBox* box : {m_delay, m_duration})
        connect(box, &QDoubleSpinBox::valueChanged, this, &RecordDialog::updateCommandLine);
    updateCommandLine();
}

QString RecordDialog::captureRange() const
{
    const QString range = m_capture->currentData().toString();
    return range == QLatin1String("nvtx") ? QStringLiteral("nvtx:") + m_nvtxName->text().trimmed() : range;
}

RecordingOptions RecordDialog::options() const
{
    RecordingOptions options;
    if (const QString mode = m_pytorch->currentData().toString(); !mode.isEmpty())
        options.pytorch = collector::pytorchOpsFromName(mode.toStdString());
    std::string error;
    if (const QString range = captureRange(); !range.isEmpty()) {
        if (const auto spec = collector::parseCaptureRange(range.toStdString(), error))
            options.session.capture = *spec;
    }
    options.session.delaySeconds = m_delay->value();
    options.session.durationSeconds = m_duration->value();
    options.session.stepMarker = m_stepMarker->text().trimmed().toStdString();
    options.session.injectionOptions = m_collectorOptions->text().trimmed().toStdString();
    options.startPaused = m_startPaused->isChecked();
    options.liveWindowSlices = m_liveWindow->isChecked() ? RecordingOptions::kLiveWindowSlices : 0;
    return options;
}

QStringList RecordDialog::commandLine() const
{
    QStringList line{QStringLiteral("collect")};
    if (const QString mode = m_pytorch->currentData().toString(); !mode.isEmpty())
        line << QStringLiteral("--pytorch=") + mode;
    if (const QString range = captureRange(); !range.isEmpty())
        line << QStringLiteral("--capture-range=") + range;
    if (m_delay->value() > 0)
        line << QStringLiteral("--delay") << secondsText(m_delay->value());
    if (m_duration->value() > 0)
        line << QStringLiteral("--duration") << secondsText(m_duration->value());
    if (const QString marker = m_stepMarker->text().trimmed(); !marker.isEmpty())
        line << QStringLiteral("--step-marker") << marker;
    if (const QString collectorOptions = m_collectorOptions->text().trimmed(); !collectorOptions.isEmpty())
        line << QStringLiteral("--collector-options") << collectorOptions;
    const collector::LaunchRequest launch = request();
    for (const auto& [key, value] : launch.environment)
        line << QStringLiteral("--env") << QString::fromStdString(key + "=" + value);
    line << QStringLiteral("--") << QString::fromStdString(launch.program);
    for (const auto& argument : launch.arguments)
        line << QString::fromStdString(argument);
    return line;
}

void RecordDialog::updateCommandLine()
{
    m_nvtxName->setEnabled(m_capture->currentData().toString() == QLatin1String("nvtx"));
    QStringList quoted{QStringLiteral("kinetoscope-cli")};
    for (const QString& argument : commandLine()) {
        const bool plain = !argument.isEmpty() && std::all_of(argument.begin(), argument.end(), [](QChar c) {
            return c.isLetterOrNumber() || QStringLiteral("-_=./:,+@%").contains(c);
        });
        quoted << (plain ? argument
                         : QLatin1Char('\'') + QString(argument).replace(QLatin1Char('\''), QStringLiteral("'\\''"))
                           + QLatin1Char('\''));
    }
    m_commandLine->setText(quoted.join(QLatin1Char(' ')));
}

bool RecordDialog::parseEnvironment(const QString& text, std::vector<std::pair<std::string, std::string>>& out,
                                    QString& badLine)
{
    out.clear();
    const auto lines = text.split(QLatin1Char('\n'));
    for (const QString& raw : lines) {
        const QString line = raw.trimmed();
        if (line.isEmpty() || line.startsWith(QLatin1Char('#')))
            continue;
        const auto eq = line.indexOf(QLatin1Char('='));
        if (eq <= 0) {
            badLine = line;
            return false;
        }
        out.emplace_back(line.left(eq).trimmed().toStdString(), line.mid(eq + 1).toStdString());
    }
    return true;
}

collector::LaunchRequest RecordDialog::request() const
{
    collector::LaunchRequest request;
    request.program = m_program->text().trimmed().toStdString();
    for (const QString& argument : QProcess::splitCommand(m_arguments->text()))
        request.arguments.push_back(argument.toStdString());
    request.workingDirectory = m_workingDirectory->text().trimmed().toStdString();
    QString ignored;
    parseEnvironment(m_environment->toPlainText(), request.environment, ignored);
    return request;
}

void RecordDialog::accept()
{
    std::string error;
    if (!collector::resolveProgram(m_program->text().trimmed().toStdString(), error)) {
        QMessageBox::warning(this, windowTitle(), QString::fromStdString(error));
        return;
    }
    std::vector<std::pair<std::string, std::string>> environment;
    QString badLine;
    if (!parseEnvironment(m_environment->toPlainText(), environment, badLine)) {
        QMessageBox::warning(this, windowTitle(), tr("Environment lines must read K=V: “%1”").arg(badLine));
        return;
    }
    wire::InjectionOptions parsed;
    if (!wire::parseInjectionOptions(m_collectorOptions->text().trimmed().toStdString(), parsed, error)) {
        QMessageBox::warning(this, windowTitle(), tr("Collector options: %1").arg(QString::fromStdString(error)));
        return;
    }
    if (m_capture->currentData().toString() == QLatin1String("nvtx") && m_nvtxName->text().trimmed().isEmpty()) {
        QMessageBox::warning(this, windowTitle(), tr("Name the NVTX range that opens the capture."));
        return;
    }
    save();
    QDialog::accept();
}

void RecordDialog::load()
{
    QSettings settings;
    settings.beginGroup(QStringLiteral("record"));
    m_program->setText(settings.value(QStringLiteral("program")).toString());
    m_arguments->setText(settings.value(QStringLiteral("arguments")).toString());
    m_workingDirectory->setText(settings.value(QStringLiteral("workingDirectory")).toString());
    m_environment->setPlainText(settings.value(QStringLiteral("environment")).toString());
    selectData(m_pytorch, settings.value(QStringLiteral("pytorch")).toString());
    selectData(m_capture, settings.value(QStringLiteral("capture")).toString());
    m_nvtxName->setText(settings.value(QStringLiteral("nvtxName")).toString());
    m_delay->setValue(settings.value(QStringLiteral("delay"), 0.0).toDouble());
    m_duration->setValue(settings.value(QStringLiteral("duration"), 0.0).toDouble());
    m_stepMarker->setText(settings.value(QStringLiteral("stepMarker")).toString());
    m_collectorOptions->setText(settings.value(QStringLiteral("collectorOptions")).toString());
    m_startPaused->setChecked(settings.value(QStringLiteral("startPaused"), false).toBool());
    m_liveWindow->setChecked(settings.value(QStringLiteral("liveWindow"), true).toBool());
}

void RecordDialog::save() const
{
    QSettings settings;
    settings.beginGroup(QStringLiteral("record"));
    settings.setValue(QStringLiteral("program"), m_program->text());
    settings.setValue(QStringLiteral("arguments"), m_arguments->text());
    settings.setValue(QStringLiteral("workingDirectory"), m_workingDirectory->text());
    settings.setValue(QStringLiteral("environment"), m_environment->toPlainText());
    settings.setValue(QStringLiteral("pytorch"), m_pytorch->currentData());
    settings.setValue(QStringLiteral("capture"), m_capture->currentData());
    settings.setValue(QStringLiteral("nvtxName"), m_nvtxName->text());
    settings.setValue(QStringLiteral("delay"), m_delay->value());
    settings.setValue(QStringLiteral("duration"), m_duration->value());
    settings.setValue(QStringLiteral("stepMarker"), m_stepMarker->text());
    settings.setValue(QStringLiteral("collectorOptions"), m_collectorOptions->text());
    settings.setValue(QStringLiteral("startPaused"), m_startPaused->isChecked());
    settings.setValue(QStringLiteral("liveWindow"), m_liveWindow->isChecked());
}

} // namespace ks

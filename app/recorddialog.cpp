#include "app/recorddialog.h"

#include <QDialogButtonBox>
#include <QFileDialog>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLineEdit>
#include <QMessageBox>
#include <QPlainTextEdit>
#include <QProcess>
#include <QPushButton>
#include <QSettings>

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

} // namespace

RecordDialog::RecordDialog(QWidget* parent)
    : QDialog(parent)
    , m_program(new QLineEdit(this))
    , m_arguments(new QLineEdit(this))
    , m_workingDirectory(new QLineEdit(this))
    , m_environment(new QPlainTextEdit(this))
{
    setWindowTitle(tr("Record a CUDA Program"));
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
        return QFileDialog::getExistingDirectory(this, tr("Working Directory"), m_workingDirectory->text());
    }));
    form->addRow(tr("&Environment:"), m_environment);

    auto* buttons = new QDialogButtonBox(QDialogButtonBox::Cancel, this);
    buttons->addButton(tr("&Start Recording"), QDialogButtonBox::AcceptRole);
    connect(buttons, &QDialogButtonBox::accepted, this, &QDialog::accept);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);

    auto* layout = new QVBoxLayout(this);
    layout->addLayout(form);
    layout->addWidget(buttons);
    resize(640, sizeHint().height());
    load();
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
}

void RecordDialog::save() const
{
    QSettings settings;
    settings.beginGroup(QStringLiteral("record"));
    settings.setValue(QStringLiteral("program"), m_program->text());
    settings.setValue(QStringLiteral("arguments"), m_arguments->text());
    settings.setValue(QStringLiteral("workingDirectory"), m_workingDirectory->text());
    settings.setValue(QStringLiteral("environment"), m_environment->toPlainText());
}

} // namespace ks

#pragma once
#include <QDialog>

class QLineEdit;
class QListWidget;

namespace ks {

// Type to filter the actions by name, Enter runs the first (or the selected) one.
class CommandPalette : public QDialog {
    Q_OBJECT
public:
    explicit CommandPalette(QWidget& window);
    QLineEdit* filter() const { return m_filter; }
    QListWidget* list() const { return m_list; }

protected:
    void keyPressEvent(QKeyEvent* event) override;

private:
    void refill(const QString& text);
    void runCurrent();

    QWidget& m_window;
    QLineEdit* m_filter;
    QListWidget* m_list;
};

} // namespace ks

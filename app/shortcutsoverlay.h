#pragma once
#include <QDialog>

class QTreeWidget;

namespace ks {

// A list of every action with a key, grouped by its menu.
class ShortcutsOverlay : public QDialog {
    Q_OBJECT
public:
    explicit ShortcutsOverlay(QWidget& window);
    QTreeWidget* list() const { return m_list; }

private:
    QTreeWidget* m_list;
};

} // namespace ks

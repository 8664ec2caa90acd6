#pragma once
// Qt Core's files and folders for the compatibility layer (see qtcompat.h), on std::filesystem.
#include "qtcompat.h"

#include <fnmatch.h>
#include <unistd.h>

// ---- files ---------------------------------------------------------------------------------

struct QIODevice {
    enum OpenModeFlag { ReadOnly = 1, WriteOnly = 2, ReadWrite = 3, Truncate = 8, Text = 16 };
};

class QFile {
public:
    explicit QFile(QString path)
        : m_path(std::move(path))
    {
    }
    bool open(int mode)
    {
        std::ios::openmode m = std::ios::binary;
        if (mode & QIODevice::ReadOnly)
            m |= std::ios::in;
        // As Qt: WriteOnly truncates, ReadWrite keeps the contents unless asked to truncate.
        const bool truncate = !(mode & QIODevice::ReadOnly) || (mode & QIODevice::Truncate);
        if (mode & QIODevice::WriteOnly)
            m |= truncate ? std::ios::out | std::ios::trunc : std::ios::out;
        m_stream.open(m_path, m);
        return m_stream.is_open();
    }
    QByteArray read(qint64 n)
    {
        std::string bytes(std::size_t(std::max<qint64>(n, 0)), '\0');
        m_stream.read(bytes.data(), std::streamsize(bytes.size()));
        bytes.resize(std::size_t(m_stream.gcount()));
        return QByteArray(std::move(bytes));
    }
    QByteArray readAll()
    {
        std::ostringstream out;
        out << m_stream.rdbuf();
        return QByteArray(out.str());
    }
    qint64 write(const QByteArray& data) { return write(data.constData(), data.size()); }
    qint64 write(const char* data, qint64 n)
    {
        m_stream.write(data, std::streamsize(n));
        return m_stream ? n : -1;
    }
    bool seek(qint64 pos)
    {
        m_stream.clear();
        m_stream.seekg(pos);
        m_stream.seekp(pos);
        return bool(m_stream);
    }
    void close() { m_stream.close(); }
    qint64 size() const
    {
        std::error_code ec;
        const auto n = std::filesystem::file_size(std::string(m_path), ec);
        return ec ? 0 : qint64(n);
    }
    QString fileName() const { return m_path; }
    static bool exists(const QString& path) { return std::filesystem::exists(std::string(path)); }
    static bool copy(const QString& from, const QString& to)
    {
        std::error_code ec; // like Qt: never overwrites
        return std::filesystem::copy_file(std::string(from), std::string(to), ec) && !ec;
    }

private:
    QString m_path;
    std::fstream m_stream;
};

class QFileInfo {
public:
    explicit QFileInfo(const QString& path)
        : m_path(std::string(path))
    {
    }
    QString fileName() const { return QString(m_path.filename().string()); }
    QString filePath() const { return QString(m_path.string()); }
    bool exists() const { return std::filesystem::exists(m_path); }
    qint64 size() const
    {
        std::error_code ec;
        const auto n = std::filesystem::file_size(m_path, ec);
        return ec ? 0 : qint64(n);
    }

private:
    std::filesystem::path m_path;
};

class QDir {
public:
    enum Filter { Files = 1, Dirs = 2, NoDotAndDotDot = 4, AllEntries = 3 };
    enum SortFlag { Name = 0, NoSort = -1 };

    QDir()
        : m_path(".")
    {
    }
    QDir(QString path)
        : m_path(std::move(path))
    {
    }
    QDir(const char* path)
        : m_path(path)
    {
    }
    static QDir temp() { return QDir(tempPath()); }
    static QString tempPath()
    {
        const char* dir = std::getenv("TMPDIR");
        return QString(dir && *dir ? dir : "/tmp");
    }
    QString path() const { return m_path; }
    QString canonicalPath() const
    {
        std::error_code ec;
        const auto p = std::filesystem::canonical(std::string(m_path), ec);
        return ec ? QString() : QString(p.string());
    }
    QString filePath(const QString& name) const
    {
        if (name.startsWith('/'))
            return name;
        return m_path.endsWith('/') ? m_path + name : m_path + "/" + name;
    }
    bool exists() const { return std::filesystem::is_directory(std::string(m_path)); }
    bool exists(const QString& name) const { return std::filesystem::exists(std::string(filePath(name))); }
    bool mkpath(const QString& path) const
    {
        std::error_code ec;
        std::filesystem::create_directories(std::string(filePath(path)), ec);
        return !ec;
    }
    bool removeRecursively()
    {
        std::error_code ec;
        std::filesystem::remove_all(std::string(m_path), ec);
        return !ec;
    }
    QStringList entryList(int filters, int sort = Name) const { return entryList({}, filters, sort); }
    QStringList entryList(const QStringList& nameFilters, int filters = AllEntries, int = Name) const
    {
        QStringList names;
        std::error_code ec;
        for (const auto& entry : std::filesystem::directory_iterator(std::string(m_path), ec)) {
            const bool dir = entry.is_directory();
            if ((dir && !(filters & Dirs)) || (!dir && !(filters & Files)))
                continue;
            const std::string name = entry.path().filename().string();
            bool matched = nameFilters.empty();
            for (const QString& pattern : nameFilters)
                matched = matched || fnmatch(pattern.c_str(), name.c_str(), 0) == 0;
            if (matched)
                names << QString(name);
        }
        std::sort(names.begin(), names.end());
        return names;
    }

private:
    QString m_path;
};

class QTemporaryDir {
public:
    QTemporaryDir()
    {
        std::string pattern = std::string(QDir::tempPath()) + "/kstest-XXXXXX";
        if (mkdtemp(pattern.data()))
            m_path = QString(pattern);
    }
    ~QTemporaryDir()
    {
        if (isValid())
            QDir(m_path).removeRecursively();
    }
    QTemporaryDir(const QTemporaryDir&) = delete;
    QTemporaryDir& operator=(const QTemporaryDir&) = delete;
    bool isValid() const { return !m_path.isEmpty(); }
    QString path() const { return m_path; }
    QString filePath(const QString& name) const { return QDir(m_path).filePath(name); }

private:
    QString m_path;
};

struct QStandardPaths {
    static QString findExecutable(const QString& name)
    {
        const char* path = std::getenv("PATH");
        for (const QString& dir : QString(path ? path : "").split(':'))
            if (!dir.isEmpty() && access(QDir(dir).filePath(name).c_str(), X_OK) == 0)
                return QDir(dir).filePath(name);
        return QString();
    }
};

#pragma once
// QProcess for the compatibility layer (see qtcompat.h): fork, exec and both pipes drained.
#include "qtcompatfiles.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

extern char** environ;

// ---- processes -----------------------------------------------------------------------------

class QProcessEnvironment {
public:
    static QProcessEnvironment systemEnvironment()
    {
        QProcessEnvironment env;
        for (char** e = environ; *e; ++e) {
            const std::string entry(*e);
            const std::size_t eq = entry.find('=');
            if (eq != std::string::npos)
                env.m_values[QString(entry.substr(0, eq))] = QString(entry.substr(eq + 1));
        }
        return env;
    }
    void insert(const QString& name, const QString& value) { m_values[name] = value; }
    void remove(const QString& name) { m_values.erase(name); }
    bool contains(const QString& name) const { return m_values.count(name) != 0; }
    QString value(const QString& name, const QString& fallback = QString()) const
    {
        const auto it = m_values.find(name);
        return it == m_values.end() ? fallback : it->second;
    }
    std::vector<std::string> entries() const
    {
        std::vector<std::string> out;
        for (const auto& [name, value] : m_values)
            out.push_back(name + "=" + value);
        return out;
    }

private:
    std::map<QString, QString> m_values;
};

// Runs a program to completion with its output captured; start() forks at once, the waits
// drain both pipes so that a chatty child never blocks.
class QProcess {
public:
    enum ExitStatus { NormalExit, CrashExit };
    enum ProcessChannelMode { SeparateChannels, MergedChannels };
    enum ProcessError { FailedToStart, Crashed, Timedout, ReadError, WriteError, UnknownError };

    QProcess() = default;
    QProcess(const QProcess&) = delete;
    QProcess& operator=(const QProcess&) = delete;
    ~QProcess()
    {
        if (m_pid > 0) {
            ::kill(m_pid, SIGKILL);
            waitForFinished(-1);
        }
        closePipes();
    }
    void setProcessEnvironment(const QProcessEnvironment& env) { m_env = env; }
    void setProcessChannelMode(ProcessChannelMode mode) { m_mode = mode; }
    void start(const QString& program, const QStringList& arguments = {})
    {
        std::vector<std::string> args{program};
        args.insert(args.end(), arguments.begin(), arguments.end());
        std::vector<char*> argv;
        for (std::string& a : args)
            argv.push_back(a.data());
        argv.push_back(nullptr);
        std::vector<std::string> envEntries;
        std::vector<char*> envp;
        if (m_env) {
            envEntries = m_env->entries();
            for (std::string& e : envEntries)
                envp.push_back(e.data());
            envp.push_back(nullptr);
        }
        int out[2], err[2], status[2];
        if (pipe(out) != 0 || pipe(err) != 0 || pipe2(status, O_CLOEXEC) != 0) {
            m_error = FailedToStart;
            return;
        }
        m_pid = fork();
        if (m_pid == 0) {
            ::close(out[0]);
            ::close(err[0]);
            ::close(status[0]);
            const int devNull = ::open("/dev/null", O_RDONLY);
            dup2(devNull, 0);
            dup2(out[1], 1);
            dup2(m_mode == MergedChannels ? out[1] : err[1], 2);
            if (m_env)
                execve(argv[0], argv.data(), envp.data());
            else
                execv(argv[0], argv.data());
            const char failed = 1; // the parent reads this as FailedToStart
            (void)!::write(status[1], &failed, 1);
            _exit(127);
        }
        ::close(out[1]);
        ::close(err[1]);
        ::close(status[1]);
        m_out = out[0];
        m_err = err[0];
        char failed = 0;
        const bool execFailed = m_pid < 0 || ::read(status[0], &failed, 1) == 1;
        ::close(status[0]);
        if (execFailed) {
            m_error = FailedToStart;
            if (m_pid > 0)
                waitpid(m_pid, nullptr, 0);
            m_pid = -1;
            closePipes();
        }
    }
    bool waitForFinished(int msecs = 30000)
    {
        if (m_pid <= 0)
            return false;
        const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(msecs);
        while (m_out >= 0 || m_err >= 0) {
            pollfd fds[2] = {{m_out, POLLIN, 0}, {m_err, POLLIN, 0}};
            const auto left =
                std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now())
                    .count();
            if (msecs >= 0 && left <= 0) {
                m_error = Timedout;
                return false;
            }
            if (poll(fds, 2, msecs < 0 ? 1000 : int(std::min<qint64>(left, 1000))) < 0 && errno != EINTR)
                break;
            drain(fds[0], m_out, m_stdout);
            drain(fds[1], m_err, m_stderr);
        }
        int status = 0;
        if (waitpid(m_pid, &status, 0) != m_pid)
            return false;
        m_pid = -1;
        m_exitStatus = WIFEXITED(status) ? NormalExit : CrashExit;
        m_exitCode = WIFEXITED(status) ? WEXITSTATUS(status) : WTERMSIG(status);
        if (m_exitStatus == CrashExit)
            m_error = Crashed;
        return true;
    }
    void kill() const
    {
        if (m_pid > 0)
            ::kill(m_pid, SIGKILL);
    }
    void terminate() const
    {
        if (m_pid > 0)
            ::kill(m_pid, SIGTERM);
    }
    int exitCode() const { return m_exitCode; }
    ExitStatus exitStatus() const { return m_exitStatus; }
    ProcessError error() const { return m_error; }
    QByteArray readAllStandardOutput() { return std::exchange(m_stdout, QByteArray()); }
    QByteArray readAllStandardError() { return std::exchange(m_stderr, QByteArray()); }
    QByteArray readAll() { return readAllStandardOutput(); } // with MergedChannels: both

private:
    static void drain(const pollfd& fd, int& pipe, QByteArray& into)
    {
        if (pipe < 0 || !(fd.revents & (POLLIN | POLLHUP | POLLERR)))
            return;
        char buffer[65536];
        const ssize_t n = ::read(pipe, buffer, sizeof buffer);
        if (n > 0) {
            into.append(std::string_view(buffer, std::size_t(n)));
        } else if (n == 0 || errno != EINTR) {
            ::close(pipe);
            pipe = -1;
        }
    }
    void closePipes()
    {
        for (int* fd : {&m_out, &m_err})
            if (*fd >= 0) {
                ::close(*fd);
                *fd = -1;
            }
    }

    std::optional<QProcessEnvironment> m_env;
    ProcessChannelMode m_mode = SeparateChannels;
    pid_t m_pid = -1;
    int m_out = -1;
    int m_err = -1;
    QByteArray m_stdout;
    QByteArray m_stderr;
    int m_exitCode = 0;
    ExitStatus m_exitStatus = NormalExit;
    ProcessError m_error = UnknownError;
};

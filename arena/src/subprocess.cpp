#include "inarow/arena/subprocess.h"

#include <fcntl.h>
#include <poll.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <csignal>
#include <cstring>
#include <thread>

extern char** environ;

namespace inarow::arena {

std::vector<std::string> Subprocess::split_command(const std::string& command) {
  std::vector<std::string> out;
  std::string cur;
  bool have = false;
  char quote = 0;
  for (char ch : command) {
    if (quote) {
      if (ch == quote) {
        quote = 0;
      } else {
        cur += ch;
      }
    } else if (ch == '\'' || ch == '"') {
      quote = ch;
      have = true;
    } else if (ch == ' ' || ch == '\t') {
      if (have) out.push_back(cur);
      cur.clear();
      have = false;
    } else {
      cur += ch;
      have = true;
    }
  }
  if (have) out.push_back(cur);
  return out;
}

std::optional<Subprocess> Subprocess::spawn(const std::vector<std::string>& argv,
                                            std::string* error) {
  if (argv.empty()) {
    if (error) *error = "empty command";
    return std::nullopt;
  }
  // A child that dies while we write must give EPIPE, not kill the arena.
  std::signal(SIGPIPE, SIG_IGN);
  int to_child[2], from_child[2];
  // O_CLOEXEC: children spawned concurrently by other workers must not inherit these.
  if (pipe2(to_child, O_CLOEXEC) != 0) {
    if (error) *error = std::strerror(errno);
    return std::nullopt;
  }
  if (pipe2(from_child, O_CLOEXEC) != 0) {
    if (error) *error = std::strerror(errno);
    ::close(to_child[0]);
    ::close(to_child[1]);
    return std::nullopt;
  }
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, to_child[0], STDIN_FILENO);
  posix_spawn_file_actions_adddup2(&actions, from_child[1], STDOUT_FILENO);
  std::vector<char*> args;
  for (const auto& a : argv)
    args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  // Its own process group, so that killing it also kills what it started.
  posix_spawnattr_t attr;
  posix_spawnattr_init(&attr);
  posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETPGROUP);
  posix_spawnattr_setpgroup(&attr, 0);
  pid_t pid = -1;
  const int rc = posix_spawnp(&pid, args[0], &actions, &attr, args.data(), environ);
  posix_spawnattr_destroy(&attr);
  posix_spawn_file_actions_destroy(&actions);
  ::close(to_child[0]);
  ::close(from_child[1]);
  if (rc != 0) {
    if (error) *error = "cannot start '" + argv[0] + "': " + std::strerror(rc);
    ::close(to_child[1]);
    ::close(from_child[0]);
    return std::nullopt;
  }
  return Subprocess(pid, to_child[1], from_child[0]);
}

Subprocess::Subprocess(Subprocess&& o) noexcept
    : pid_(o.pid_), in_(o.in_), out_(o.out_), buffer_(std::move(o.buffer_)) {
  o.pid_ = -1;
  o.in_ = o.out_ = -1;
}

Subprocess& Subprocess::operator=(Subprocess&& o) noexcept {
  if (this != &o) {
    kill();
    pid_ = o.pid_;
    in_ = o.in_;
    out_ = o.out_;
    buffer_ = std::move(o.buffer_);
    o.pid_ = -1;
    o.in_ = o.out_ = -1;
  }
  return *this;
}

Subprocess::~Subprocess() {
  kill();
}

bool Subprocess::write_line(const std::string& line) {
  if (in_ < 0) return false;
  std::string data = line + "\n";
  std::size_t done = 0;
  while (done < data.size()) {
    const ssize_t n = ::write(in_, data.data() + done, data.size() - done);
    if (n < 0) {
      if (errno == EINTR) continue;
      return false;
    }
    done += std::size_t(n);
  }
  return true;
}

Subprocess::ReadStatus Subprocess::read_line(std::string& line, Clock::time_point deadline) {
  for (;;) {
    const auto eol = buffer_.find_first_of("\r\n");
    if (eol != std::string::npos) {
      line = buffer_.substr(0, eol);
      std::size_t next = eol + 1;
      if (buffer_[eol] == '\r' && next < buffer_.size() && buffer_[next] == '\n') ++next;
      buffer_.erase(0, next);
      return ReadStatus::line;
    }
    if (out_ < 0) return ReadStatus::closed;
    const auto left =
        std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()).count();
    if (left <= 0) return ReadStatus::timeout;
    pollfd p{out_, POLLIN, 0};
    const int rc = ::poll(&p, 1, int(std::min<long long>(left, 1000)));
    if (rc < 0 && errno != EINTR) return ReadStatus::closed;
    if (rc <= 0) continue;
    char chunk[4096];
    const ssize_t n = ::read(out_, chunk, sizeof chunk);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      // End of output: hand back a last unterminated line, then report closed.
      ::close(out_);
      out_ = -1;
      if (!buffer_.empty()) {
        line = std::move(buffer_);
        buffer_.clear();
        return ReadStatus::line;
      }
      return ReadStatus::closed;
    }
    buffer_.append(chunk, std::size_t(n));
  }
}

bool Subprocess::reaped_try() {
  if (pid_ <= 0) return true;
  int status = 0;
  const pid_t r = ::waitpid(pid_, &status, WNOHANG);
  if (r == pid_ || r < 0) {
    pid_ = -1;
    return true;
  }
  return false;
}

void Subprocess::close_fds() {
  if (in_ >= 0) ::close(in_);
  if (out_ >= 0) ::close(out_);
  in_ = out_ = -1;
}

void Subprocess::stop(std::chrono::milliseconds grace) {
  if (in_ >= 0) {
    ::close(in_);
    in_ = -1;
  }
  const auto until = Clock::now() + grace;
  while (!reaped_try() && Clock::now() < until)
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  kill();
}

void Subprocess::kill() {
  close_fds();
  if (pid_ > 0) {
    // The whole group: a shell's children die with it.
    ::kill(-pid_, SIGKILL);
    if (reaped_try()) return;
    ::kill(pid_, SIGKILL);
    int status = 0;
    ::waitpid(pid_, &status, 0);
    pid_ = -1;
  }
}

}  // namespace inarow::arena

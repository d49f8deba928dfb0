#include "inarow/testing/local_service.h"

#include <fcntl.h>
#include <grp.h>
#include <netinet/in.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fstream>
#include <iterator>
#include <thread>

namespace inarow::testing {

namespace fs = std::filesystem;

std::uint16_t free_loopback_port() {
  const int s = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t n = sizeof a;
  std::uint16_t port = 0;
  if (::bind(s, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0 &&
      ::getsockname(s, reinterpret_cast<sockaddr*>(&a), &n) == 0) {
    port = ntohs(a.sin_port);
  }
  ::close(s);
  return port;
}

std::string file_tail(const fs::path& file, std::uintmax_t from, std::size_t bytes) {
  std::ifstream in(file);
  in.seekg(static_cast<std::streamoff>(from));
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  return text.size() > bytes ? text.substr(text.size() - bytes) : text;
}

std::uintmax_t file_size_or_zero(const fs::path& file) {
  std::error_code ec;
  const auto n = fs::file_size(file, ec);
  return ec ? 0 : n;
}

pid_t spawn_logged(const std::vector<std::string>& argv, const fs::path& log,
                   const SpawnOptions& options) {
  std::vector<const char*> args;
  for (const auto& a : argv)
    args.push_back(a.c_str());
  args.push_back(nullptr);
  const std::string log_path = log.string();
  const pid_t parent = ::getpid();
  const pid_t pid = ::fork();
  if (pid != 0) return pid;
  const int out = ::open(log_path.c_str(), O_WRONLY | O_CREAT | O_APPEND, 0644);
  const int null = ::open("/dev/null", O_RDONLY);
  if (out < 0 || null < 0) ::_exit(125);
  ::dup2(null, 0);
  ::dup2(out, 1);
  ::dup2(out, 2);
  // What runuser -u nobody does, without needing it.
  if (options.as_user && (::setgroups(0, nullptr) != 0 || ::setgid(options.as_user->second) != 0 ||
                          ::setuid(options.as_user->first) != 0)) {
    ::_exit(126);
  }
  // Set after setuid, which clears it.
  if (options.death_signal != 0) {
    ::prctl(PR_SET_PDEATHSIG, options.death_signal);
    if (::getppid() != parent) ::_exit(1);
  }
  ::execv(args[0], const_cast<char* const*>(args.data()));
  ::_exit(127);
}

std::optional<int> wait_for_exit(pid_t pid, std::chrono::milliseconds timeout) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  for (;;) {
    int status = 0;
    const pid_t r = ::waitpid(pid, &status, WNOHANG);
    if (r == pid) return status;
    if (r < 0) return -1;
    if (std::chrono::steady_clock::now() >= deadline) return std::nullopt;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
}

}  // namespace inarow::testing

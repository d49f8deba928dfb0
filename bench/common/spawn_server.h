// Starts inarow-server for a load driver: port 0 (the port is read from its
// "listening on" line), the per-address limits raised (every client of a
// driver comes from one address), logs at info, and the driver's own flags.
// Shared by inarow-load and inarow-soak.
#pragma once

#include <signal.h>
#include <sys/prctl.h>
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>
#include <utility>
#include <vector>

namespace inarow::bench {

// Returns the server's pid and port; port 0 when it did not say where it
// listens within `timeout_s` seconds (SIGALRM ends a driver that waits longer).
inline std::pair<int, std::uint16_t> spawn_server(const std::string& binary,
                                                  std::vector<std::string> flags,
                                                  unsigned timeout_s = 20) {
  std::vector<std::string> args = {binary,    "--port",
                                   "0",       "--max-connections-per-ip",
                                   "1000000", "--max-http-connections-per-ip",
                                   "1000000", "--log-level",
                                   "info"};
  args.insert(args.end(), flags.begin(), flags.end());
  int out[2];
  if (pipe(out) != 0) return {0, 0};
  const pid_t pid = fork();
  if (pid == 0) {
    // A driver killed (by a timeout, say) takes its servers with it.
    prctl(PR_SET_PDEATHSIG, SIGTERM);
    dup2(out[1], STDOUT_FILENO);
    dup2(out[1], STDERR_FILENO);
    close(out[0]);
    std::vector<char*> argv;
    for (auto& a : args)
      argv.push_back(a.data());
    argv.push_back(nullptr);
    execv(argv[0], argv.data());
    _exit(127);
  }
  close(out[1]);
  FILE* log = fdopen(out[0], "r");
  char line[512];
  alarm(timeout_s);
  while (fgets(line, sizeof line, log)) {
    if (const char* at = strstr(line, "listening on ")) {
      const char* colon = strrchr(at, ':');
      const auto port = static_cast<std::uint16_t>(std::atoi(colon + 1));
      alarm(0);
      std::thread([log] {  // keep the pipe drained
        char sink[512];
        while (fgets(sink, sizeof sink, log)) {
        }
        fclose(log);
      })
          .detach();
      return {pid, port};
    }
  }
  return {pid, 0};
}

}  // namespace inarow::bench

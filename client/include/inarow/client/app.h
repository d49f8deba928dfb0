// The console client as a program: the WebSocket connection (reconnecting
// with backoff), the terminal (readline when both ends are a terminal, plain
// lines otherwise) and the timers, all on one thread, feeding a Controller.
#pragma once

#include <filesystem>
#include <string>
#include <string_view>

#include "inarow/common/expected.h"

namespace inarow::client {

struct AppOptions {
  std::string url = "ws://127.0.0.1:8080/ws";
  std::string name;                  // empty: the profile's, else $USER
  std::filesystem::path config_dir;  // empty: default_config_dir()
  bool plain = false;                // the line format even on a terminal
};

struct WsUrl {
  std::string host;
  std::string port;
  std::string path;
};
// "ws://HOST[:PORT][/PATH]"; the port defaults to 80, the path to /ws.
expected<WsUrl, std::string> parse_ws_url(std::string_view url);

// Runs until quit, end of input or a signal; the exit status.
int run_client(const AppOptions& options);

}  // namespace inarow::client

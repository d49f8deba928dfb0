// inarow: the console client. Flags in, run_client out; see client/README.md.
#include <CLI/CLI.hpp>

#include "inarow/client/app.h"

int main(int argc, char** argv) {
  inarow::client::AppOptions options;
  std::string config_dir;
  CLI::App app{
      "inarow: play k-in-a-row games (tic-tac-toe, connect four, gomoku, m,n,k) on an "
      "inarow server. Type `help` once connected."};
  app.add_option("--server", options.url, "WebSocket address of the server")
      ->envname("INAROW_SERVER")
      ->capture_default_str();
  app.add_option("--name", options.name, "Your name (remembered; a new name is a new player)")
      ->envname("INAROW_NAME");
  app.add_option("--config-dir", config_dir,
                 "Where the name and resume token are kept (default "
                 "$XDG_CONFIG_HOME/inarow or ~/.config/inarow)");
  app.add_flag("--plain", options.plain,
               "Script mode even on a terminal: no readline, one stable line per event");
  CLI11_PARSE(app, argc, argv);
  options.config_dir = config_dir;
  return inarow::client::run_client(options);
}

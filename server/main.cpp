// inarow-server: flags and environment in, Server out. Everything else lives
// in the inarow::server library.
#include <spdlog/spdlog.h>

#include <CLI/CLI.hpp>
#include <csignal>
#include <cstdlib>

#include "inarow/server/server.h"

#if INAROW_MIMALLOC
#include <mimalloc.h>
#endif

int main(int argc, char** argv) {
  inarow::server::ServerConfig config;
  std::int64_t idle_ms = config.idle_timeout.count();
  std::int64_t grace_ms = config.reconnect_grace.count();
  std::int64_t http_timeout_ms = config.http_request_timeout.count();
  std::int64_t unwatched_ms = config.unwatched_grace.count();
  std::int64_t failure_window_ms = config.password_failure_window.count();
  std::int64_t node_ttl_ms = config.node_ttl.count();
  std::string log_level = "info";
  bool no_sync = false;

  CLI::App app{"inarow-server: k-in-a-row games over WebSockets (ws://ADDRESS:PORT/ws)"};
  app.option_defaults()->always_capture_default();
  app.add_option("--address", config.address, "Address to listen on")->envname("INAROW_ADDRESS");
  app.add_option("--port", config.port, "Port to listen on; 0 takes an ephemeral port")
      ->envname("INAROW_PORT");
  app.add_option("--threads", config.threads, "I/O threads")
      ->envname("INAROW_THREADS")
      ->check(CLI::Range(1, 256));
  app.add_option("--bot-threads", config.bot_threads, "Bot search threads")
      ->envname("INAROW_BOT_THREADS")
      ->check(CLI::Range(1, 256));
  app.add_option("--bot-nice", config.bot_nice,
                 "Nice value of the bot search threads (0 to 19): searches yield the CPU to "
                 "people's moves")
      ->envname("INAROW_BOT_NICE")
      ->check(CLI::Range(0, 19));
  app.add_option("--store", config.store,
                 "Where games and players are kept: a SQLite database file (':memory:' keeps "
                 "nothing), or a PostgreSQL database as a URI "
                 "(postgresql://user[:password]@host:port/dbname)")
      ->envname("INAROW_STORE");
  app.add_option("--redis", config.redis,
                 "Run as a node of a cluster: the Redis the nodes share "
                 "(redis://[[user]:password@]host[:port][/db]); none: a server on its own")
      ->envname("INAROW_REDIS");
  app.add_option("--node-id", config.node_id,
                 "This node's name in the cluster (default: host name, port and process id)")
      ->envname("INAROW_NODE_ID");
  app.add_option("--node-ttl-ms", node_ttl_ms,
                 "A node silent for this long is gone from the cluster (renewed every third of it)")
      ->envname("INAROW_NODE_TTL_MS")
      ->check(CLI::Range(300, 600'000));
  app.add_flag("--no-sync", no_sync,
               "Do not fsync each commit (WAL synchronous=NORMAL: safe from crashes of the "
               "server, not of the machine)")
      ->envname("INAROW_NO_SYNC");
  app.add_option("--max-frame-bytes", config.max_frame_bytes, "Largest WebSocket message")
      ->envname("INAROW_MAX_FRAME_BYTES");
  app.add_option("--rate", config.rate_per_second, "Messages per second per connection")
      ->envname("INAROW_RATE");
  app.add_option("--rate-burst", config.rate_burst, "Burst of messages per connection")
      ->envname("INAROW_RATE_BURST");
  app.add_option("--rate-strikes", config.rate_strikes,
                 "Rate-limited messages before the connection is closed")
      ->envname("INAROW_RATE_STRIKES");
  app.add_option("--max-connections-per-ip", config.max_connections_per_ip,
                 "WebSocket connections per client address")
      ->envname("INAROW_MAX_CONNECTIONS_PER_IP");
  app.add_option("--max-http-connections-per-ip", config.max_http_connections_per_ip,
                 "Plain HTTP connections per client address (more are closed at once)")
      ->envname("INAROW_MAX_HTTP_CONNECTIONS_PER_IP")
      ->check(CLI::Range(1, 1'000'000));
  app.add_option("--http-timeout-ms", http_timeout_ms,
                 "Close an HTTP connection that has not sent a whole request within this")
      ->envname("INAROW_HTTP_TIMEOUT_MS")
      ->check(CLI::Range(1, 3'600'000));
  app.add_option("--idle-timeout-ms", idle_ms, "Close a peer silent for this long (ping/pong)")
      ->envname("INAROW_IDLE_TIMEOUT_MS");
  app.add_option("--reconnect-grace-ms", grace_ms,
                 "How long an absent player keeps an untimed match")
      ->envname("INAROW_RECONNECT_GRACE_MS");
  app.add_option("--max-human-matches", config.max_human_matches_per_player,
                 "Live matches against people (seek and private) one player may have")
      ->envname("INAROW_MAX_HUMAN_MATCHES")
      ->check(CLI::Range(1, 1000));
  app.add_option("--max-bot-matches", config.max_bot_matches_per_player,
                 "Live matches against a bot one player may have")
      ->envname("INAROW_MAX_BOT_MATCHES")
      ->check(CLI::Range(1, 1000));
  app.add_option("--max-bot-vs-bot-per-player", config.max_bot_vs_bot_per_player,
                 "Live bot-vs-bot matches one player may have started")
      ->envname("INAROW_MAX_BOT_VS_BOT_PER_PLAYER")
      ->check(CLI::Range(0, 1000));
  app.add_option("--max-bot-vs-bot", config.max_bot_vs_bot_total,
                 "Live bot-vs-bot matches on the whole server")
      ->envname("INAROW_MAX_BOT_VS_BOT")
      ->check(CLI::Range(0, 100000));
  app.add_option("--unwatched-grace-ms", unwatched_ms,
                 "How long a bot-vs-bot match nobody watches runs on before it is aborted")
      ->envname("INAROW_UNWATCHED_GRACE_MS");
  app.add_option("--list-page-size", config.list_page_size,
                 "Most matches in one listMatches answer, and most seeks in one seekList")
      ->envname("INAROW_LIST_PAGE_SIZE")
      ->check(CLI::Range(1, 1000));
  // Accounts: the Argon2id cost (libsodium's minimums: 1 pass, 8 KiB) and
  // the bounds on hashing and on wrong passwords.
  app.add_option("--password-ops", config.password_ops, "Argon2id passes over memory per hash")
      ->envname("INAROW_PASSWORD_OPS")
      ->check(CLI::Range(1u, 20u));
  app.add_option("--password-memory-kib", config.password_memory_kib,
                 "Argon2id memory per hash, in KiB")
      ->envname("INAROW_PASSWORD_MEMORY_KIB")
      ->check(CLI::Range(std::size_t{8}, std::size_t{4} * 1024 * 1024));
  app.add_option("--password-threads", config.password_threads,
                 "Threads that hash passwords (each holds one hash's memory)")
      ->envname("INAROW_PASSWORD_THREADS")
      ->check(CLI::Range(1, 64));
  app.add_option("--max-pending-passwords", config.max_pending_passwords,
                 "Password hashes that may wait or run at once; more are refused")
      ->envname("INAROW_MAX_PENDING_PASSWORDS")
      ->check(CLI::Range(1, 100'000));
  app.add_option("--password-failures-per-name", config.password_failures_per_name,
                 "Wrong passwords for one account name within the window")
      ->envname("INAROW_PASSWORD_FAILURES_PER_NAME")
      ->check(CLI::Range(1, 100'000));
  app.add_option("--password-failures-per-address", config.password_failures_per_address,
                 "Wrong passwords from one address within the window")
      ->envname("INAROW_PASSWORD_FAILURES_PER_ADDRESS")
      ->check(CLI::Range(1, 1'000'000));
  app.add_option("--password-failure-window-ms", failure_window_ms,
                 "The window over which wrong passwords are counted")
      ->envname("INAROW_PASSWORD_FAILURE_WINDOW_MS")
      ->check(CLI::Range(1, 86'400'000));
  app.add_option("--log-level", log_level, "trace, debug, info, warn, error")
      ->envname("INAROW_LOG_LEVEL");
  CLI11_PARSE(app, argc, argv);

  config.idle_timeout = std::chrono::milliseconds(idle_ms);
  config.reconnect_grace = std::chrono::milliseconds(grace_ms);
  config.http_request_timeout = std::chrono::milliseconds(http_timeout_ms);
  config.unwatched_grace = std::chrono::milliseconds(unwatched_ms);
  config.password_failure_window = std::chrono::milliseconds(failure_window_ms);
  config.node_ttl = std::chrono::milliseconds(node_ttl_ms);
  config.store_full_sync = !no_sync;
  spdlog::set_level(spdlog::level::from_str(log_level));
  spdlog::set_pattern("%Y-%m-%dT%H:%M:%S.%e %l [%t] %v");
#if INAROW_MIMALLOC
  // Linked in place of glibc's malloc (the top CMakeLists.txt says why).
  spdlog::debug("allocator=mimalloc version={}", mi_version());
#endif

  // SIGINT and SIGTERM are taken by sigwait below, in no other thread.
  sigset_t signals;
  sigemptyset(&signals);
  sigaddset(&signals, SIGINT);
  sigaddset(&signals, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &signals, nullptr);

  inarow::server::Server server(config);
  if (auto started = server.start(); !started) {
    spdlog::critical("{}", started.error());
    return EXIT_FAILURE;
  }
  int received = 0;
  sigwait(&signals, &received);
  spdlog::info("signal {}: graceful stop", received);
  server.stop();
  return EXIT_SUCCESS;
}

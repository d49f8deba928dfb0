// Everything the server can be told at start-up. main.cpp fills it from flags
// and environment variables; tests fill it directly.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <string>

#include "inarow/server/fischer_clock.h"
#include "inarow/server/matchmaker.h"

namespace inarow::server {

struct ServerConfig {
  std::string address = "127.0.0.1";
  std::uint16_t port = 8080;  // 0: an ephemeral port (see Server::port)
  int threads = 2;            // I/O threads
  int bot_threads = 1;        // bot search workers
  // The bot workers' nice value (0-19): when a search and a person's move
  // want the same core, the move goes first. 0 leaves them as they are.
  int bot_nice = 10;
  std::string store = "./inarow.db";  // ":memory:" keeps nothing
  bool store_full_sync = true;        // fsync each (group) commit
  // How long a commit waits for another writer holding the database before
  // it fails (and the match it was for is paused).
  std::chrono::milliseconds store_busy_timeout{5000};
  // A node of a cluster: the Redis the nodes share (redis://[[user]:password@]host[:port][/db];
  // empty: a server on its own). The node registers under node_id (empty:
  // made from the host name, the port and the process id) and renews that
  // every node_ttl / 3; a node silent for node_ttl is gone.
  std::string redis;
  std::string node_id;
  Millis node_ttl{5000};

  // Limits.
  std::size_t max_frame_bytes = 64 * 1024;  // larger frames close with 1009
  double rate_per_second = 20.0;            // messages per connection, refilled
  double rate_burst = 40.0;                 // bucket size
  int rate_strikes = 20;                    // rate-limited messages before a 1008 close
  int max_connections_per_ip = 256;         // WebSocket sessions at once
  // Plain HTTP connections at once per address (a connection that upgrades
  // to a WebSocket counts against max_connections_per_ip instead); more are
  // closed as soon as they are accepted.
  int max_http_connections_per_ip = 64;
  // A plain HTTP connection must send a whole request (headers and body)
  // within this, and the next one within this of the last answer; else it is
  // closed. Half-sent requests do not hold a descriptor for long.
  Millis http_request_timeout{10'000};
  Millis idle_timeout{30'000};  // ping/pong: a silent connection is closed after this
  Millis handshake_timeout{10'000};
  Millis reconnect_grace{60'000};  // an untimed match's absent player forfeits after this
  Millis matchmaker_tick{250};
  // A change to the open seeks or the counts reaches the lobby's followers
  // after this, with whatever else changed meanwhile, in one list.
  Millis lobby_feed_delay{100};
  // Live matches one player may have at once, per kind (ERROR_TOO_MANY_MATCHES
  // beyond): against people (seek and private games), against a bot, and
  // bot-vs-bot matches the player started; and bot-vs-bot matches on the
  // whole server.
  int max_human_matches_per_player = 8;
  int max_bot_matches_per_player = 4;
  int max_bot_vs_bot_per_player = 2;
  int max_bot_vs_bot_total = 16;
  // A bot-vs-bot match that nobody watches (its starter and every spectator
  // gone) for this long is aborted.
  Millis unwatched_grace{10'000};
  // listMatches answers at most this many matches a page.
  int list_page_size = 50;
  // Accounts. Passwords are hashed with Argon2id at this cost (passes over
  // memory, KiB of memory) on a pool of their own threads, never on the
  // network threads; at most max_pending_passwords hashes wait or run at
  // once (more are refused with ERROR_RATE_LIMITED), so hashing takes at
  // most password_threads × password_memory_kib of memory.
  unsigned password_ops = 2;
  std::size_t password_memory_kib = 19 * 1024;
  int password_threads = 1;
  int max_pending_passwords = 16;
  // Wrong passwords allowed per account name and per address within the
  // window; more attempts are refused (ERROR_RATE_LIMITED) without hashing.
  int password_failures_per_name = 5;
  int password_failures_per_address = 20;
  Millis password_failure_window{60'000};
  // A leaderboard ranks players with at least this many rated games in its
  // variant; a page holds at most leaderboard_page_size of them.
  int leaderboard_min_games = 5;
  int leaderboard_page_size = 50;
  MatchmakerPolicy matchmaker;
  std::uint64_t bot_seed = 0;  // 0: random
};

}  // namespace inarow::server

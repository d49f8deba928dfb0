// Bot moves: the pool of bots lent to searches and the hand-off of a search
// to the bot worker threads. The server never searches on an I/O thread: a
// match asks for a move here and gets it back through a callback, on a
// worker, to post to its own strand.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "inarow/bots/bot.h"
#include "inarow/engine/game.h"
#include "inarow/server/fischer_clock.h"
#include "inarow/server/metrics.h"

namespace boost::asio {
class thread_pool;
}  // namespace boost::asio

namespace inarow::server {

// Bots to lend to searches, per variant and level. A searching bot owns a
// transposition table of several megabytes, so the server keeps as many as
// run at once (about one per bot thread and level), not one per match.
class BotPool {
 public:
  explicit BotPool(std::uint64_t seed);  // 0: random

  std::unique_ptr<bots::Bot> acquire(const Variant& v, const std::string& level);
  void release(const Variant& v, const std::string& level, std::unique_ptr<bots::Bot> bot);

 private:
  std::mutex mutex_;
  std::uint64_t seed_;
  std::uint64_t created_ = 0;
  std::map<std::pair<std::string, std::string>, std::vector<std::unique_ptr<bots::Bot>>> free_;
};

class BotMoves {
 public:
  using Done = std::function<void(const bots::Choice&)>;

  // Searches run on `workers`, which must outlive every search.
  BotMoves(boost::asio::thread_pool& workers, Metrics& metrics, std::uint64_t seed);

  // Search `game` as the bot of `level` for at most `budget` (0: the level's
  // own limits) or until *stop; `done` gets the choice on the worker.
  void search(Game game, std::string level, Millis budget, std::shared_ptr<std::atomic<bool>> stop,
              Done done);

  // The time to think with this clock: a slice of what is left plus most of
  // the increment, at most the level's own time; 0 without a clock.
  static Millis budget(const FischerClock& clock, Side side, const std::string& level,
                       TimePoint now);

  // Names every worker "inarow-bot" (top -H, the tests) and sets its nice
  // value (0 leaves it), before any search runs.
  static void tune_workers(boost::asio::thread_pool& workers, int threads, int nice);

 private:
  boost::asio::thread_pool& workers_;
  Metrics& metrics_;
  BotPool pool_;
};

}  // namespace inarow::server

// Bot moves: the pool of bots lent to searches and the hand-off of a search
// to the bot worker threads. The server never searches on an I/O thread: a
// match asks for a move here and gets it back through a callback, on a
// worker, to post to its own strand.
#pragma once

#include <array>
#include <atomic>
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "inarow/bots/bot.h"
#include "inarow/bots/opening.h"
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
  // A fresh seed from the pool's stream (for decisions beside the bots' own).
  std::uint64_t next_seed();

 private:
  std::mutex mutex_;
  std::uint64_t seed_;
  std::uint64_t created_ = 0;
  std::map<std::pair<std::string, std::string>, std::vector<std::unique_ptr<bots::Bot>>> free_;
};

// Who a search is for. A bot that plays a person is never kept waiting by
// bots playing bots: the workers take every queued person's search before
// any bot-vs-bot one, and a person's search queued while bot-vs-bot searches
// run cuts one of them short (that bot plays the best move it has found).
enum class BotLane : std::uint8_t { person = 0, bots = 1 };

class BotMoves {
 public:
  using Done = std::function<void(const bots::Choice&)>;

  // Searches run on `workers`, which must outlive every search.
  BotMoves(boost::asio::thread_pool& workers, Metrics& metrics, std::uint64_t seed);

  // Search `game` as the bot of `level` for `side`, or until *stop; `done`
  // gets the choice on the worker. The budget comes from `clock` (see
  // budget()) when a worker takes the search, not when it is queued: time
  // spent in the queue is time the bot no longer has to think, so it does
  // not plan to think past its flag.
  void search(Game game, std::string level, BotLane lane, FischerClock clock, Side side,
              std::shared_ptr<std::atomic<bool>> stop, Done done);
  // The bot's part of the opening (bots/opening.h: its stones or its
  // choice), budgeted and queued like a move.
  using Opened = std::function<void(bots::OpeningDecision)>;
  void open(Game game, Swap2 opening, std::string level, BotLane lane, FischerClock clock,
            Side side, std::shared_ptr<std::atomic<bool>> stop, Opened done);

  // A bot's answer to a draw offer in `game` (not over): on a worker, `done`
  // gets whether a search proves the game drawn (see proves_draw()). It is
  // a person's request: it goes in the people's lane.
  void judge_draw(Game game, std::function<void(bool draw)> done);
  // Whether a bounded search (kDrawJudgeNodes, kDrawJudgeTime) proves the
  // position drawn: it reaches every end of the game and scores 0. A
  // position it cannot see through is not a proven draw.
  static bool proves_draw(const Game& game);
  static constexpr std::uint64_t kDrawJudgeNodes = 2'000'000;
  static constexpr Millis kDrawJudgeTime{250};

  // The time to think with this clock: a slice of what is left plus most of
  // the increment, at most the level's own time on this board; 0 without a
  // clock.
  static Millis budget(const FischerClock& clock, Side side, const Variant& variant,
                       const std::string& level, TimePoint now);

  // Names every worker "inarow-bot" (top -H, the tests) and sets its nice
  // value (0 leaves it), before any search runs.
  static void tune_workers(boost::asio::thread_pool& workers, int threads, int nice);

 private:
  // What a worker runs: `run` does the work (told whether the job was
  // cancelled while queued) and returns what to tell whoever asked. That
  // comes after the worker has let go of `stop`, so the answer may queue the
  // next job with the same flag.
  struct Job {
    std::shared_ptr<std::atomic<bool>> stop;
    std::function<std::function<void()>(bool cancelled)> run;
  };
  void enqueue(Job job, BotLane lane);
  template <class Work, class Answer>
  void enqueue_timed(std::shared_ptr<std::atomic<bool>> stop, BotLane lane, Work work, Answer done);
  void run_next();
  bots::Choice choose(const Game& game, const std::string& level, const FischerClock& clock,
                      Side side, std::atomic<bool>* stop);

  boost::asio::thread_pool& workers_;
  Metrics& metrics_;
  BotPool pool_;
  std::mutex queue_mutex_;
  std::array<std::deque<Job>, 2> lanes_;  // by BotLane
  // The stop flags of the bot-vs-bot searches running now.
  std::vector<std::shared_ptr<std::atomic<bool>>> running_bots_;
};

}  // namespace inarow::server

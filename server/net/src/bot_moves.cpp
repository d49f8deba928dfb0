#include "inarow/server/bot_moves.h"

#include <pthread.h>
#include <spdlog/spdlog.h>
#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <boost/asio/post.hpp>
#include <boost/asio/thread_pool.hpp>
#include <cerrno>
#include <cstring>
#include <latch>
#include <optional>
#include <random>

namespace inarow::server {

namespace asio = boost::asio;

BotPool::BotPool(std::uint64_t seed) : seed_(seed ? seed : std::random_device{}()) {}

std::unique_ptr<bots::Bot> BotPool::acquire(const Variant& v, const std::string& level) {
  std::uint64_t seed;
  {
    std::lock_guard lock(mutex_);
    auto& free = free_[{v.name, level}];
    if (!free.empty()) {
      auto bot = std::move(free.back());
      free.pop_back();
      return bot;
    }
    seed = seed_ + ++created_;
  }
  auto bot = bots::make_level_bot(v, level, seed);
  if (!bot) return nullptr;
  return std::move(*bot);
}

void BotPool::release(const Variant& v, const std::string& level, std::unique_ptr<bots::Bot> bot) {
  std::lock_guard lock(mutex_);
  free_[{v.name, level}].push_back(std::move(bot));
}

std::uint64_t BotPool::next_seed() {
  std::lock_guard lock(mutex_);
  return seed_ + ++created_;
}

BotMoves::BotMoves(asio::thread_pool& workers, Metrics& metrics, std::uint64_t seed)
    : workers_(workers), metrics_(metrics), pool_(seed) {}

// A bot's search as a worker job: `work` runs (told whether the job was
// cancelled while queued), its time goes to the bot_search histogram, and
// `done` gets what it returned.
template <class Work, class Answer>
void BotMoves::enqueue_timed(std::shared_ptr<std::atomic<bool>> stop, BotLane lane, Work work,
                             Answer done) {
  enqueue(Job{std::move(stop),
              [this, work = std::move(work),
               done = std::move(done)](bool cancelled) -> std::function<void()> {
                const auto started = SteadyClock::now();
                auto result = work(cancelled);
                metrics_.bot_search.observe(
                    std::chrono::duration<double>(SteadyClock::now() - started).count());
                return [done, result = std::move(result)] { done(result); };
              }},
          lane);
}

void BotMoves::search(Game game, std::string level, BotLane lane, FischerClock clock, Side side,
                      std::shared_ptr<std::atomic<bool>> stop, Done done) {
  std::atomic<bool>* flag = stop.get();
  enqueue_timed(
      std::move(stop), lane,
      [this, game = std::move(game), level = std::move(level), clock, side, flag](bool cancelled) {
        // Cancelled while queued: nobody wants this move; any legal one will do.
        if (cancelled) return bots::Choice{.move = game.legal_moves().front()};
        return choose(game, level, clock, side, flag);
      },
      std::move(done));
}

void BotMoves::open(Game game, Swap2 opening, std::string level, BotLane lane, FischerClock clock,
                    Side side, std::shared_ptr<std::atomic<bool>> stop, Opened done) {
  std::atomic<bool>* flag = stop.get();
  enqueue_timed(
      std::move(stop), lane,
      [this, game = std::move(game), opening, level = std::move(level), clock, side,
       flag](bool cancelled) {
        // Cancelled while queued: nobody wants this decision.
        bots::OpeningDecision decision;
        if (cancelled) return decision;
        // The decision runs several searches: untimed, they share the
        // level's time for one move rather than take it each.
        Millis time =
            BotMoves::budget(clock, side, game.variant(), level, SteadyClock::now());
        if (const auto l = bots::find_level(level, game.variant()); time.count() == 0 && l)
          time = Millis{l->time_ms};
        if (auto bot = pool_.acquire(game.variant(), level)) {
          decision = bots::decide_swap2(*bot, game, opening, bots::MoveBudget{time, flag},
                                        pool_.next_seed());
          pool_.release(game.variant(), level, std::move(bot));
        }
        return decision;
      },
      std::move(done));
}

bots::Choice BotMoves::choose(const Game& game, const std::string& level, const FischerClock& clock,
                              Side side, std::atomic<bool>* stop) {
  const Millis budget = BotMoves::budget(clock, side, game.variant(), level, SteadyClock::now());
  // Bots are borrowed per search: their tables are large, matches many.
  auto bot = pool_.acquire(game.variant(), level);
  if (!bot) return bots::Choice{.move = game.legal_moves().front()};
  bots::Choice choice = bot->choose(game, bots::MoveBudget{budget, stop});
  pool_.release(game.variant(), level, std::move(bot));
  return choice;
}

void BotMoves::judge_draw(Game game, std::function<void(bool draw)> done) {
  // A person waits for the answer: the people's lane, ahead of bots playing bots.
  enqueue(Job{std::make_shared<std::atomic<bool>>(false),
              [game = std::move(game), done = std::move(done)](bool) -> std::function<void()> {
                const bool draw = proves_draw(game);
                return [done, draw] { done(draw); };
              }},
          BotLane::person);
}

void BotMoves::enqueue(Job job, BotLane lane) {
  {
    std::lock_guard lock(queue_mutex_);
    lanes_[static_cast<int>(lane)].push_back(std::move(job));
    if (lane == BotLane::person && !running_bots_.empty()) {
      // A worker is (maybe) busy with bots playing bots: free one now.
      running_bots_.back()->store(true);
      running_bots_.pop_back();
    }
  }
  // One run per queued job: whichever worker takes it runs the most urgent
  // job queued at that moment, not necessarily this one.
  asio::post(workers_, [this] { run_next(); });
}

void BotMoves::run_next() {
  std::optional<Job> job;
  bool bots_lane = false;
  bool cancelled = false;
  {
    std::lock_guard lock(queue_mutex_);
    bots_lane = lanes_[0].empty();
    auto& lane = lanes_[bots_lane ? 1 : 0];
    if (lane.empty()) return;
    job.emplace(std::move(lane.front()));
    lane.pop_front();
    // Decided here, before a person's search can cut this one short through
    // the same flag: a cut search still searches (and plays what it found).
    cancelled = job->stop->load();
    if (bots_lane && !cancelled) running_bots_.push_back(job->stop);
  }
  const std::function<void()> answer = job->run(cancelled);
  if (bots_lane && !cancelled) {
    std::lock_guard lock(queue_mutex_);
    std::erase(running_bots_, job->stop);
  }
  answer();
}

bool BotMoves::proves_draw(const Game& game) {
  if (game.over()) return false;
  Searcher searcher(game.variant(), Weights::defaults(game.variant()), 4);
  const SearchResult r =
      searcher.search(game, Limits{.nodes = kDrawJudgeNodes, .time = kDrawJudgeTime});
  return r.exact && r.score == 0;
}

Millis BotMoves::budget(const FischerClock& clock, Side side, const Variant& variant,
                        const std::string& level, TimePoint now) {
  if (!clock.enabled()) return Millis{0};
  const Millis left = clock.remaining(side, now);
  Millis budget = std::max(Millis{5}, left / 30 + clock.increment() * 3 / 4);
  if (const auto l = bots::find_level(level, variant); l && l->time_ms > 0) {
    budget = std::min(budget, Millis{l->time_ms});
  }
  return budget;
}

// Each worker takes one of these tasks and holds it until all have started,
// so no worker is left out or visited twice.
void BotMoves::tune_workers(asio::thread_pool& workers, int threads, int nice) {
  auto all = std::make_shared<std::latch>(threads);  // outlives the last arrival
  for (int i = 0; i < threads; ++i) {
    asio::post(workers, [all, nice] {
      pthread_setname_np(pthread_self(), "inarow-bot");
      if (nice != 0 && setpriority(PRIO_PROCESS, static_cast<id_t>(gettid()), nice) != 0) {
        spdlog::warn("bot_nice_failed nice={} error=\"{}\"", nice, std::strerror(errno));
      }
      all->arrive_and_wait();
    });
  }
  all->wait();
}

}  // namespace inarow::server

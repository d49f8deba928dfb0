#include "inarow/arena/player.h"

#include <exception>

namespace inarow::arena {
namespace {

using bots::Bot;
using bots::MoveBudget;
using std::chrono::milliseconds;

class BotPlayer final : public Player {
 public:
  BotPlayer(std::unique_ptr<Bot> bot, std::string name, const std::atomic<bool>* stop)
      : bot_(std::move(bot)), name_(std::move(name)), stop_(stop) {}
  std::string name() const override { return name_; }

  PlayerMove move(const Game& game, milliseconds allotted, milliseconds clock_left,
                  Clock::time_point /*deadline*/) override {
    PlayerMove out;
    try {
      // Without a game clock the move's time is its own: all of it is used.
      const bool use_all_time = allotted.count() > 0 && clock_left.count() == 0;
      out.move = bot_->choose(game, MoveBudget{allotted, stop_, use_all_time}).move;
    } catch (const std::exception& e) {
      out.status = MoveStatus::crash;
      out.detail = std::string("exception: ") + e.what();
    } catch (...) {
      out.status = MoveStatus::crash;
      out.detail = "unknown exception";
    }
    return out;
  }

 private:
  std::unique_ptr<Bot> bot_;
  std::string name_;
  const std::atomic<bool>* stop_;
};

}  // namespace

std::unique_ptr<Player> make_bot_player(std::unique_ptr<Bot> bot, std::string name,
                                        const std::atomic<bool>* stop) {
  return std::make_unique<BotPlayer>(std::move(bot), std::move(name), stop);
}

}  // namespace inarow::arena

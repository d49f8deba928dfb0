#include "inarow/arena/participant.h"

#include "inarow/arena/pbrain_player.h"
#include "inarow/arena/subprocess.h"

namespace inarow::arena {

expected<Participant, Error> Participant::parse(std::string_view text) {
  Participant p;
  std::string_view spec = text;
  // An optional "name:" prefix: a word before a colon that is not "pbrain".
  const auto colon = text.find(':');
  if (colon != std::string_view::npos && text.substr(0, colon) != "pbrain" &&
      text.substr(0, colon).find_first_of("=,/ ") == std::string_view::npos) {
    p.name = std::string(text.substr(0, colon));
    spec = text.substr(colon + 1);
  }
  p.spec = std::string(spec);
  if (spec.rfind("pbrain:", 0) == 0) {
    p.external = true;
    p.command = std::string(spec.substr(7));
    if (p.command.empty())
      return unexpected(Error{ErrorCode::bad_syntax, 7, "pbrain: needs a command"});
    if (p.name.empty()) {
      auto argv0 = Subprocess::split_command(p.command).front();
      p.name = argv0.substr(argv0.find_last_of('/') + 1);
    }
    return p;
  }
  auto bot = bots::BotSpec::parse(spec);
  if (!bot) return unexpected(bot.error());
  p.bot = std::move(bot).value();
  if (p.name.empty()) p.name = p.spec;
  return p;
}

std::vector<std::string> split_participants(std::string_view list) {
  std::vector<std::string> out;
  std::size_t at = 0;
  while (at <= list.size()) {
    const std::size_t comma = std::min(list.find(',', at), list.size());
    const std::string_view item = list.substr(at, comma - at);
    const bool option = item.find('=') != std::string_view::npos;
    if (option && !out.empty())
      out.back().append(",").append(item);
    else if (!item.empty())
      out.emplace_back(item);
    at = comma + 1;
  }
  return out;
}

expected<std::unique_ptr<Player>, Error> make_player(const Variant& v, const Participant& p,
                                                     std::uint64_t seed,
                                                     const std::atomic<bool>* stop) {
  if (p.external) return make_pbrain_player(p.command, p.name);
  auto bot = bots::make_bot(v, p.bot, seed);
  if (!bot) return unexpected(bot.error());
  return make_bot_player(std::move(bot).value(), p.name, stop);
}

}  // namespace inarow::arena

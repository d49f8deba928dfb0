#include "inarow/server/match_commands.h"

#include <array>

namespace inarow::server {

namespace {

namespace v1 = ::inarow::v1;
using Message = v1::ClientMessage;
using Events = MatchCore::Events;

constexpr std::array kCommands = {
    MatchCommand{Message::kMove, "move", [](const Message& m) -> auto& {return m.move().match_id();
}  // namespace
, [](MatchCore& c, Side s, const Message& m, TimePoint now) {
  return c.move(s, m.move().move(), now);
}
}  // namespace inarow::server
, MatchCommand{Message::kResign, "resign",
               [](const Message& m) -> auto& {return m.resign().match_id();
}
, [](MatchCore& c, Side s, const Message&, TimePoint now) { return c.resign(s, now); }
}
, MatchCommand{Message::kOfferDraw, "offer_draw",
               [](const Message& m) -> auto& {return m.offer_draw().match_id();
}
, [](MatchCore& c, Side s, const Message&, TimePoint now) { return c.offer_draw(s, now); }
}
, MatchCommand{Message::kAnswerDraw, "answer_draw",
               [](const Message& m) -> auto& {return m.answer_draw().match_id();
}
, [](MatchCore& c, Side s, const Message& m, TimePoint now) {
  return c.answer_draw(s, m.answer_draw().accept(), now);
}
}
, MatchCommand{Message::kRequestTakeback, "request_takeback",
               [](const Message& m) -> auto& {return m.request_takeback().match_id();
}
, [](MatchCore& c, Side s, const Message&, TimePoint now) { return c.request_takeback(s, now); },
    /*bot_grants=*/true
}
, MatchCommand{Message::kAnswerTakeback, "answer_takeback",
               [](const Message& m) -> auto& {return m.answer_takeback().match_id();
}
, [](MatchCore& c, Side s, const Message& m, TimePoint now) {
  return c.answer_takeback(s, m.answer_takeback().accept(), now);
}
}
, MatchCommand{Message::kChooseOpening, "choose_opening",
               [](const Message& m) -> auto& {return m.choose_opening().match_id();
}
, [](MatchCore& c, Side s, const Message& m, TimePoint now) -> Expected<Events> {
  const v1::ChooseOpening& choice = m.choose_opening();
  const std::optional<Side> side = from_proto(choice.side());
  if (choice.place_two() == side.has_value()) {
    return fail_with(ProtocolError::bad_request,
                     "choose_opening takes a side or place_two, one of the two");
  }
  return c.choose_opening(s, side, now);
}
}
,
}
;

}  // namespace

const MatchCommand* find_match_command(const v1::ClientMessage& message) {
  for (const MatchCommand& c : kCommands) {
    if (c.body == message.body_case()) return &c;
  }
  return nullptr;
}

}  // namespace inarow::server

#include "game_history.h"

#include <fmt/format.h>

#include <charconv>
#include <cmath>
#include <ctime>

#include "game_record.h"
#include "inarow/common/json.h"
#include "inarow/engine/game.h"
#include "inarow/engine/notation.h"
#include "inarow/engine/variant.h"
#include "inarow/server/match_core.h"

namespace inarow::server {

namespace v1 = ::inarow::v1;

namespace {

Failure fail(ProtocolError code, std::string message) {
  return Failure{code, std::move(message)};
}

static_assert(kPrivateMatchKind == v1::MATCH_KIND_PRIVATE);

void fill_player(v1::PlayerInfo* info, const std::string& id, const std::string& name, bool bot,
                 const std::optional<Rating>& before) {
  info->set_id(id);
  info->set_name(name.empty() ? id : name);
  info->set_bot(bot);
  if (before) *info->mutable_rating() = to_proto(*before);
}

const std::string& name_of(const MatchRecord& m, int seat) {
  const std::string& name = seat == 0 ? m.first_name : m.second_name;
  return name.empty() ? (seat == 0 ? m.first_id : m.second_id) : name;
}

std::string utc(std::int64_t unix_ms) {
  const std::time_t t = static_cast<std::time_t>(unix_ms / 1000);
  std::tm tm{};
  gmtime_r(&t, &tm);
  return fmt::format("{:04}-{:02}-{:02} {:02}:{:02}:{:02} UTC", tm.tm_year + 1900, tm.tm_mon + 1,
                     tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec);
}

std::string seconds(std::int64_t ms) {
  return ms % 1000 == 0 ? fmt::format("{}", ms / 1000)
                        : fmt::format("{:.3f}", static_cast<double>(ms) / 1000.0);
}

std::string result_text(const MatchRecord& m) {
  std::string score;
  switch (m.result) {
    case v1::RESULT_FIRST_WINS:
      score = "1-0, " + name_of(m, 0) + " wins";
      break;
    case v1::RESULT_SECOND_WINS:
      score = "0-1, " + name_of(m, 1) + " wins";
      break;
    case v1::RESULT_DRAW:
      score = "1/2-1/2, a draw";
      break;
    case v1::RESULT_ABORTED:
      score = "aborted";
      break;
    default:
      score = "still being played";
  }
  const char* why = nullptr;
  switch (m.reason) {
    case v1::END_REASON_LINE:
      why = "a line";
      break;
    case v1::END_REASON_BOARD_FULL:
      why = "a full board";
      break;
    case v1::END_REASON_RESIGNATION:
      why = "resignation";
      break;
    case v1::END_REASON_AGREEMENT:
      why = "agreement";
      break;
    case v1::END_REASON_TIMEOUT:
      why = "time";
      break;
    case v1::END_REASON_ABANDONED:
      why = "abandonment";
      break;
    default:
      break;
  }
  return why ? score + " by " + why : score;
}

// The game's moves as one position, as Game::notation writes it.
std::string notation_of(const MatchRecord& m) {
  std::vector<std::string> moves;
  moves.reserve(m.moves.size());
  for (const MoveRecord& move : m.moves)
    moves.push_back(move.move);
  auto variant = Variant::parse(m.variant);
  return join_moves(moves, variant && wide_columns(*variant));
}

}  // namespace

std::string games_cursor(const MatchRecord& last) {
  return fmt::format("{}.{}", last.ended_ms, last.id);
}

std::optional<GameCursor> parse_games_cursor(std::string_view text) {
  const auto dot = text.find('.');
  if (dot == std::string_view::npos || dot == 0 || dot > 19) return std::nullopt;
  GameCursor c;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + dot, c.ended_ms);
  if (ec != std::errc() || end != text.data() + dot || c.ended_ms < 0) return std::nullopt;
  const std::string_view id = text.substr(dot + 1);
  if (id.empty() || id.size() > 64) return std::nullopt;
  for (char ch : id) {
    const bool ok = (ch >= '0' && ch <= '9') || (ch >= 'a' && ch <= 'z') ||
                    (ch >= 'A' && ch <= 'Z') || ch == '-' || ch == '_';
    if (!ok) return std::nullopt;
  }
  c.id = std::string(id);
  return c;
}

Expected<v1::GameList> list_games(Store& store, const std::string& asker,
                                  const v1::ListGames& request) {
  const std::uint32_t limit = request.limit() == 0 ? kGamesPageDefault : request.limit();
  if (limit > kGamesPageMax) {
    return inarow::unexpected(
        fail(ProtocolError::bad_request, fmt::format("limit {} is over {}", limit, kGamesPageMax)));
  }
  std::optional<GameCursor> cursor;
  if (!request.before().empty()) {
    cursor = parse_games_cursor(request.before());
    if (!cursor) {
      return inarow::unexpected(fail(ProtocolError::bad_cursor,
                                     "not a cursor: \"" + json::echo(request.before()) + "\""));
    }
  }
  const std::string& player = request.player_id().empty() ? asker : request.player_id();
  // One more than the page, to know whether another follows. The store
  // leaves out what the asker may not see (another player's private games),
  // so one read is one page.
  auto games = store.list_games(player, asker, cursor, limit + 1);
  if (!games) {
    return inarow::unexpected(
        fail(ProtocolError::unknown_player, "no player \"" + json::echo(player) + "\""));
  }
  v1::GameList list;
  list.set_player_id(player);
  if (games->size() > limit) {
    games->resize(limit);
    list.set_next(games_cursor(games->back()));
  }
  for (const MatchRecord& m : *games)
    *list.add_games() = game_summary(m);
  return list;
}

std::optional<MatchRecord> find_match(Store& store, const std::string& asker,
                                      const std::string& match_id) {
  if (match_id.empty() || match_id.size() > 64) return std::nullopt;
  auto m = store.load_match(match_id);
  if (!m || !visible_to(*m, asker)) return std::nullopt;
  return m;
}

Expected<MatchRecord> find_game(Store& store, const std::string& asker,
                                const std::string& match_id) {
  auto m = find_match(store, asker, match_id);
  if (!m) {
    return inarow::unexpected(
        fail(ProtocolError::unknown_match, "no game \"" + json::echo(match_id) + "\""));
  }
  if (m->result == 0) {
    return inarow::unexpected(
        fail(ProtocolError::match_not_over,
             "game \"" + json::echo(match_id) + "\" is still being played: watch it"));
  }
  return std::move(*m);
}

OutgoingPtr answer_history(Metrics& metrics, Store& store, const std::string& asker,
                           const v1::ClientMessage& request) {
  const std::uint64_t rid = request.request_id();
  v1::ServerMessage answer;
  answer.set_request_id(rid);
  if (request.has_list_games()) {
    auto list = list_games(store, asker, request.list_games());
    if (!list) return make_error(metrics, rid, list.error());
    *answer.mutable_game_list() = std::move(*list);
  } else {
    const std::string& id = request.get_game().match_id();
    auto game = find_game(store, asker, id);
    if (!game) return make_error(metrics, rid, game.error(), id);
    *answer.mutable_game_record() = game_record(*game);
  }
  return make_outgoing(std::move(answer));
}

v1::GameSummary game_summary(const MatchRecord& m) {
  v1::GameSummary g;
  g.set_match_id(m.id);
  g.set_variant(m.variant);
  g.set_kind(static_cast<v1::MatchKind>(m.kind));
  g.set_rated(m.rated);
  g.mutable_time_control()->set_initial_ms(m.initial_ms);
  g.mutable_time_control()->set_increment_ms(m.increment_ms);
  std::optional<Rating> before[2];
  if (m.ratings) {
    for (int s = 0; s < 2; ++s)
      before[s] = (*m.ratings)[s].before;
  }
  fill_player(g.mutable_first(), m.first_id, m.first_name, m.first_bot, before[0]);
  fill_player(g.mutable_second(), m.second_id, m.second_name, m.second_bot, before[1]);
  g.set_result(static_cast<v1::Result>(m.result));
  g.set_end_reason(static_cast<v1::EndReason>(m.reason));
  g.set_plies(m.moves.empty() ? m.plies : static_cast<int>(m.moves.size()));
  g.set_created_ms(m.created_ms);
  g.set_ended_ms(m.ended_ms);
  if (m.ratings) {
    for (int s = 0; s < 2; ++s) {
      v1::RatingChange* c = g.add_ratings();
      c->set_player_id(s == 0 ? m.first_id : m.second_id);
      *c->mutable_before() = to_proto((*m.ratings)[s].before);
      *c->mutable_after() = to_proto((*m.ratings)[s].after);
    }
  }
  return g;
}

v1::GameRecord game_record(const MatchRecord& m) {
  v1::GameRecord r;
  *r.mutable_game() = game_summary(m);
  for (const MoveRecord& move : m.moves) {
    v1::RecordedMove* out = r.add_moves();
    out->set_ply(move.ply);
    out->set_move(move.move);
    out->set_first_ms(move.first_ms);
    out->set_second_ms(move.second_ms);
  }
  r.set_notation(notation_of(m));
  r.set_text(game_text(m));
  if (auto psq = game_psq(m)) r.set_psq(*psq);
  return r;
}

std::string game_text(const MatchRecord& m) {
  std::string out = fmt::format("Game: {}\nVariant: {}\n", m.id, m.variant);
  out += fmt::format("First: {}{}\n", name_of(m, 0), m.first_bot ? " (bot)" : "");
  out += fmt::format("Second: {}{}\n", name_of(m, 1), m.second_bot ? " (bot)" : "");
  out += "Result: " + result_text(m) + "\n";
  out += fmt::format("Rated: {}\n", m.rated ? "yes" : "no");
  if (m.ratings) {
    for (int s = 0; s < 2; ++s) {
      const RatingDelta& d = (*m.ratings)[s];
      const long before = std::lround(d.before.rating), after = std::lround(d.after.rating);
      out += fmt::format("Rating {}: {} -> {} ({:+})\n", s == 0 ? "first" : "second", before, after,
                         after - before);
    }
  }
  if (m.initial_ms > 0) {
    out += fmt::format("Time control: {}+{} s\n", seconds(m.initial_ms), seconds(m.increment_ms));
  } else {
    out += "Time control: none\n";
  }
  out += "Date: " + utc(m.ended_ms > 0 ? m.ended_ms : m.created_ms) + "\n";
  out += fmt::format("Plies: {}\n\n", m.moves.size());
  for (std::size_t i = 0; i < m.moves.size(); ++i) {
    if (i % 2 == 0)
      out += fmt::format("{}. {}", i / 2 + 1, m.moves[i].move);
    else
      out += " " + m.moves[i].move + "\n";
  }
  if (m.moves.size() % 2 == 1) out += "\n";
  const std::string notation = notation_of(m);
  out += "\nPosition: " + (notation.empty() ? std::string("-") : notation) + "\n";
  return out;
}

std::optional<std::string> game_psq(const MatchRecord& m) {
  auto variant = Variant::parse(m.variant);
  if (!variant || variant->gravity || variant->k != 5) return std::nullopt;
  auto game = Game::parse(*variant, "");
  if (!game) return std::nullopt;
  std::string out = fmt::format("Piskvorky {}x{}, 11:11, 0\n", variant->width, variant->height);
  std::int64_t clock[2] = {m.initial_ms, m.initial_ms};
  for (const MoveRecord& move : m.moves) {
    auto cell = game->play(move.move);
    if (!cell) return std::nullopt;  // a record that is not this variant's
    const int side = (move.ply - 1) % 2;
    const std::int64_t after = side == 0 ? move.first_ms : move.second_ms;
    // Thinking time from the mover's clock: before, less after, plus the
    // increment the move earned. An untimed game has none to tell.
    std::int64_t used = 0;
    if (m.initial_ms > 0) used = std::max<std::int64_t>(0, clock[side] - after + m.increment_ms);
    clock[side] = after;
    out += fmt::format("{},{},{}\n", variant->col(*cell) + 1, variant->height - variant->row(*cell),
                       used);
  }
  out += name_of(m, 0) + "\n" + name_of(m, 1) + "\n-1\n";
  return out;
}

}  // namespace inarow::server

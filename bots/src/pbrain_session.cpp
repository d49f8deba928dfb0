#include "inarow/bots/pbrain_session.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <istream>
#include <thread>

namespace inarow::bots {
namespace {

std::string_view trim(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front())))
    s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back())))
    s.remove_suffix(1);
  return s;
}

// Integers separated by commas: "10,7" or "10,7,1".
std::vector<int> numbers(std::string_view s) {
  std::vector<int> out;
  std::size_t pos = 0;
  while (pos <= s.size()) {
    auto end = s.find(',', pos);
    if (end == std::string_view::npos) end = s.size();
    const auto item = trim(s.substr(pos, end - pos));
    int v = 0;
    if (item.empty() ||
        std::from_chars(item.data(), item.data() + item.size(), v).ec != std::errc{})
      return {};
    out.push_back(v);
    pos = end + 1;
  }
  return out;
}

}  // namespace

PbrainSession::PbrainSession(PbrainOptions options) : options_(std::move(options)) {}
PbrainSession::~PbrainSession() = default;

expected<PbrainSession::Built, std::string> PbrainSession::build(int width, int height,
                                                                 bool exact) const {
  auto v = Variant::parse("mnk:" + std::to_string(width) + "," + std::to_string(height) + "," +
                          std::to_string(options_.k) + (exact ? ",exact" : ""));
  if (!v) return unexpected("unsupported size: " + v.error().message);
  auto bot = make_bot(*v, options_.bot, options_.seed);
  if (!bot) return unexpected(bot.error().message);
  return Built{std::move(*v), std::move(bot).value()};
}

void PbrainSession::start(int width, int height, std::ostream& out) {
  auto built = build(width, height, exact_);
  if (!built) {
    out << "ERROR " << built.error() << std::endl;
    return;
  }
  game_ = std::make_unique<Game>(built->variant);
  bot_ = std::move(built->bot);
  out << "OK" << std::endl;
}

void PbrainSession::set_rule(bool exact, std::ostream& out) {
  if (!game_) {  // START builds the game under the rule
    exact_ = exact;
    return;
  }
  const Variant& old = game_->variant();
  auto built = build(old.width, old.height, exact);
  if (!built) {  // the rule stays as it was, and the manager hears why
    out << "ERROR cannot play rule " << (exact ? 1 : 0) << ": " << built.error() << std::endl;
    return;
  }
  exact_ = exact;
  // The stones so far, under the new rule (managers send the rule before
  // the first move; a game it would have ended keeps its moves up to there).
  Game g(built->variant);
  for (Cell c : game_->moves())
    if (!g.play(c)) break;
  *game_ = std::move(g);
  bot_ = std::move(built->bot);
}

std::optional<Cell> PbrainSession::parse_cell(std::string_view text) const {
  const auto xy = numbers(text);
  if (xy.size() < 2 || !game_) return std::nullopt;
  const auto& v = game_->variant();
  // On the board before the flip (the same test either way up): flipping a
  // y far off the board would overflow.
  if (!v.on_board(xy[0], xy[1])) return std::nullopt;
  const int col = xy[0], row = v.height - 1 - xy[1];
  return v.cell(col, row);
}

std::string PbrainSession::format_cell(Cell c) const {
  const auto& v = game_->variant();
  return std::to_string(v.col(c)) + "," + std::to_string(v.height - 1 - v.row(c));
}

MoveBudget PbrainSession::budget() const {
  std::int64_t t = 0;
  // Whether the turn's own limit binds: its time is lost unless used, so
  // the search uses it to the end. A share of the match's time left does
  // not: what this move saves goes to the later ones.
  bool turns_own = false;
  if (timeout_turn_ > 0) {
    t = timeout_turn_;
    turns_own = true;
  }
  if (timeout_match_ > 0 && time_left_ >= 0) {
    const std::int64_t share = time_left_ / 15;
    if (t <= 0 || share < t) {
      t = share;
      turns_own = false;
    }
  }
  if (t <= 0) return {};
  // A day at most: more is no limit at all, and would overflow here.
  t = std::min<std::int64_t>(t, 24 * 3600 * 1000);
  // Keep a safety margin for the pipes and the manager's own timing.
  return MoveBudget{std::chrono::milliseconds(std::max<std::int64_t>(1, t * 9 / 10 - 20)), nullptr,
                    turns_own};
}

void PbrainSession::answer_move(std::ostream& out) {
  if (!game_) {
    out << "ERROR no START" << std::endl;
    return;
  }
  if (game_->over()) {
    out << "ERROR the game is over" << std::endl;
    return;
  }
  const auto start = std::chrono::steady_clock::now();
  const Choice c = bot_->choose(*game_, budget());
  // Never answer in less than a few milliseconds: a forced block or a found
  // win comes back at once, and pbrain-rapfi drops a command that arrives
  // while it is still finishing its own move (it then reads "6,12" as a
  // command and answers ERROR).
  std::this_thread::sleep_until(start + options_.min_answer);
  (void)game_->play(c.move);
  out << format_cell(c.move) << std::endl;
}

bool PbrainSession::handle(std::string_view raw, std::ostream& out) {
  const auto line = trim(raw);
  if (line.empty()) return true;
  const auto space = line.find(' ');
  std::string cmd(line.substr(0, space));
  std::transform(cmd.begin(), cmd.end(), cmd.begin(),
                 [](unsigned char ch) { return char(std::toupper(ch)); });
  const auto arg = space == std::string_view::npos ? std::string_view{} : trim(line.substr(space));

  if (in_board_) {
    if (cmd != "DONE") {
      const auto f = numbers(line);
      const auto c = parse_cell(line);
      if (f.size() == 3 && c) board_.emplace_back(*c, f[2]);
      return true;
    }
    // Rebuild the game: the side with more stones (or the opponent, when
    // equal and we are to move) moved first; play the stones alternately.
    in_board_ = false;
    if (!game_) {
      out << "ERROR no START" << std::endl;
      return true;
    }
    std::vector<Cell> own, theirs;
    for (auto [c, field] : board_)
      (field == 1 ? own : theirs).push_back(c);
    if (!(own.size() == theirs.size() || theirs.size() == own.size() + 1)) {
      out << "ERROR the board does not leave us to move" << std::endl;
      return true;
    }
    const bool we_first = own.size() == theirs.size();
    const auto& first = we_first ? own : theirs;
    const auto& second = we_first ? theirs : own;
    Game g(game_->variant());
    for (std::size_t i = 0; i < first.size() + second.size(); ++i) {
      const Cell c = i % 2 == 0 ? first[i / 2] : second[i / 2];
      if (!g.play(c)) {
        out << "ERROR bad board at " << format_cell(c) << std::endl;
        return true;
      }
    }
    *game_ = std::move(g);
    answer_move(out);
    return true;
  }

  if (cmd == "START") {
    const auto n = numbers(arg);
    if (n.size() != 1) {
      out << "ERROR START needs a size" << std::endl;
    } else {
      start(n[0], n[0], out);
    }
  } else if (cmd == "RECTSTART") {
    const auto n = numbers(arg);
    if (n.size() != 2) {
      out << "ERROR RECTSTART needs width,height" << std::endl;
    } else {
      start(n[0], n[1], out);
    }
  } else if (cmd == "RESTART") {
    if (!game_) {
      out << "ERROR no START" << std::endl;
    } else {
      *game_ = Game(game_->variant());
      bot_->new_game();
      out << "OK" << std::endl;
    }
  } else if (cmd == "BEGIN") {
    answer_move(out);
  } else if (cmd == "TURN") {
    const auto c = parse_cell(arg);
    if (!c || !game_ || !game_->play(*c)) {
      out << "ERROR bad move '" << std::string(arg) << "'" << std::endl;
    } else {
      answer_move(out);
    }
  } else if (cmd == "BOARD") {
    in_board_ = true;
    board_.clear();
  } else if (cmd == "TAKEBACK") {
    const auto c = parse_cell(arg);
    if (c && game_ && game_->ply() > 0 && game_->last_move() == *c) {
      game_->undo();
      out << "OK" << std::endl;
    } else {
      out << "ERROR cannot take back '" << std::string(arg) << "'" << std::endl;
    }
  } else if (cmd == "INFO") {
    const auto sp = arg.find(' ');
    const std::string key(arg.substr(0, sp));
    const auto value = sp == std::string_view::npos ? std::string_view{} : trim(arg.substr(sp));
    std::int64_t v = 0;
    const bool numeric =
        std::from_chars(value.data(), value.data() + value.size(), v).ec == std::errc{};
    if (numeric && key == "timeout_turn") timeout_turn_ = v;
    if (numeric && key == "timeout_match") timeout_match_ = v;
    if (numeric && key == "time_left") time_left_ = v;
    // Rule value 1 (Gomocup: exactly five) plays the standard rule. The
    // other values (continuous game 2, renju 4, caro 8) are not ours: those
    // games are played by the freestyle or standard rule as value 1 says.
    if (numeric && key == "rule" && ((v & 1) != 0) != exact_) set_rule((v & 1) != 0, out);
  } else if (cmd == "ABOUT") {
    out << "name=\"inarow\", version=\"0.1\", author=\"inarow\", country=\"-\"" << std::endl;
  } else if (cmd == "END") {
    return false;
  } else {
    out << "UNKNOWN " << cmd << std::endl;
  }
  return true;
}

int run_pbrain(std::istream& in, std::ostream& out, const PbrainOptions& options) {
  PbrainSession session(options);
  std::string line;
  while (std::getline(in, line))
    if (!session.handle(line, out)) break;
  return 0;
}

}  // namespace inarow::bots

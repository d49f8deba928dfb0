#include "inarow/client/command.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <charconv>
#include <cmath>
#include <vector>

#include "inarow/engine/variant.h"

namespace inarow::client {

namespace {

constexpr std::array<std::string_view, 6> kLevels = {"beginner", "easy",   "medium",
                                                     "hard",     "expert", "master"};

std::vector<std::string> split_words(std::string_view line) {
  std::vector<std::string> words;
  std::size_t i = 0;
  while (i < line.size()) {
    while (i < line.size() && std::isspace(static_cast<unsigned char>(line[i])))
      ++i;
    std::size_t j = i;
    while (j < line.size() && !std::isspace(static_cast<unsigned char>(line[j])))
      ++j;
    if (j > i) words.emplace_back(line.substr(i, j - i));
    i = j;
  }
  return words;
}

std::string lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return s;
}

// A non-negative decimal number ("5", "0.5").
bool parse_number(std::string_view text, double& out) {
  if (text.empty()) return false;
  std::string s(text);
  char* end = nullptr;
  out = std::strtod(s.c_str(), &end);
  return end == s.c_str() + s.size() && std::isfinite(out) && out >= 0;
}

// The options after a variant: level, side, time control, `rated`.
expected<void, std::string> parse_options(const std::vector<std::string>& words, std::size_t from,
                                          Command& c, int levels_wanted) {
  int levels_seen = 0;
  for (std::size_t i = from; i < words.size(); ++i) {
    const std::string w = lower(words[i]);
    if (is_bot_level(w) && levels_seen < levels_wanted) {
      (levels_seen == 0 ? c.level : c.level2) = w;
      ++levels_seen;
    } else if (w == "first" || w == "x" || w == "black" || w == "red") {
      c.side = v1::SIDE_FIRST;
    } else if (w == "second" || w == "o" || w == "white" || w == "yellow") {
      c.side = v1::SIDE_SECOND;
    } else if (w == "rated") {
      c.rated = true;
      c.casual = false;
    } else if (w == "casual" || w == "unrated") {
      c.rated = false;
      c.casual = true;
    } else if (w == "untimed") {
      c.initial_ms = c.increment_ms = 0;
    } else if (w == "time" || w == "tc") {
      if (i + 1 >= words.size()) return unexpected(std::string("time wants a value like 5+3"));
      auto tc = parse_time_control(words[++i]);
      if (!tc) return unexpected(tc.error());
      c.initial_ms = tc->first;
      c.increment_ms = tc->second;
    } else if (w.find('+') != std::string::npos) {
      auto tc = parse_time_control(w);
      if (!tc) return unexpected(tc.error());
      c.initial_ms = tc->first;
      c.increment_ms = tc->second;
    } else if (levels_wanted > 0 && levels_seen >= levels_wanted && is_bot_level(w)) {
      return unexpected("one level too many: " + words[i]);
    } else {
      return unexpected("what is \"" + words[i] + "\"? (type help)");
    }
  }
  return {};
}

// games [PLAYER]
expected<Command, std::string> parse_games(const std::vector<std::string>& words, Command& c) {
  if (words.size() > 2) return unexpected(std::string("games [PLAYER-ID]"));
  c.kind = Command::Kind::games;
  if (words.size() == 2) c.code = words[1];
  return c;
}

// replay ID|N [PLY]
expected<Command, std::string> parse_replay(const std::vector<std::string>& words, Command& c) {
  if (words.size() < 2 || words.size() > 3) {
    return unexpected(std::string("replay wants a game id or its number in games, and a ply"));
  }
  c.kind = Command::Kind::replay;
  c.code = words[1];
  if (words.size() == 3) {
    int ply = -1;
    const auto& w = words[2];
    const auto [end, ec] = std::from_chars(w.data(), w.data() + w.size(), ply);
    if (ec != std::errc() || end != w.data() + w.size() || ply < 0) {
      return unexpected("not a ply: " + w);
    }
    c.ply = ply;
  }
  return c;
}

// export ID|N [psq] [FILE]
expected<Command, std::string> parse_export(const std::vector<std::string>& words, Command& c) {
  if (words.size() < 2 || words.size() > 4) {
    return unexpected(std::string("export ID|N [psq] [FILE]"));
  }
  c.kind = Command::Kind::export_game;
  c.code = words[1];
  std::size_t i = 2;
  if (i < words.size() && lower(words[i]) == "psq") {
    c.psq = true;
    ++i;
  }
  if (i < words.size()) c.file = words[i++];
  if (i < words.size()) return unexpected(std::string("export ID|N [psq] [FILE]"));
  return c;
}

// choose first|second|two: a swap2 opening's choice. The sides are named as
// everywhere else (first = X = black, second = O = white).
expected<Command, std::string> parse_choose(const std::vector<std::string>& words, Command& c) {
  c.kind = Command::Kind::choose;
  const std::string what = words.size() == 2 ? lower(words[1]) : "";
  if (what == "first" || what == "x" || what == "black") {
    c.side = v1::SIDE_FIRST;
  } else if (what == "second" || what == "o" || what == "white") {
    c.side = v1::SIDE_SECOND;
  } else if (what == "two" || what == "2") {
    c.place_two = true;
  } else {
    return unexpected(std::string(
        "choose first (black, X), choose second (white, O) or choose two (two more stones)"));
  }
  return c;
}

}  // namespace

bool is_bot_level(std::string_view word) {
  return std::find(kLevels.begin(), kLevels.end(), word) != kLevels.end();
}

expected<std::pair<std::int64_t, std::int64_t>, std::string> parse_time_control(
    std::string_view text) {
  if (text == "untimed" || text == "none" || text == "-")
    return std::pair<std::int64_t, std::int64_t>{0, 0};
  const auto plus = text.find('+');
  std::string_view base = text.substr(0, plus);
  std::string_view inc =
      plus == std::string_view::npos ? std::string_view("0") : text.substr(plus + 1);
  double base_unit = 60'000;  // minutes by default
  if (!base.empty() && base.back() == 's') {
    base_unit = 1000;
    base.remove_suffix(1);
  } else if (!base.empty() && base.back() == 'm') {
    base.remove_suffix(1);
  }
  if (!inc.empty() && inc.back() == 's') inc.remove_suffix(1);
  double b = 0;
  double i = 0;
  if (!parse_number(base, b) || !parse_number(inc, i)) {
    return unexpected("bad time control \"" + std::string(text) +
                      "\": use minutes+seconds, e.g. 5+3, 0.5+2 or 90s+1");
  }
  const auto initial = static_cast<std::int64_t>(std::llround(b * base_unit));
  const auto increment = static_cast<std::int64_t>(std::llround(i * 1000));
  if (initial == 0 && increment > 0) {
    return unexpected(std::string("a time control needs some initial time"));
  }
  return std::pair<std::int64_t, std::int64_t>{initial, increment};
}

expected<std::string, std::string> canonical_variant(std::string_view text) {
  std::string name = lower(std::string(text));
  if (name == "ttt" || name == "tic-tac-toe" || name == "tictactoe") name = "tictactoe";
  if (name == "c4" || name == "connect-four" || name == "connectfour") name = "connect4";
  if (name == "five" || name == "gomoku") name = "gomoku";
  if (name == "standard" || name == "gomoku-standard") name = "gomoku-standard";
  if (name == "swap2" || name == "five-swap2") name = "gomoku-swap2";
  if (name == "standard-swap2") name = "gomoku-standard-swap2";
  auto v = Variant::parse(name);
  if (!v) return unexpected(v.error().message);
  return v->name;
}

expected<Command, std::string> parse_command(std::string_view line) {
  const auto words = split_words(line);
  Command c;
  if (words.empty()) return unexpected(std::string("empty line"));
  const std::string verb = lower(words[0]);
  using K = Command::Kind;

  auto no_args = [&](K kind) -> expected<Command, std::string> {
    if (words.size() > 1) return unexpected(verb + " takes no arguments");
    c.kind = kind;
    return c;
  };
  // The rest of the line: names may hold spaces.
  auto name_after_verb = [&] {
    std::string name;
    for (std::size_t i = 1; i < words.size(); ++i)
      name += (i > 1 ? " " : "") + words[i];
    return name;
  };
  auto with_variant = [&](K kind, int levels) -> expected<Command, std::string> {
    c.kind = kind;
    if (words.size() < 2)
      return unexpected(verb +
                        " wants a variant: tictactoe, connect4, gomoku, gomoku-standard, "
                        "gomoku-swap2, gomoku-standard-swap2 or "
                        "mnk:M,N,K[,gravity][,exact][,swap2]");
    auto v = canonical_variant(words[1]);
    if (!v) return unexpected(v.error());
    c.variant = *v;
    if (auto ok = parse_options(words, 2, c, levels); !ok) return unexpected(ok.error());
    return c;
  };

  if (verb == "help" || verb == "?" || verb == "menu") return no_args(K::help);
  if (verb == "bot" || verb == "play") return with_variant(K::bot, 1);
  if (verb == "seek") return with_variant(K::seek, 0);
  if (verb == "cancel") return no_args(K::cancel);
  if (verb == "create" || verb == "private") return with_variant(K::create, 0);
  if (verb == "botmatch") return with_variant(K::botmatch, 2);
  if (verb == "join") {
    if (words.size() != 2) return unexpected(std::string("join wants the game's code"));
    c.kind = K::join;
    c.code = words[1];
    return c;
  }
  if (verb == "watch") {
    if (words.size() != 2)
      return unexpected(std::string("watch wants a match id or its number in list"));
    c.kind = K::watch;
    c.code = words[1];
    return c;
  }
  if (verb == "unwatch" || verb == "leave") return no_args(K::unwatch);
  if (verb == "list" || verb == "matches" || verb == "ls") return no_args(K::list);
  if (verb == "seeks" || verb == "lobby") return no_args(K::seeks);
  if (verb == "accept") {
    if (words.size() != 2) return unexpected(std::string("accept wants a seek's number in seeks"));
    c.kind = K::accept;
    c.code = words[1];
    return c;
  }
  if (verb == "resign") return no_args(K::resign);
  if (verb == "draw") return no_args(K::draw);
  if (verb == "undo" || verb == "takeback") return no_args(K::undo);
  if (verb == "decline" || verb == "no") return no_args(K::decline);
  if (verb == "rematch" || verb == "again") return no_args(K::rematch);
  if (verb == "choose") return parse_choose(words, c);
  if (verb == "board" || verb == "show") return no_args(K::board);
  if (verb == "moves" || verb == "history") return no_args(K::moves);
  if (verb == "games") return parse_games(words, c);
  if (verb == "replay") return parse_replay(words, c);
  if (verb == "export") return parse_export(words, c);
  if (verb == "next" || verb == "prev") {
    c.ply = verb == "next" ? 1 : -1;
    return no_args(K::replay_step);
  }
  if (verb == "sound" || verb == "bell") {
    c.kind = K::sound;
    const std::string what = words.size() == 2 ? lower(words[1]) : "";
    if (words.size() != 2 || (what != "on" && what != "off"))
      return unexpected(std::string("sound on, or sound off"));
    c.on = what == "on";
    return c;
  }
  if (verb == "profile" || verb == "whois") {
    c.kind = K::profile;
    c.code = name_after_verb();
    return c;
  }
  if (verb == "top" || verb == "leaderboard") return with_variant(K::top, 0);
  // The passwords themselves are never on the command line (nor in the
  // history): they are asked for.
  if (verb == "password" || verb == "passwd") return no_args(K::password);
  if (verb == "login" || verb == "signin") {
    c.kind = K::login;
    c.code = name_after_verb();
    if (c.code.empty()) return unexpected(std::string("login NAME: the account's name"));
    return c;
  }
  if (verb == "quit" || verb == "exit" || verb == "bye") return no_args(K::quit);
  if (verb == "wait") {
    c.kind = K::wait;
    if (words.size() > 2) return unexpected(std::string("wait [turn|start|end|offer]"));
    const std::string what = words.size() == 2 ? lower(words[1]) : "turn";
    if (what == "turn")
      c.wait_for = WaitFor::turn;
    else if (what == "start")
      c.wait_for = WaitFor::start;
    else if (what == "end")
      c.wait_for = WaitFor::end;
    else if (what == "offer")
      c.wait_for = WaitFor::offer;
    else
      return unexpected("wait for what? \"" + words[1] + "\": turn, start, end or offer");
    return c;
  }
  if (words.size() != 1) return unexpected("unknown command \"" + words[0] + "\" (type help)");
  c.kind = K::move;
  c.move = lower(words[0]);
  return c;
}

const std::vector<std::string_view>& completion_words() {
  static const std::vector<std::string_view> words = [] {
    std::vector<std::string_view> w = {
        "bot",      "seek",     "cancel", "create",    "join",     "list",    "watch",
        "leave",    "games",    "replay", "export",    "botmatch", "resign",  "draw",
        "undo",     "decline",  "board",  "moves",     "sound",    "wait",    "help",
        "quit",     "on",       "off",    "tictactoe", "connect4", "gomoku",  "gomoku-standard",
        "mnk:",     "beginner", "easy",   "medium",    "hard",     "expert",  "master",
        "first",    "second",   "rated",  "time",      "turn",     "start",   "end",
        "offer",    "rematch",  "seeks",  "accept",    "casual",   "profile", "top",
        "password", "login",    "choose", "two",       "black",    "white"};
    // The swap2 openings' names, too long for the table.
    for (std::string_view v : {"gomoku-swap2", "gomoku-standard-swap2", "swap2"})
      w.push_back(v);
    return w;
  }();
  return words;
}

std::string help_text(bool in_match) {
  std::string s;
  if (in_match) {
    s += "In a match:\n"
         "  b2, h8, 4       a move: column letter + row from the bottom-left;\n"
         "                  under gravity (connect four) the column number\n"
         "  resign          give up\n"
         "  draw            offer a draw, or accept the one offered\n"
         "  undo            ask to take back your move, or accept the request\n"
         "  decline         decline a draw offer or a takeback request\n"
         "  choose first|second|two\n"
         "                  swap2 opening: take a side (first = X = black, second = O =\n"
         "                  white), or place two more stones and let the other choose\n"
         "  board           draw the board again\n"
         "  moves           the moves so far, in pairs\n";
  }
  s += "Play:\n"
       "  bot VARIANT [LEVEL] [first|second] [time 5+3]    against a server bot\n"
       "  seek VARIANT [rated|casual] [time 5+3]           a person (cancel: stop); rated\n"
       "                                                   unless casual\n"
       "  seeks, accept N                                  open seeks: play one at once\n"
       "  create VARIANT [first|second] [rated] [time 5+3] private: gives a code\n"
       "  join CODE                                        a friend's private game\n"
       "  rematch                                          after a match: again, sides swapped\n"
       "                                                   (decline: turn an offered one down)\n"
       "  list, watch N, leave                             live matches\n"
       "  botmatch VARIANT LEVEL LEVEL [time 1+0]          watch two bots\n"
       "  games [PLAYER]                                   finished games, newest first\n"
       "  replay N|ID [PLY], next, prev                    a game's board and moves\n"
       "  export N|ID [psq] [FILE]                         a game as text or .psq\n"
       "  wait [turn|start|end|offer]                      scripts: pace the input\n"
       "  sound on|off                                     the bell on a start, a move, the end\n"
       "  profile [NAME], top VARIANT                      ratings: a player's, a leaderboard\n"
       "  password                                         protect your name (or change it)\n"
       "  login NAME                                       sign in to your account here\n"
       "  help, quit\n"
       "Variants: tictactoe connect4 gomoku gomoku-standard mnk:M,N,K[,gravity][,exact]\n"
       "  (gomoku: five or more wins; gomoku-standard and ,exact: exactly k, an overline is no "
       "win)\n"
       "  gomoku-swap2 (swap2), gomoku-standard-swap2, mnk:M,N,K[,exact],swap2: the swap2\n"
       "  opening (X places three stones; O takes a side or places two more, then X picks)\n"
       "Levels: beginner easy medium hard expert master. 5+3: 5 min + 3 s a move.\n";
  return s;
}

}  // namespace inarow::client

// What a person (or a script) types, parsed into a Command. Parsing is pure
// and never throws: bad input gives a sentence saying what is wrong.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "inarow/common/expected.h"
#include "inarow/v1/inarow.pb.h"

namespace inarow::client {

namespace v1 = ::inarow::v1;

// What `wait` waits for (script mode): the next stdin line is read only then.
enum class WaitFor : std::uint8_t {
  turn,   // my move in the current match, or the match is over
  start,  // a match has started (after seek, create or join)
  end,    // the current match is over
  offer,  // the opponent offered a draw or asked for a takeback, or the match is over
};

struct Command {
  enum class Kind : std::uint8_t {
    help,
    bot,     // play a server bot
    seek,    // play a person the matchmaker finds
    cancel,  // stop seeking
    create,  // a private game; the answer is a code for a friend
    join,    // a friend's private game by code
    watch,   // spectate a match (id or number from `list`)
    unwatch,
    list,      // live matches
    seeks,     // the open seeks and the counts
    accept,    // play an open seek's player (its number in `seeks`)
    botmatch,  // two bots play; we watch
    move,
    resign,
    draw,         // offer a draw, or accept the opponent's offer
    undo,         // ask for a takeback, or accept the opponent's request
    decline,      // decline a pending draw offer or takeback request, or a rematch offer
    rematch,      // after a match: play again, sides swapped (or accept the offer of it)
    choose,       // a swap2 opening's choice: a side (side), or two more stones (place_two)
    board,        // draw the board again
    moves,        // the moves so far, in pairs: "1. h8 i9  2. ..."
    sound,        // sound on|off: the terminal bell, remembered in the profile
    games,        // finished games, newest first: mine, or a player's (code: the player id)
    replay,       // a finished game's board at a ply (code: id or number from `games`)
    replay_step,  // next / prev: the replayed game one move on or back (ply: +1 or -1)
    export_game,  // a finished game as text or .psq, printed or written to a file
    profile,      // a player's ratings: by account or bot name, or one's own
    top,          // a variant's leaderboard
    password,     // protect one's name with a password, or change it (asked for, unseen)
    login,        // sign in to an account from this device (code: its name)
    wait,
    quit,
  };
  Kind kind = Kind::help;
  std::string variant;  // canonical engine name
  std::string level = "medium";
  std::string level2 = "medium";
  std::string code;  // join; watch: a match id or a list number; accept: a seeks number
  std::string move;  // in notation
  v1::Side side = v1::SIDE_UNSPECIFIED;
  std::int64_t initial_ms = 0;
  std::int64_t increment_ms = 0;
  bool rated = false;
  bool casual = false;  // said `casual` (a seek is rated unless it is)
  bool on = true;       // sound on|off
  int ply = -1;         // replay: the position after this many moves (-1: the end)
  bool psq = false;     // export: Piskvork's record instead of our text
  std::string file;     // export: where to write it (empty: print it)
  WaitFor wait_for = WaitFor::turn;
  bool place_two = false;  // choose two: two more stones, then the other player takes a side
};

// One line. Words that are not a command are a move ("b2", "4").
expected<Command, std::string> parse_command(std::string_view line);

// "5+3" (minutes + seconds, as in chess), "0.5+2", "90s+0", "untimed".
expected<std::pair<std::int64_t, std::int64_t>, std::string> parse_time_control(
    std::string_view text);

// "ttt" -> "tictactoe", "c4" -> "connect4", "mnk:9,9,4" stays; checked by the engine.
expected<std::string, std::string> canonical_variant(std::string_view text);

bool is_bot_level(std::string_view word);

// Words worth completing on a terminal: commands, variants, levels, sides.
const std::vector<std::string_view>& completion_words();

// The help text: the menu outside a match, the match commands inside one.
std::string help_text(bool in_match);

}  // namespace inarow::client

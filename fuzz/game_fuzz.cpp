// Move notation: the first byte picks a variant, the rest is a game in our
// notation. A game that parses must format back to text that parses to the
// same moves; a game that does not parse must say where, within the text.
// Each move is also tried alone against the start position.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "inarow/engine/game.h"
#include "inarow/engine/notation.h"

namespace {

const inarow::Variant& pick(std::uint8_t b) {
  static const inarow::Variant variants[] = {
      inarow::Variant::tictactoe(),
      inarow::Variant::connect4(),
      inarow::Variant::gomoku(),
      *inarow::Variant::parse("mnk:12,9,4,gravity"),  // columns past 9 take letters
      *inarow::Variant::parse("mnk:20,20,5"),
      *inarow::Variant::parse("mnk:2,2,2"),
  };
  return variants[b % (sizeof variants / sizeof variants[0])];
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  const inarow::Variant& v = pick(data[0]);
  const std::string_view text(reinterpret_cast<const char*>(data + 1), size - 1);

  auto game = inarow::Game::parse(v, text);
  if (!game) {
    if (game.error().offset > text.size()) std::abort();
  } else {
    auto again = inarow::Game::parse(v, game->notation());
    if (!again || again->moves() != game->moves()) std::abort();
    if (inarow::format_moves(v, game->moves()) != game->notation()) std::abort();
  }

  inarow::Game start(v);
  auto cell = start.parse_move(text);
  if (cell && !start.is_legal(*cell)) std::abort();
  return 0;
}

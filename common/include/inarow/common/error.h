// Errors reported as values: a code a program can act on, the offset in the
// text where it was found, and a sentence a person can read. The engine
// reports bad input with the first codes; the parts that read and write files
// (bots, arena, tools) report a file they cannot use with the last ones.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace inarow {

enum class ErrorCode : std::uint8_t {
  unknown_variant,  // the variant name is not one we know
  bad_variant,      // mnk:M,N,K with values out of range or malformed
  bad_syntax,       // not a move in this variant's notation
  off_board,        // a cell or column outside the board
  occupied,         // the cell already holds a stone
  column_full,      // a gravity column with no free cell
  game_over,        // a move after the game has ended
  bad_choice,       // an opening choice the opening does not offer now
  bad_weights,      // a weights text that does not parse or does not fit
  cannot_read,      // a file that cannot be opened or read (never the engine)
  cannot_write,     // a file that cannot be created or written (never the engine)
};

std::string_view to_string(ErrorCode code);

struct Error {
  ErrorCode code;
  std::size_t offset = 0;  // where in the input the problem starts
  std::string message;     // names the problem, e.g. "cell d4 is occupied"

  // "at offset 4: cell d4 is occupied"
  std::string describe() const;
};

}  // namespace inarow

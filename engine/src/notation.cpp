#include "inarow/engine/notation.h"

#include <cctype>

namespace inarow {

namespace {

// Gravity boards of up to nine columns name a column by its digit.
bool digit_columns(const Variant& v) { return v.gravity && v.width <= 9; }

char column_letter(int col) { return static_cast<char>('a' + col); }

}  // namespace

std::string format_cell(const Variant& v, Cell c) {
  return column_letter(v.col(c)) + std::to_string(v.row(c) + 1);
}

std::string format_move(const Variant& v, Cell c) {
  if (!v.gravity) return format_cell(v, c);
  if (digit_columns(v)) return std::string(1, static_cast<char>('1' + v.col(c)));
  return std::string(1, column_letter(v.col(c)));
}

std::string format_moves(const Variant& v, const std::vector<Cell>& moves) {
  std::string out;
  for (Cell c : moves) out += format_move(v, c);
  return out;
}

expected<MoveToken, Error> parse_move_token(const Variant& v, std::string_view text) {
  auto fail = [](ErrorCode code, std::size_t at, std::string message) {
    return unexpected(Error{code, at, std::move(message)});
  };
  if (text.empty()) return fail(ErrorCode::bad_syntax, 0, "expected a move, found the end");
  const unsigned char first = static_cast<unsigned char>(text[0]);

  if (digit_columns(v)) {
    if (!std::isdigit(first))
      return fail(ErrorCode::bad_syntax, 0,
                  std::string("expected a column digit 1-") + char('0' + v.width) + ", found '" +
                      char(first) + "'");
    const int col = first - '1';
    if (col < 0 || col >= v.width)
      return fail(ErrorCode::off_board, 0,
                  std::string("column ") + char(first) + " is off the board (1-" +
                      char('0' + v.width) + ")");
    return MoveToken{col, -1, 1};
  }

  if (!std::isalpha(first))
    return fail(ErrorCode::bad_syntax, 0,
                std::string("expected a column letter, found '") + char(first) + "'");
  const int col = std::tolower(first) - 'a';
  if (col >= v.width)
    return fail(ErrorCode::off_board, 0,
                std::string("column '") + char(first) + "' is off the board (a-" +
                    column_letter(v.width - 1) + ")");
  if (v.gravity) return MoveToken{col, -1, 1};

  std::size_t i = 1;
  int number = 0;
  while (i < text.size() && std::isdigit(static_cast<unsigned char>(text[i])) && i < 4) {
    number = number * 10 + (text[i] - '0');
    ++i;
  }
  if (i == 1)
    return fail(ErrorCode::bad_syntax, 1,
                i < text.size() ? std::string("expected a row number, found '") + text[1] + "'"
                                : std::string("expected a row number after the column letter"));
  if (text[1] == '0')
    return fail(ErrorCode::bad_syntax, 1, "row numbers start at 1 and have no leading zero");
  if (number > v.height)
    return fail(ErrorCode::off_board, 1,
                "row " + std::to_string(number) + " is off the board (1-" +
                    std::to_string(v.height) + ")");
  return MoveToken{col, number - 1, i};
}

}  // namespace inarow

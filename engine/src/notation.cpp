#include "inarow/engine/notation.h"

#include <cctype>

#include "inarow/common/json.h"
#include "inarow/common/utf8.h"

namespace inarow {

namespace {

char column_letter(int col) {
  return static_cast<char>('a' + col);
}

// The character at the start of `text`, quoted for a message.
std::string found(std::string_view text) {
  return "'" + json::echo(text.substr(0, utf8::decode(text).length)) + "'";
}

}  // namespace

std::string format_cell(const Variant& v, Cell c) {
  return column_letter(v.col(c)) + std::to_string(v.row(c) + 1);
}

std::string format_move(const Variant& v, Cell c) {
  if (!v.gravity) return format_cell(v, c);
  return std::to_string(v.col(c) + 1);
}

bool wide_columns(const Variant& v) {
  return v.gravity && v.width > 9;
}

std::string format_moves(const Variant& v, const std::vector<Cell>& moves) {
  std::vector<std::string> texts;
  texts.reserve(moves.size());
  for (Cell c : moves)
    texts.push_back(format_move(v, c));
  return join_moves(texts, wide_columns(v));
}

std::string join_moves(const std::vector<std::string>& moves, bool commas) {
  std::string out;
  for (const std::string& m : moves) {
    if (!out.empty() && commas) out += ',';
    out += m;
  }
  return out;
}

expected<MoveToken, Error> parse_move_token(const Variant& v, std::string_view text) {
  auto fail = [](ErrorCode code, std::size_t at, std::string message) {
    return unexpected(Error{code, at, std::move(message)});
  };
  if (text.empty()) return fail(ErrorCode::bad_syntax, 0, "expected a move, found the end");
  const unsigned char first = static_cast<unsigned char>(text[0]);
  const std::string columns = "1-" + std::to_string(v.width);

  if (v.gravity && std::isdigit(first)) {
    // One digit on boards of up to nine columns ("4453" is four moves), up
    // to three on wider ones, so that "123" is named as the column it says.
    const std::size_t most = wide_columns(v) ? 3 : 1;
    std::size_t i = 0;
    int number = 0;
    while (i < text.size() && i < most && std::isdigit(static_cast<unsigned char>(text[i]))) {
      number = number * 10 + (text[i] - '0');
      ++i;
      if (number == 0) break;  // "0" is no column, and no column starts with it
    }
    if (number < 1 || number > v.width)
      return fail(ErrorCode::off_board, 0,
                  "column " + std::to_string(number) + " is off the board (" + columns + ")");
    return MoveToken{number - 1, -1, i};
  }
  if (v.gravity && !wide_columns(v))
    return fail(ErrorCode::bad_syntax, 0,
                "expected a column digit " + columns + ", found " + found(text));

  // A cell's column letter; on a wide gravity board a column letter is read
  // too, the notation games were first stored in.
  if (!std::isalpha(first))
    return fail(ErrorCode::bad_syntax, 0,
                (v.gravity ? "expected a column number " + columns
                           : std::string("expected a column letter")) +
                    ", found " + found(text));
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
                i < text.size() ? "expected a row number, found " + found(text.substr(1))
                                : std::string("expected a row number after the column letter"));
  if (text[1] == '0')
    return fail(ErrorCode::bad_syntax, 1, "row numbers start at 1 and have no leading zero");
  if (number > v.height)
    return fail(
        ErrorCode::off_board, 1,
        "row " + std::to_string(number) + " is off the board (1-" + std::to_string(v.height) + ")");
  return MoveToken{col, number - 1, i};
}

}  // namespace inarow

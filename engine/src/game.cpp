#include "inarow/engine/game.h"

#include <algorithm>

#include "inarow/common/json.h"
#include "inarow/engine/notation.h"

namespace inarow {

std::string_view to_string(Outcome o) {
  switch (o) {
    case Outcome::ongoing:
      return "ongoing";
    case Outcome::first_wins:
      return "first_wins";
    case Outcome::second_wins:
      return "second_wins";
    case Outcome::draw:
      return "draw";
  }
  return "unknown";
}

namespace {

template <int W>
AnyPosition start(const Variant& v) {
  return Position<W>(Geometry<W>::make(v));
}

AnyPosition start_position(const Variant& v) {
  switch (v.words()) {
    case 1:
      return start<1>(v);
    case 2:
      return start<2>(v);
    case 4:
      return start<4>(v);
    default:
      return start<7>(v);
  }
}

}  // namespace

Game::Game(const Variant& v) : variant_(v), pos_(start_position(v)) {}

expected<Game, Error> Game::parse(const Variant& v, std::string_view moves) {
  Game game(v);
  if (moves == "-") return game;
  std::size_t at = 0;
  while (at < moves.size()) {
    if (at > 0 && wide_columns(v) && moves[at] == ',') {
      if (++at == moves.size())
        return unexpected(Error{ErrorCode::bad_syntax, at, "expected a move after ','"});
    }
    auto token = parse_move_token(v, moves.substr(at));
    if (!token) {
      Error e = std::move(token).error();
      e.offset += at;
      return unexpected(std::move(e));
    }
    auto cell = game.parse_move(moves.substr(at, token->length));
    if (!cell) {
      Error e = std::move(cell).error();
      e.offset += at;
      return unexpected(std::move(e));
    }
    if (auto played = game.play(*cell); !played) {
      Error e = played.error();
      e.offset += at;
      return unexpected(std::move(e));
    }
    at += token->length;
  }
  return game;
}

int Game::ply() const {
  return std::visit([](const auto& p) { return p.ply(); }, pos_);
}
Side Game::to_move() const {
  return std::visit([](const auto& p) { return p.to_move(); }, pos_);
}
Outcome Game::outcome() const {
  return std::visit(
      [](const auto& p) {
        if (p.won()) return p.to_move() == Side::first ? Outcome::second_wins : Outcome::first_wins;
        if (p.full()) return Outcome::draw;
        return Outcome::ongoing;
      },
      pos_);
}
std::vector<Cell> Game::moves() const {
  return std::visit(
      [](const auto& p) {
        auto m = p.moves();
        return std::vector<Cell>(m.begin(), m.end());
      },
      pos_);
}
Cell Game::last_move() const {
  return std::visit([](const auto& p) { return p.last_move(); }, pos_);
}
std::uint64_t Game::key() const {
  return std::visit([](const auto& p) { return p.key(); }, pos_);
}

std::optional<Side> Game::at(int col, int row) const {
  if (!variant_.on_board(col, row)) return std::nullopt;
  const Cell c = variant_.cell(col, row);
  return std::visit(
      [c](const auto& p) -> std::optional<Side> {
        if (p.stones(Side::first).test(c)) return Side::first;
        if (p.stones(Side::second).test(c)) return Side::second;
        return std::nullopt;
      },
      pos_);
}

bool Game::is_legal(Cell c) const {
  return std::visit([c](const auto& p) { return p.is_legal(c); }, pos_);
}

std::vector<Cell> Game::legal_moves() const {
  return std::visit(
      [](const auto& p) {
        std::vector<Cell> out;
        for (int c : bits(p.playable()))
          out.push_back(c);
        return out;
      },
      pos_);
}

int Game::column_height(int col) const {
  int h = 0;
  while (h < variant_.height && at(col, h))
    ++h;
  return h;
}

expected<void, Error> Game::play(Cell c) {
  if (!variant_.on_board(c))
    return unexpected(
        Error{ErrorCode::off_board, 0, "cell " + std::to_string(c) + " is off the board"});
  if (over())
    return unexpected(Error{ErrorCode::game_over, 0,
                            "the game is over (" + std::string(to_string(outcome())) + ")"});
  if (at(variant_.col(c), variant_.row(c)))
    return unexpected(
        Error{ErrorCode::occupied, 0, "cell " + format_cell(variant_, c) + " is occupied"});
  if (!is_legal(c))  // only gravity makes an empty cell unplayable
    return unexpected(
        Error{ErrorCode::off_board, 0,
              "cell " + format_cell(variant_, c) + " is not at the top of its column"});
  std::visit([c](auto& p) { p.make(c); }, pos_);
  return {};
}

expected<Cell, Error> Game::parse_move(std::string_view move) const {
  auto token = parse_move_token(variant_, move);
  if (!token) return unexpected(std::move(token).error());
  if (token->length != move.size())
    return unexpected(
        Error{ErrorCode::bad_syntax, token->length,
              "unexpected '" + json::echo(move.substr(token->length)) + "' after the move"});
  if (over())
    return unexpected(Error{ErrorCode::game_over, 0,
                            "the game is over (" + std::string(to_string(outcome())) + ")"});
  int row = token->row;
  if (row < 0) {  // a gravity column: the stone lands on top
    row = column_height(token->col);
    if (row >= variant_.height)
      return unexpected(
          Error{ErrorCode::column_full, 0,
                "column " + format_move(variant_, variant_.cell(token->col, 0)) + " is full"});
  }
  const Cell c = variant_.cell(token->col, row);
  if (at(token->col, row))
    return unexpected(
        Error{ErrorCode::occupied, 0, "cell " + format_cell(variant_, c) + " is occupied"});
  if (!is_legal(c))
    return unexpected(
        Error{ErrorCode::off_board, 0,
              "cell " + format_cell(variant_, c) + " is not at the top of its column"});
  return c;
}

expected<Cell, Error> Game::play(std::string_view move) {
  auto cell = parse_move(move);
  if (!cell) return cell;
  if (auto played = play(*cell); !played) return unexpected(played.error());
  return cell;
}

bool Game::undo() {
  return std::visit(
      [](auto& p) {
        if (p.ply() == 0) return false;
        p.undo();
        return true;
      },
      pos_);
}

std::vector<Cell> Game::winning_line() const {
  const Cell last = last_move();
  if (last == kNoCell || outcome() == Outcome::ongoing || outcome() == Outcome::draw) return {};
  const auto winner = at(variant_.col(last), variant_.row(last));
  // Walk the four lines through the winning move; the first long enough wins
  // (under the standard rule, the first of exactly k).
  static constexpr int kSteps[4][2] = {{0, 1}, {1, 0}, {1, 1}, {1, -1}};
  for (const auto& [dc, dr] : kSteps) {
    std::vector<Cell> line{last};
    for (int sign : {-1, 1}) {
      int c = variant_.col(last) + sign * dc, r = variant_.row(last) + sign * dr;
      while (variant_.on_board(c, r) && at(c, r) == winner) {
        line.push_back(variant_.cell(c, r));
        c += sign * dc;
        r += sign * dr;
      }
    }
    const int length = static_cast<int>(line.size());
    if (variant_.exact ? length == variant_.k : length >= variant_.k) {
      std::sort(line.begin(), line.end());
      return line;
    }
  }
  return {};
}

std::string Game::notation() const {
  return format_moves(variant_, moves());
}

std::string Game::diagram() const {
  std::string out;
  const Cell last = last_move();
  const bool wide = variant_.height >= 10;
  for (int r = variant_.height - 1; r >= 0; --r) {
    std::string label = std::to_string(r + 1);
    if (wide && label.size() < 2) label = " " + label;
    out += label + " ";
    for (int c = 0; c < variant_.width; ++c) {
      const auto s = at(c, r);
      const bool is_last = variant_.cell(c, r) == last;
      char stone = !s ? '.' : (*s == Side::first ? 'X' : 'O');
      out += is_last ? '[' : ' ';
      out += stone;
      out += is_last ? ']' : ' ';
    }
    out += '\n';
  }
  out += wide ? "   " : "  ";
  for (int c = 0; c < variant_.width; ++c) {
    const char name = variant_.gravity && variant_.width <= 9 ? char('1' + c) : char('a' + c);
    out += ' ';
    out += name;
    out += ' ';
  }
  out += '\n';
  return out;
}

}  // namespace inarow

#include "inarow/engine/variant.h"

#include <charconv>

#include "inarow/common/json.h"

namespace inarow {

Variant Variant::tictactoe() {
  return {"tictactoe", 3, 3, 3, false};
}
Variant Variant::connect4() {
  return {"connect4", 7, 6, 4, true};
}
Variant Variant::gomoku() {
  return {"gomoku", 15, 15, 5, false};
}
Variant Variant::gomoku_standard() {
  return {"gomoku-standard", 15, 15, 5, false, true};
}

int Variant::words() const {
  const int bits = span();
  if (bits <= 64) return 1;
  if (bits <= 128) return 2;
  if (bits <= 256) return 4;
  return 7;
}

namespace {

Error bad(ErrorCode code, std::size_t offset, std::string message) {
  return Error{code, offset, std::move(message)};
}

}  // namespace

namespace {

constexpr std::string_view kSwap2Suffix = "-swap2";

// Whether swap2 can open a game of `v`: its five stones can neither win nor
// fill the board, and a stone goes on any empty cell.
expected<Variant, Error> with_swap2(Variant v, std::string name, std::size_t offset) {
  if (v.gravity || v.k < 4 || v.cells() < 16)
    return unexpected(Error{ErrorCode::bad_variant, offset,
                            "swap2 needs a board without gravity, k of 4 or more and at least "
                            "16 cells"});
  v.opening = Opening::swap2;
  v.name = std::move(name);
  return v;
}

}  // namespace

expected<Variant, Error> Variant::parse(std::string_view text) {
  if (text.ends_with(kSwap2Suffix) && !text.starts_with("mnk:")) {
    const std::string_view base = text.substr(0, text.size() - kSwap2Suffix.size());
    for (const Variant& named : {tictactoe(), connect4(), gomoku(), gomoku_standard()})
      if (base == named.name) return with_swap2(named, std::string(text), base.size());
  }
  if (text == "tictactoe") return tictactoe();
  if (text == "connect4") return connect4();
  if (text == "gomoku") return gomoku();
  if (text == "gomoku-standard") return gomoku_standard();

  constexpr std::string_view prefix = "mnk:";
  if (text.substr(0, prefix.size()) != prefix)
    return unexpected(bad(ErrorCode::unknown_variant, 0,
                          "unknown variant '" + json::echo(text) +
                              "' (expected tictactoe, connect4, gomoku, gomoku-standard, "
                              "gomoku-swap2, gomoku-standard-swap2 or "
                              "mnk:M,N,K[,gravity][,exact][,swap2])"));

  // mnk:M,N,K[,gravity][,exact]
  int values[3] = {};
  std::size_t pos = prefix.size();
  for (int i = 0; i < 3; ++i) {
    const char* first = text.data() + pos;
    const char* last = text.data() + text.size();
    auto [end, ec] = std::from_chars(first, last, values[i]);
    if (ec != std::errc{})
      return unexpected(
          bad(ErrorCode::bad_variant, pos, "expected a number in '" + json::echo(text) + "'"));
    pos = static_cast<std::size_t>(end - text.data());
    if (i < 2) {
      if (pos >= text.size() || text[pos] != ',')
        return unexpected(bad(ErrorCode::bad_variant, pos, "expected ',' after a number"));
      ++pos;
    }
  }
  // The options, each at most once and in this order, so that one game has
  // one spelling.
  bool gravity = false, exact = false;
  std::string_view rest = text.substr(pos);
  const bool swap2 = rest.ends_with(",swap2");
  if (swap2) rest.remove_suffix(std::string_view(",swap2").size());
  if (rest == ",gravity") {
    gravity = true;
  } else if (rest == ",exact") {
    exact = true;
  } else if (rest == ",gravity,exact") {
    gravity = exact = true;
  } else if (!rest.empty()) {
    return unexpected(
        bad(ErrorCode::bad_variant, pos,
            "unexpected '" + json::echo(rest) +
                "' (only ',gravity', ',exact' or ',gravity,exact', then ',swap2', may follow "
                "M,N,K)"));
  }
  const auto [m, n, k] = values;
  if (m < 1 || m > kMaxSide || n < 1 || n > kMaxSide)
    return unexpected(
        bad(ErrorCode::bad_variant, prefix.size(), "board size must be 1..20 by 1..20"));
  if (k < 2 || (k > m && k > n))
    return unexpected(
        bad(ErrorCode::bad_variant, prefix.size(), "k must be at least 2 and fit on the board"));
  Variant v{std::string(text.substr(0, pos + rest.size())), m, n, k, gravity, exact};
  // Well-known shapes keep their own names, so one game has one spelling.
  for (const Variant& known : {tictactoe(), connect4(), gomoku(), gomoku_standard()})
    if (known.same_board(v)) v = known;
  if (swap2) {
    return with_swap2(v, v.name.starts_with("mnk:") ? v.name + ",swap2" : v.name + "-swap2",
                      pos + rest.size());
  }
  return v;
}

}  // namespace inarow

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

expected<Variant, Error> Variant::parse(std::string_view text) {
  if (text == "tictactoe") return tictactoe();
  if (text == "connect4") return connect4();
  if (text == "gomoku") return gomoku();
  if (text == "gomoku-standard") return gomoku_standard();

  constexpr std::string_view prefix = "mnk:";
  if (text.substr(0, prefix.size()) != prefix)
    return unexpected(bad(ErrorCode::unknown_variant, 0,
                          "unknown variant '" + json::echo(text) +
                              "' (expected tictactoe, connect4, gomoku, gomoku-standard or "
                              "mnk:M,N,K[,gravity][,exact])"));

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
  const std::string_view rest = text.substr(pos);
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
                "' (only ',gravity', ',exact' or ',gravity,exact' may follow M,N,K)"));
  }
  const auto [m, n, k] = values;
  if (m < 1 || m > kMaxSide || n < 1 || n > kMaxSide)
    return unexpected(
        bad(ErrorCode::bad_variant, prefix.size(), "board size must be 1..20 by 1..20"));
  if (k < 2 || (k > m && k > n))
    return unexpected(
        bad(ErrorCode::bad_variant, prefix.size(), "k must be at least 2 and fit on the board"));
  Variant v{std::string(text), m, n, k, gravity, exact};
  // Well-known shapes keep their own names, so one game has one spelling.
  for (const Variant& known : {tictactoe(), connect4(), gomoku(), gomoku_standard()})
    if (known.width == m && known.height == n && known.k == k && known.gravity == gravity &&
        known.exact == exact)
      return known;
  return v;
}

}  // namespace inarow

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

  constexpr std::string_view prefix = "mnk:";
  if (text.substr(0, prefix.size()) != prefix)
    return unexpected(bad(ErrorCode::unknown_variant, 0,
                          "unknown variant '" + json::echo(text) +
                              "' (expected tictactoe, connect4, gomoku or mnk:M,N,K[,gravity])"));

  // mnk:M,N,K[,gravity]
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
  bool gravity = false;
  if (pos < text.size()) {
    if (text.substr(pos) != ",gravity")
      return unexpected(bad(
          ErrorCode::bad_variant, pos,
          "unexpected '" + json::echo(text.substr(pos)) + "' (only ',gravity' may follow M,N,K)"));
    gravity = true;
  }
  const auto [m, n, k] = values;
  if (m < 1 || m > kMaxSide || n < 1 || n > kMaxSide)
    return unexpected(
        bad(ErrorCode::bad_variant, prefix.size(), "board size must be 1..20 by 1..20"));
  if (k < 2 || (k > m && k > n))
    return unexpected(
        bad(ErrorCode::bad_variant, prefix.size(), "k must be at least 2 and fit on the board"));
  Variant v{std::string(text), m, n, k, gravity};
  // Well-known shapes keep their own names, so one game has one spelling.
  for (const Variant& known : {tictactoe(), connect4(), gomoku()})
    if (known.width == m && known.height == n && known.k == k && known.gravity == gravity)
      return known;
  return v;
}

}  // namespace inarow

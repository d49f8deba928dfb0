// Weights text ("w1 = 1" per line, '#' comments): any text either parses to
// weights whose text form parses back to the same weights, or gives an error.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "inarow/engine/evaluator.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  const inarow::Variant v = data[0] % 2 ? inarow::Variant::gomoku() : inarow::Variant::connect4();
  const std::string_view text(reinterpret_cast<const char*>(data + 1), size - 1);
  auto w = inarow::Weights::parse(v, text);
  if (!w) return 0;
  auto again = inarow::Weights::parse(v, w->to_text());
  if (!again || !(*again == *w)) std::abort();
  return 0;
}

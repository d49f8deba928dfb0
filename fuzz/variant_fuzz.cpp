// Variant names ("gomoku", "mnk:M,N,K[,gravity][,exact]"): any text either parses to
// a variant whose canonical name parses back to the same variant, or gives an
// error whose offset lies within the text.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "inarow/engine/variant.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  auto v = inarow::Variant::parse(text);
  if (!v) {
    if (v.error().offset > text.size()) std::abort();
    return 0;
  }
  if (v->width < 1 || v->height < 1 || v->width > inarow::Variant::kMaxSide ||
      v->height > inarow::Variant::kMaxSide || v->k < 1)
    std::abort();
  auto again = inarow::Variant::parse(v->name);
  if (!again || !(*again == *v)) std::abort();
  return 0;
}

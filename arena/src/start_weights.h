// The weights a tuner starts from: the variant's defaults, overridden by the
// counts given.
#pragma once

#include "inarow/engine/evaluator.h"
#include "inarow/engine/variant.h"

namespace inarow::arena {

inline Weights start_weights(const Variant& v, const Weights& given) {
  Weights w = Weights::defaults(v);
  for (std::size_t n = 1; n < given.by_count.size() && n < w.by_count.size(); ++n)
    w.by_count[n] = given.by_count[n];
  return w;
}

}  // namespace inarow::arena

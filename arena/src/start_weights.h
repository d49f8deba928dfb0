// The weights a tuner starts from: the variant's defaults, overridden by
// what is given (window counts, and the threat, shape and pair terms where
// the given weights have them, and the order's terms; the tempo with a whole
// set for this board, such as a file read, not with bare window counts).
#pragma once

#include "inarow/engine/evaluator.h"
#include "inarow/engine/variant.h"

namespace inarow::arena {

inline Weights start_weights(const Variant& v, const Weights& given) {
  Weights w = Weights::defaults(v);
  for (std::size_t n = 1; n < given.by_count.size() && n < w.by_count.size(); ++n)
    w.by_count[n] = given.by_count[n];
  if (given.threats.size() == w.threats.size()) {
    w.threats = given.threats;
    if (!given.by_count.empty()) w.tempo = given.tempo;
  }
  if (given.shapes.size() == w.shapes.size()) {
    w.shapes = given.shapes;
    w.shapes_on = given.shapes_on;
  }
  if (given.pairs.size() == w.pairs.size()) w.pairs = given.pairs;
  if (given.held_pairs.size() == w.held_pairs.size()) w.held_pairs = given.held_pairs;
  if (given.order.size() == w.order.size()) w.order = given.order;
  return w;
}

}  // namespace inarow::arena

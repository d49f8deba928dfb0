// SplitMix64 (Steele, Lea and Flood; Vigna's reference constants): a 64-bit
// mixer that turns consecutive or related seeds into unrelated-looking values.
// The engine draws its Zobrist keys from it and the arena its per-game seeds,
// so its output is part of the bench signature and of every record's replay:
// never change it.
#pragma once

#include <cstdint>

namespace inarow {

// The output for state `x`: the state advanced once, then mixed.
constexpr std::uint64_t splitmix64(std::uint64_t x) {
  x += 0x9E3779B97F4A7C15ULL;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ULL;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBULL;
  return x ^ (x >> 31);
}

// The generator: the next output of the stream whose state is `state`.
constexpr std::uint64_t splitmix64_next(std::uint64_t& state) {
  const std::uint64_t out = splitmix64(state);
  state += 0x9E3779B97F4A7C15ULL;
  return out;
}

}  // namespace inarow

// A map that remembers what was recently set or found in it, in bounded
// memory: a cache whose misses cost only a slower lookup elsewhere.
//
// Two generations: entries go into the young one; when it holds `capacity`
// entries it becomes the old one and the old one is dropped. A hit in the
// old generation moves the entry back into the young one. So an entry used
// at least once every `capacity` insertions stays, and the map never holds
// more than 2 x capacity entries. Not thread-safe: its owner locks.
#pragma once

#include <cstddef>
#include <optional>
#include <unordered_map>
#include <utility>

namespace inarow::server {

template <class Key, class Value>
class RecentMap {
 public:
  explicit RecentMap(std::size_t capacity) : capacity_(capacity < 1 ? 1 : capacity) {}

  // The value, if the map still remembers the key; a hit counts as a use.
  std::optional<Value> find(const Key& key) {
    if (auto it = young_.find(key); it != young_.end()) return it->second;
    auto it = old_.find(key);
    if (it == old_.end()) return std::nullopt;
    Value value = std::move(it->second);
    old_.erase(it);
    set(key, value);
    return value;
  }

  void set(const Key& key, Value value) {
    old_.erase(key);  // one generation holds a key, so size() counts it once
    if (auto it = young_.find(key); it != young_.end()) {
      it->second = std::move(value);
      return;
    }
    if (young_.size() >= capacity_) {
      old_ = std::move(young_);
      young_.clear();
    }
    young_.emplace(key, std::move(value));
  }

  // Forgets every entry whose value matches.
  template <class Pred>
  void erase_values_if(Pred pred) {
    std::erase_if(young_, [&](const auto& kv) { return pred(kv.second); });
    std::erase_if(old_, [&](const auto& kv) { return pred(kv.second); });
  }

  std::size_t size() const { return young_.size() + old_.size(); }
  std::size_t capacity() const { return capacity_; }

 private:
  std::size_t capacity_;
  std::unordered_map<Key, Value> young_;
  std::unordered_map<Key, Value> old_;
};

}  // namespace inarow::server

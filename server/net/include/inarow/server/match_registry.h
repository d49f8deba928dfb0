// The live matches by id (and, for a grace period, the ones just ended, so
// a returning player still hears the end). Used on the router's strand only.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>

#include "inarow/server/match_actor.h"

namespace inarow::server {

class MatchRegistry {
 public:
  // Ordered by id: ids begin with their creation time, so the list pages
  // through the matches oldest first with the last id seen as the cursor.
  using Map = std::map<std::string, std::shared_ptr<MatchActor>>;

  void add(std::shared_ptr<MatchActor> match) { matches_[match->id()] = std::move(match); }
  std::shared_ptr<MatchActor> find(const std::string& id) const {
    auto it = matches_.find(id);
    return it == matches_.end() ? nullptr : it->second;
  }
  // Forget a match: routes to it are no longer taken.
  void retire(const std::string& id) {
    auto it = matches_.find(id);
    if (it == matches_.end()) return;
    it->second->retired.store(true, std::memory_order_release);
    matches_.erase(it);
  }
  void clear() { matches_.clear(); }
  // The games being played: the registered ones that have not ended.
  std::uint32_t in_play() const {
    std::uint32_t n = 0;
    for (const auto& [id, match] : matches_) {
      if (!match->over.load(std::memory_order_relaxed)) ++n;
    }
    return n;
  }
  const Map& all() const { return matches_; }

 private:
  Map matches_;
};

}  // namespace inarow::server

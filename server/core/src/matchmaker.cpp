#include "inarow/server/matchmaker.h"

#include <algorithm>
#include <cmath>

namespace inarow::server {

bool Matchmaker::add(Seeker s) {
  if (seeking(s.player_id)) return false;
  queue_.push_back(std::move(s));
  return true;
}

bool Matchmaker::remove(const std::string& player_id) {
  auto it = std::find_if(queue_.begin(), queue_.end(),
                         [&](const Seeker& s) { return s.player_id == player_id; });
  if (it == queue_.end()) return false;
  queue_.erase(it);
  return true;
}

bool Matchmaker::seeking(const std::string& player_id) const {
  return std::any_of(queue_.begin(), queue_.end(),
                     [&](const Seeker& s) { return s.player_id == player_id; });
}

const Seeker* Matchmaker::find(const std::string& seek_id) const {
  auto it = std::find_if(queue_.begin(), queue_.end(),
                         [&](const Seeker& s) { return s.seek_id == seek_id; });
  return it == queue_.end() ? nullptr : &*it;
}

std::optional<Seeker> Matchmaker::take(const std::string& seek_id) {
  auto it = std::find_if(queue_.begin(), queue_.end(),
                         [&](const Seeker& s) { return s.seek_id == seek_id; });
  if (it == queue_.end()) return std::nullopt;
  Seeker s = std::move(*it);
  queue_.erase(it);
  return s;
}

double Matchmaker::window(const Seeker& s, TimePoint now) const {
  return policy_.window(std::chrono::duration<double>(now - s.since).count());
}

std::vector<std::pair<Seeker, Seeker>> Matchmaker::pair(
    TimePoint now, const std::function<bool(const Seeker&)>& can_play) {
  std::vector<std::pair<Seeker, Seeker>> pairs;
  std::vector<bool> taken(queue_.size(), false);
  std::vector<bool> held(queue_.size(), false);
  if (can_play) {
    for (std::size_t i = 0; i < queue_.size(); ++i)
      held[i] = !can_play(queue_[i]);
  }
  for (std::size_t i = 0; i < queue_.size(); ++i) {
    if (taken[i] || held[i]) continue;
    std::optional<std::size_t> best;
    double best_gap = 0.0;
    for (std::size_t j = i + 1; j < queue_.size(); ++j) {
      if (taken[j] || held[j] || !queue_[j].same_terms(queue_[i])) continue;
      const double gap = std::fabs(queue_[i].rating - queue_[j].rating);
      // Both players must accept the gap.
      if (gap > window(queue_[i], now) || gap > window(queue_[j], now)) continue;
      if (!best || gap < best_gap) {
        best = j;
        best_gap = gap;
      }
    }
    if (best) {
      taken[i] = taken[*best] = true;
      pairs.emplace_back(queue_[i], queue_[*best]);
    }
  }
  std::vector<Seeker> rest;
  for (std::size_t i = 0; i < queue_.size(); ++i) {
    if (!taken[i]) rest.push_back(std::move(queue_[i]));
  }
  queue_ = std::move(rest);
  return pairs;
}

}  // namespace inarow::server

#include "inarow/server/recovery.h"

#include <spdlog/spdlog.h>

namespace inarow::server {

namespace v1 = ::inarow::v1;

namespace {

// The match's setup from its record and its first (started) event.
std::optional<MatchSetup> setup_of(const MatchRecord& rec) {
  auto variant = Variant::parse(rec.variant);
  v1::MatchEvent first;
  if (!variant || rec.events.empty() || !first.ParseFromString(rec.events.front()) ||
      !first.has_started()) {
    return std::nullopt;
  }
  const v1::MatchState& st = first.started().state();
  MatchSetup setup;
  setup.id = rec.id;
  setup.variant = *variant;
  setup.kind = static_cast<v1::MatchKind>(rec.kind);
  setup.rated = rec.rated;
  setup.initial = Millis{rec.initial_ms};
  setup.increment = Millis{rec.increment_ms};
  const std::array<const v1::PlayerInfo*, 2> infos = {&st.first(), &st.second()};
  const std::array<std::string, 2> levels = {rec.first_level, rec.second_level};
  for (int s = 0; s < 2; ++s) {
    Seat& seat = setup.seats[s];
    seat.player_id = infos[s]->id();
    seat.name = infos[s]->name();
    seat.bot = infos[s]->bot();
    seat.level = levels[s];
    seat.rating = Rating{infos[s]->rating().rating(), infos[s]->rating().deviation(),
                         infos[s]->rating().volatility()};
  }
  return setup;
}

}  // namespace

int restore_from_store(Store& store, Identity& identity, MatchRegistry& matches,
                       const std::shared_ptr<MatchServices>& services) {
  for (PlayerRecord& p : store.load_players()) {
    for (auto& [variant, r] : p.ratings)
      services->ratings.set(p.id, variant, r);
    identity.restore(p);
  }
  int restored = 0;
  for (const MatchRecord& rec : store.load_unfinished()) {
    auto setup = setup_of(rec);
    if (!setup) {
      spdlog::warn("restore_skipped match={} reason=\"no start event\"", rec.id);
      continue;
    }
    auto actor = std::make_shared<MatchActor>(services, std::move(*setup));
    if (!actor->restore(rec)) {
      spdlog::warn("restore_skipped match={} reason=\"inconsistent event log\"", rec.id);
      continue;
    }
    matches.add(actor);
    services->metrics.matches_live[rec.kind % kMatchKinds].fetch_add(1);
    for (int s = 0; s < 2; ++s) {
      if (Player* p = identity.find(actor->setup().seats[s].player_id)) p->matches.insert(rec.id);
    }
    actor->resume();
    ++restored;
  }
  spdlog::info("store_restored players={} matches={}", identity.players(), restored);
  return restored;
}

}  // namespace inarow::server

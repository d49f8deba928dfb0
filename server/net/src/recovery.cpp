#include "inarow/server/recovery.h"

#include <spdlog/spdlog.h>

#include <algorithm>

#include "ids.h"
#include "inarow/bots/bot.h"

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

Millis used_before_stop(const MatchRecord& record, std::int64_t alive_ms) {
  if (record.events.empty() || record.event_ms.size() != record.events.size()) return Millis{0};
  const std::int64_t from = record.event_ms.back();
  if (from <= 0 || alive_ms <= from) return Millis{0};
  v1::MatchEvent last;
  if (!last.ParseFromString(record.events.back()) ||
      last.clocks().running() == v1::SIDE_UNSPECIFIED || last.has_ended()) {
    return Millis{0};
  }
  return Millis{alive_ms - from};
}

std::int64_t last_known_alive(Store& store, const std::vector<MatchRecord>& live) {
  std::int64_t alive = store.last_alive_ms();
  for (const MatchRecord& rec : live) {
    for (std::int64_t t : rec.event_ms)
      alive = std::max(alive, t);
  }
  return alive;
}

std::shared_ptr<MatchActor> restore_match(const MatchRecord& rec, std::int64_t generation,
                                          Millis used, Identity& identity, MatchRegistry& matches,
                                          const std::shared_ptr<MatchServices>& services,
                                          Store& store) {
  auto setup = setup_of(rec);
  if (!setup) {
    spdlog::warn("restore_skipped match={} reason=\"no start event\"", rec.id);
    return nullptr;
  }
  setup->generation = generation;
  auto actor = std::make_shared<MatchActor>(services, std::move(*setup));
  if (!actor->restore(rec)) {
    spdlog::warn("restore_skipped match={} reason=\"inconsistent event log\"", rec.id);
    return nullptr;
  }
  matches.add(actor);
  services->metrics.matches_live[rec.kind % kMatchKinds].fetch_add(1);
  for (int s = 0; s < 2; ++s) {
    const std::string& id = actor->setup().seats[s].player_id;
    Player* p = identity.find(id);
    if (!p) {
      if (auto stored = store.find_player(id)) p = &identity.admit(*stored);
    }
    if (p) p->matches.insert(rec.id);
  }
  if (used.count() > 0) spdlog::debug("restore_clock match={} charged_ms={}", rec.id, used.count());
  actor->resume(used);
  return actor;
}

int restore_from_store(Store& store, Identity& identity, MatchRegistry& matches,
                       const std::shared_ptr<MatchServices>& services, bool with_matches) {
  // Bots are always held (with their ratings); people only while they are
  // seated in a live match, until it ends, or while they are connected.
  for (const bots::Level& level : bots::levels()) {
    if (auto bot = store.find_player(bot_id(level.name))) identity.admit(*bot);
  }
  if (!with_matches) return 0;
  int restored = 0;
  const std::vector<MatchRecord> live = store.load_unfinished();
  const std::int64_t alive_ms = last_known_alive(store, live);
  const std::int64_t now_ms = unix_ms();
  std::vector<StoreOp> clock_from;
  for (const MatchRecord& rec : live) {
    // The clocks go on from the last event's, less what the player to move
    // had used of the turn; from now on they hold as of now less that, so a
    // second crash charges neither this downtime nor this charge again.
    const Millis used = used_before_stop(rec, alive_ms);
    if (!restore_match(rec, 0, used, identity, matches, services, store)) continue;
    if (!rec.event_ms.empty() && rec.event_ms.back() > 0) {
      clock_from.push_back(store_op::ClockFrom{rec.id, rec.events.size(), now_ms - used.count()});
    }
    ++restored;
  }
  if (!clock_from.empty()) services->writer.submit(std::move(clock_from));
  spdlog::info("store_restored players={} matches={} down_ms={}", identity.players(), restored,
               alive_ms > 0 ? now_ms - alive_ms : 0);
  return restored;
}

}  // namespace inarow::server

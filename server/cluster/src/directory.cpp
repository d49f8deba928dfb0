// The directory's scripts and the decoding of their replies. Numbers go to
// Lua as the shortest text that reads back as the same double (Lua's
// tonumber is strtod), and come back as the very strings stored, never
// through Lua's tostring (14 digits) nor as Lua numbers (Redis truncates
// those to integers).
#include "inarow/server/directory.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <tuple>

namespace inarow::server {
namespace {

std::string number(double v) {
  char text[32];
  const auto end = std::to_chars(text, text + sizeof text, v).ptr;
  return std::string(text, end);
}

std::string millis(std::chrono::milliseconds ms) {
  return std::to_string(ms.count());
}

inarow::expected<void, std::string> check_ttl(std::chrono::milliseconds ttl) {
  // PEXPIRE with 0 or less deletes the key: never what a caller means.
  if (ttl.count() <= 0) return inarow::unexpected(std::string("a TTL must be positive"));
  return {};
}

std::string unexpected_reply(std::string_view what) {
  return "unexpected Redis reply to " + std::string(what);
}

// ---- Nodes ----

// KEYS: node key, nodes set. ARGV: node id, address, ttl.
const Script kRegister(R"lua(
redis.call('SET', KEYS[1], ARGV[2], 'PX', ARGV[3])
redis.call('SADD', KEYS[2], ARGV[1])
return 1
)lua");

// KEYS: nodes set. ARGV: prefix. Each live node's id and address; the
// expired ones are dropped from the set as they are found.
const Script kNodes(R"lua(
local out = {}
for _, id in ipairs(redis.call('SMEMBERS', KEYS[1])) do
  local address = redis.call('GET', ARGV[1] .. 'node:' .. id)
  if address then
    out[#out + 1] = id
    out[#out + 1] = address
  else
    redis.call('SREM', KEYS[1], id)
  end
end
return out
)lua");

// KEYS: node key, nodes set. ARGV: node id.
const Script kDeregister(R"lua(
local live = redis.call('DEL', KEYS[1])
redis.call('SREM', KEYS[2], ARGV[1])
return live
)lua");

// ---- Leases ----
// Each live match is in the sorted set P"live", scored by when its lease
// runs out in ms by Redis's own clock (TIME: every node's scripts read the
// one clock the lease's PEXPIRE runs on; Redis 7 replicates a script's
// effects, so a script may read it and write). Scores go out as integers
// ('%.0f': exact below 2^53), never as Lua's 14-digit tostring.
const char* const kLiveLua = R"lua(
local function now_ms()
  local t = redis.call('TIME')
  return tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
end
local function expiry(ttl)
  return string.format('%.0f', now_ms() + tonumber(ttl))
end
)lua";

Script live_script(const char* body) {
  return Script(std::string(kLiveLua) + body);
}

// KEYS: lease, generation, live. ARGV: node, ttl, match. {node,
// generation, ours}.
const Script kClaim = live_script(R"lua(
local held = redis.call('HMGET', KEYS[1], 'node', 'gen')
if held[1] then
  if held[1] == ARGV[1] then
    redis.call('PEXPIRE', KEYS[1], ARGV[2])
    redis.call('ZADD', KEYS[3], expiry(ARGV[2]), ARGV[3])
    return {held[1], held[2], 1}
  end
  return {held[1], held[2], 0}
end
local gen = redis.call('INCR', KEYS[2])
redis.call('HSET', KEYS[1], 'node', ARGV[1], 'gen', gen)
redis.call('PEXPIRE', KEYS[1], ARGV[2])
redis.call('ZADD', KEYS[3], expiry(ARGV[2]), ARGV[3])
return {ARGV[1], tostring(gen), 1}
)lua");

// KEYS: lease, live. ARGV: node, generation, ttl, match.
const Script kRenew = live_script(R"lua(
local held = redis.call('HMGET', KEYS[1], 'node', 'gen')
if held[1] == ARGV[1] and held[2] == ARGV[2] then
  redis.call('PEXPIRE', KEYS[1], ARGV[3])
  redis.call('ZADD', KEYS[2], expiry(ARGV[3]), ARGV[4])
  return 1
end
return 0
)lua");

// KEYS: live, then n leases. ARGV: node, ttl, then the n matches, then
// their n generations. A 0 or 1 for each.
const Script kRenewMany = live_script(R"lua(
local n = #KEYS - 1
local until_ms = expiry(ARGV[2])
local out = {}
for i = 1, n do
  local held = redis.call('HMGET', KEYS[1 + i], 'node', 'gen')
  if held[1] == ARGV[1] and held[2] == ARGV[2 + n + i] then
    redis.call('PEXPIRE', KEYS[1 + i], ARGV[2])
    redis.call('ZADD', KEYS[1], until_ms, ARGV[2 + i])
    out[i] = 1
  else
    out[i] = 0
  end
end
return out
)lua");

// KEYS: lease, live. ARGV: node, generation, match. Released, the match
// is scored 0: live and nobody's, an orphan at once.
const Script kRelease(R"lua(
local held = redis.call('HMGET', KEYS[1], 'node', 'gen')
if held[1] == ARGV[1] and held[2] == ARGV[2] then
  redis.call('DEL', KEYS[1])
  redis.call('ZADD', KEYS[2], 0, ARGV[3])
  return 1
end
return 0
)lua");

// KEYS: lease, generation, live. ARGV: match.
const Script kForget(R"lua(
redis.call('DEL', KEYS[1], KEYS[2])
redis.call('ZREM', KEYS[3], ARGV[1])
return 1
)lua");

// KEYS: live. ARGV: prefix, limit. Up to `limit` ids scored before now
// (oldest first) that have no lease: one whose key still lives (its
// PEXPIRE and its score a millisecond apart) is nobody's orphan.
const Script kOrphans = live_script(R"lua(
local limit = tonumber(ARGV[2])
local before = '(' .. string.format('%.0f', now_ms())
local out = {}
local offset = 0
while #out < limit do
  local ids = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', before, 'LIMIT', offset, limit)
  if #ids == 0 then break end
  for _, id in ipairs(ids) do
    if #out < limit and redis.call('EXISTS', ARGV[1] .. 'lease:' .. id) == 0 then
      out[#out + 1] = id
    end
  end
  offset = offset + #ids
end
return out
)lua");

// ---- Locations ----

// KEYS: location. ARGV: node.
const Script kClearLocation(R"lua(
if redis.call('GET', KEYS[1]) == ARGV[1] then
  redis.call('DEL', KEYS[1])
  return 1
end
return 0
)lua");

// ---- Seeks ----
// A seek's hash holds these fields, returned in this order (7 strings).
// `seq` orders seeks added at the same since_ms.
const char* const kSeekLua = R"lua(
local FIELDS = {'id', 'player', 'node', 'terms', 'rating', 'since', 'seq'}
local function read_seek(p, id)
  return redis.call('HMGET', p .. 'seek:' .. id, unpack(FIELDS))
end
-- Removes a seek (its fields as read_seek gives them) from every index.
local function drop_seek(p, s)
  redis.call('ZREM', p .. 'pool:' .. s[4], s[1])
  redis.call('ZREM', p .. 'pool', s[1])
  redis.call('DEL', p .. 'seek:' .. s[1])
  if redis.call('GET', p .. 'seeker:' .. s[2]) == s[1] then
    redis.call('DEL', p .. 'seeker:' .. s[2])
  end
end
)lua";

Script seek_script(const char* body) {
  return Script(std::string(kSeekLua) + body);
}

// KEYS: seek hash, pool of the terms, seeker, pool, seq. ARGV: id, player,
// node, terms, rating, since.
const Script kAddSeek(R"lua(
if redis.call('EXISTS', KEYS[3]) == 1 then return 0 end
if redis.call('EXISTS', KEYS[1]) == 1 then
  return redis.error_reply('ERR seek id ' .. ARGV[1] .. ' is in the pool already')
end
local seq = redis.call('INCR', KEYS[5])
redis.call('HSET', KEYS[1], 'id', ARGV[1], 'player', ARGV[2], 'node', ARGV[3],
           'terms', ARGV[4], 'rating', ARGV[5], 'since', ARGV[6], 'seq', seq)
redis.call('ZADD', KEYS[2], ARGV[5], ARGV[1])
redis.call('SET', KEYS[3], ARGV[1])
redis.call('ZADD', KEYS[4], seq, ARGV[1])
return 1
)lua");

// KEYS: seeker. ARGV: prefix.
const Script kRemoveSeek = seek_script(R"lua(
local id = redis.call('GET', KEYS[1])
if not id then return 0 end
local s = read_seek(ARGV[1], id)
if not s[1] then
  redis.call('DEL', KEYS[1])
  return 0
end
drop_seek(ARGV[1], s)
return 1
)lua");

// ARGV: prefix, seek id.
const Script kTakeSeek = seek_script(R"lua(
local s = read_seek(ARGV[1], ARGV[2])
if not s[1] then return false end
drop_seek(ARGV[1], s)
return s
)lua");

// KEYS: a pool (of some terms, or all). ARGV: prefix. 7 strings a seek.
const Script kSeeks = seek_script(R"lua(
local out = {}
for _, id in ipairs(redis.call('ZRANGE', KEYS[1], 0, -1)) do
  local s = read_seek(ARGV[1], id)
  if s[1] then
    for i = 1, 7 do out[#out + 1] = s[i] end
  end
end
return out
)lua");

// ARGV: prefix, seek id, now_ms, initial, widening, max. Both seeks' 7
// strings, the longer-waiting first, or nil.
//
// The window is the Matchmaker's (matchmaker.cpp) in the same doubles; a
// candidate fits when the gap exceeds neither window. The rating range
// read from the sorted set is only a first cut, a little wider than the
// window (its bounds go through text): the exact test is on the doubles.
//
// Who is chosen is the Matchmaker's rule too. It walks its queue oldest
// first and gives each seeker the closest rating that fits; in a pool where
// no two seeks fit (what every earlier pair() left), that means: if a seek
// that waited longer than this one fits it, the longest-waiting such seek
// gets this one (the longest wait is served first); if none did, this seek
// takes the closest rating among the younger ones that fit (ties to the
// longer waiting).
const Script kPair = seek_script(R"lua(
local p = ARGV[1]
local me = read_seek(p, ARGV[2])
if not me[1] then return false end
local now = tonumber(ARGV[3])
local initial, widening, max_window = tonumber(ARGV[4]), tonumber(ARGV[5]), tonumber(ARGV[6])
local function window(since)
  local waited = (now - since) / 1000
  if waited < 0 then waited = 0 end
  return math.min(max_window, initial + widening * waited)
end
local rating, since, seq = tonumber(me[5]), tonumber(me[6]), tonumber(me[7])
local mine = window(since)
local margin = 1 + 1e-9 * (math.abs(rating) + mine)
local range = redis.call('ZRANGEBYSCORE', p .. 'pool:' .. me[4],
                         string.format('%.17g', rating - mine - margin),
                         string.format('%.17g', rating + mine + margin))
local function earlier(a_since, a_seq, b_since, b_seq)
  return a_since < b_since or (a_since == b_since and a_seq < b_seq)
end
local oldest, oldest_since, oldest_seq        -- the longest waiting of those older than me
local best, best_gap, best_since, best_seq    -- the closest of the younger
for _, id in ipairs(range) do
  if id ~= me[1] then
    local c = redis.call('HMGET', p .. 'seek:' .. id, 'rating', 'since', 'seq')
    if c[1] then
      local c_since, c_seq = tonumber(c[2]), tonumber(c[3])
      local gap = math.abs(rating - tonumber(c[1]))
      if not (gap > mine or gap > window(c_since)) then
        if earlier(c_since, c_seq, since, seq) then
          if not oldest or earlier(c_since, c_seq, oldest_since, oldest_seq) then
            oldest, oldest_since, oldest_seq = id, c_since, c_seq
          end
        elseif not best or gap < best_gap or
            (gap == best_gap and earlier(c_since, c_seq, best_since, best_seq)) then
          best, best_gap, best_since, best_seq = id, gap, c_since, c_seq
        end
      end
    end
  end
end
if oldest then best, best_since, best_seq = oldest, oldest_since, oldest_seq end
if not best then return false end
local other = read_seek(p, best)
drop_seek(p, me)
drop_seek(p, other)
local first, second = me, other
if best_since < since or (best_since == since and best_seq < seq) then
  first, second = other, me
end
local out = {}
for i = 1, 7 do out[i] = first[i] end
for i = 1, 7 do out[7 + i] = second[i] end
return out
)lua");

bool parse_int(const std::string& s, std::int64_t& out) {
  const auto r = std::from_chars(s.data(), s.data() + s.size(), out);
  return r.ec == std::errc() && r.ptr == s.data() + s.size();
}

// A seek from 7 strings of `a` from `at` (and its seq, for ordering).
std::optional<std::pair<SharedSeek, std::int64_t>> decode_seek(const std::vector<RedisReply>& a,
                                                               std::size_t at) {
  if (a.size() < at + 7) return std::nullopt;
  for (std::size_t i = at; i < at + 7; ++i) {
    if (!a[i].is_string()) return std::nullopt;
  }
  SharedSeek s;
  s.seek_id = a[at].string;
  s.player_id = a[at + 1].string;
  s.node_id = a[at + 2].string;
  s.terms = a[at + 3].string;
  const std::string& rating = a[at + 4].string;
  const auto r = std::from_chars(rating.data(), rating.data() + rating.size(), s.rating);
  std::int64_t seq = 0;
  if (r.ec != std::errc() || !parse_int(a[at + 5].string, s.since_ms) ||
      !parse_int(a[at + 6].string, seq)) {
    return std::nullopt;
  }
  return std::pair{std::move(s), seq};
}

inarow::expected<bool, std::string> as_bool(inarow::expected<RedisReply, std::string> r,
                                            std::string_view what) {
  if (!r) return inarow::unexpected(std::move(r).error());
  if (!r->is_integer()) return inarow::unexpected(unexpected_reply(what));
  return r->integer != 0;
}

// Any answer will do (an error is an error).
inarow::expected<void, std::string> as_void(inarow::expected<RedisReply, std::string> r) {
  if (!r) return inarow::unexpected(std::move(r).error());
  return {};
}

// A lease from its node and generation as Redis holds them (strings).
std::optional<Lease> decode_lease(const RedisReply& node, const RedisReply& generation) {
  Lease lease;
  if (!node.is_string() || !generation.is_string() ||
      !parse_int(generation.string, lease.generation)) {
    return std::nullopt;
  }
  lease.node_id = node.string;
  return lease;
}

inarow::expected<std::optional<std::string>, std::string> as_optional_string(
    inarow::expected<RedisReply, std::string> r, std::string_view what) {
  if (!r) return inarow::unexpected(std::move(r).error());
  if (r->is_nil()) return std::optional<std::string>();
  if (!r->is_string()) return inarow::unexpected(unexpected_reply(what));
  return std::optional<std::string>(std::move(r->string));
}

}  // namespace

double pairing_window(const SharedSeek& seek, const MatchmakerPolicy& policy, std::int64_t now_ms) {
  return policy.window(static_cast<double>(now_ms - seek.since_ms) / 1000);
}

Directory::Directory(Redis& redis) : redis_(redis), prefix_(redis.options().prefix) {}

std::string Directory::key(std::string_view kind, std::string_view id) const {
  std::string k = prefix_;
  k += kind;
  k += id;
  return k;
}

// ---- Nodes ----

inarow::expected<void, std::string> Directory::register_node(const std::string& node_id,
                                                             const std::string& address,
                                                             std::chrono::milliseconds ttl) {
  if (auto ok = check_ttl(ttl); !ok) return ok;
  return as_void(redis_.script(kRegister, {key("node:", node_id), key("nodes", "")},
                               {node_id, address, millis(ttl)}));
}

inarow::expected<bool, std::string> Directory::heartbeat(const std::string& node_id,
                                                         std::chrono::milliseconds ttl) {
  if (auto ok = check_ttl(ttl); !ok) return inarow::unexpected(ok.error());
  // One command: PEXPIRE answers 0 for a key that has expired.
  return as_bool(redis_.command({"PEXPIRE", key("node:", node_id), millis(ttl)}), "PEXPIRE");
}

inarow::expected<std::vector<NodeInfo>, std::string> Directory::nodes() {
  auto r = redis_.script(kNodes, {key("nodes", "")}, {prefix_});
  if (!r) return inarow::unexpected(std::move(r).error());
  if (!r->is_array() || r->array.size() % 2 != 0) {
    return inarow::unexpected(unexpected_reply("the nodes script"));
  }
  std::vector<NodeInfo> out;
  for (std::size_t i = 0; i < r->array.size(); i += 2)
    out.push_back({r->array[i].string, r->array[i + 1].string});
  std::sort(out.begin(), out.end(),
            [](const NodeInfo& a, const NodeInfo& b) { return a.node_id < b.node_id; });
  return out;
}

inarow::expected<bool, std::string> Directory::deregister(const std::string& node_id) {
  return as_bool(redis_.script(kDeregister, {key("node:", node_id), key("nodes", "")}, {node_id}),
                 "the deregister script");
}

// ---- Leases ----

inarow::expected<Lease, std::string> Directory::claim(const std::string& match_id,
                                                      const std::string& node_id,
                                                      std::chrono::milliseconds ttl) {
  if (auto ok = check_ttl(ttl); !ok) return inarow::unexpected(ok.error());
  auto r = redis_.script(kClaim,
                         {key("lease:", match_id), key("generation:", match_id), key("live", "")},
                         {node_id, millis(ttl), match_id});
  if (!r) return inarow::unexpected(std::move(r).error());
  auto lease = r->is_array() && r->array.size() == 3 && r->array[2].is_integer()
                   ? decode_lease(r->array[0], r->array[1])
                   : std::nullopt;
  if (!lease) return inarow::unexpected(unexpected_reply("the claim script"));
  lease->ours = r->array[2].integer != 0;
  return *lease;
}

inarow::expected<bool, std::string> Directory::renew(const std::string& match_id,
                                                     const std::string& node_id,
                                                     std::int64_t generation,
                                                     std::chrono::milliseconds ttl) {
  if (auto ok = check_ttl(ttl); !ok) return inarow::unexpected(ok.error());
  return as_bool(redis_.script(kRenew, {key("lease:", match_id), key("live", "")},
                               {node_id, std::to_string(generation), millis(ttl), match_id}),
                 "the renew script");
}

inarow::expected<std::vector<bool>, std::string> Directory::renew_many(
    const std::string& node_id,
    const std::vector<std::pair<std::string, std::int64_t>>& match_and_generation,
    std::chrono::milliseconds ttl) {
  if (auto ok = check_ttl(ttl); !ok) return inarow::unexpected(ok.error());
  if (match_and_generation.empty()) return std::vector<bool>{};
  std::vector<std::string> keys{key("live", "")};
  std::vector<std::string> args{node_id, millis(ttl)};
  keys.reserve(1 + match_and_generation.size());
  args.reserve(2 + 2 * match_and_generation.size());
  for (const auto& [match_id, generation] : match_and_generation) {
    keys.push_back(key("lease:", match_id));
    args.push_back(match_id);
  }
  for (const auto& [match_id, generation] : match_and_generation)
    args.push_back(std::to_string(generation));
  auto r = redis_.script(kRenewMany, keys, args);
  if (!r) return inarow::unexpected(std::move(r).error());
  if (!r->is_array() || r->array.size() != match_and_generation.size()) {
    return inarow::unexpected(unexpected_reply("the renew_many script"));
  }
  std::vector<bool> out;
  out.reserve(r->array.size());
  for (const RedisReply& renewed : r->array) {
    if (!renewed.is_integer()) return inarow::unexpected(unexpected_reply("the renew_many script"));
    out.push_back(renewed.integer != 0);
  }
  return out;
}

inarow::expected<bool, std::string> Directory::release(const std::string& match_id,
                                                       const std::string& node_id,
                                                       std::int64_t generation) {
  return as_bool(redis_.script(kRelease, {key("lease:", match_id), key("live", "")},
                               {node_id, std::to_string(generation), match_id}),
                 "the release script");
}

inarow::expected<std::optional<Lease>, std::string> Directory::owner(const std::string& match_id,
                                                                     std::string_view me) {
  auto r = redis_.command({"HMGET", key("lease:", match_id), "node", "gen"});
  if (!r) return inarow::unexpected(std::move(r).error());
  if (!r->is_array() || r->array.size() != 2) return inarow::unexpected(unexpected_reply("HMGET"));
  if (r->array[0].is_nil()) return std::optional<Lease>();
  auto lease = decode_lease(r->array[0], r->array[1]);
  if (!lease) return inarow::unexpected(unexpected_reply("HMGET"));
  lease->ours = !me.empty() && lease->node_id == me;
  return lease;
}

inarow::expected<void, std::string> Directory::forget_match(const std::string& match_id) {
  return as_void(redis_.script(
      kForget, {key("lease:", match_id), key("generation:", match_id), key("live", "")},
      {match_id}));
}

inarow::expected<bool, std::string> Directory::live(const std::string& match_id) {
  auto r = redis_.command({"ZSCORE", key("live", ""), match_id});
  if (!r) return inarow::unexpected(std::move(r).error());
  if (!r->is_nil() && !r->is_string()) return inarow::unexpected(unexpected_reply("ZSCORE"));
  return !r->is_nil();
}

inarow::expected<std::vector<std::string>, std::string> Directory::orphans(std::size_t limit) {
  if (limit == 0) return std::vector<std::string>{};
  auto r = redis_.script(kOrphans, {key("live", "")}, {prefix_, std::to_string(limit)});
  if (!r) return inarow::unexpected(std::move(r).error());
  if (!r->is_array() || r->array.size() > limit) {
    return inarow::unexpected(unexpected_reply("the orphans script"));
  }
  std::vector<std::string> out;
  out.reserve(r->array.size());
  for (RedisReply& id : r->array) {
    if (!id.is_string()) return inarow::unexpected(unexpected_reply("the orphans script"));
    out.push_back(std::move(id.string));
  }
  return out;
}

// ---- Locations ----

inarow::expected<void, std::string> Directory::set_location(const std::string& player_id,
                                                            const std::string& node_id,
                                                            std::chrono::milliseconds ttl) {
  if (auto ok = check_ttl(ttl); !ok) return ok;
  return as_void(redis_.command({"SET", key("location:", player_id), node_id, "PX", millis(ttl)}));
}

inarow::expected<std::optional<std::string>, std::string> Directory::location(
    const std::string& player_id) {
  return as_optional_string(redis_.command({"GET", key("location:", player_id)}), "GET");
}

inarow::expected<bool, std::string> Directory::clear_location(const std::string& player_id,
                                                              const std::string& node_id) {
  return as_bool(redis_.script(kClearLocation, {key("location:", player_id)}, {node_id}),
                 "the clear_location script");
}

// ---- Private codes ----

inarow::expected<bool, std::string> Directory::put_private(const std::string& code,
                                                           const std::string& bytes,
                                                           std::chrono::milliseconds ttl) {
  if (auto ok = check_ttl(ttl); !ok) return inarow::unexpected(ok.error());
  auto r = redis_.command({"SET", key("private:", code), bytes, "NX", "PX", millis(ttl)});
  if (!r) return inarow::unexpected(std::move(r).error());
  if (r->is_nil()) return false;  // NX: someone's already
  if (!r->is_string()) return inarow::unexpected(unexpected_reply("SET NX"));
  return true;
}

inarow::expected<std::optional<std::string>, std::string> Directory::take_private(
    const std::string& code) {
  return as_optional_string(redis_.command({"GETDEL", key("private:", code)}), "GETDEL");
}

inarow::expected<std::optional<std::string>, std::string> Directory::peek_private(
    const std::string& code) {
  return as_optional_string(redis_.command({"GET", key("private:", code)}), "GET");
}

inarow::expected<bool, std::string> Directory::drop_private(const std::string& code) {
  return as_bool(redis_.command({"DEL", key("private:", code)}), "DEL");
}

// ---- Seeks ----

inarow::expected<bool, std::string> Directory::add_seek(const SharedSeek& seek) {
  // ZADD refuses a NaN; an infinite rating would fit every window.
  if (!std::isfinite(seek.rating)) {
    return inarow::unexpected(std::string("a seek's rating must be a finite number"));
  }
  return as_bool(
      redis_.script(kAddSeek,
                    {key("seek:", seek.seek_id), key("pool:", seek.terms),
                     key("seeker:", seek.player_id), key("pool", ""), key("seek-seq", "")},
                    {seek.seek_id, seek.player_id, seek.node_id, seek.terms, number(seek.rating),
                     std::to_string(seek.since_ms)}),
      "the add_seek script");
}

inarow::expected<bool, std::string> Directory::remove_seek(const std::string& player_id) {
  return as_bool(redis_.script(kRemoveSeek, {key("seeker:", player_id)}, {prefix_}),
                 "the remove_seek script");
}

inarow::expected<std::optional<SharedSeek>, std::string> Directory::take_seek(
    const std::string& seek_id) {
  auto r = redis_.script(kTakeSeek, {}, {prefix_, seek_id});
  if (!r) return inarow::unexpected(std::move(r).error());
  if (r->is_nil()) return std::optional<SharedSeek>();
  auto seek = r->is_array() ? decode_seek(r->array, 0) : std::nullopt;
  if (!seek) return inarow::unexpected(unexpected_reply("the take_seek script"));
  return std::optional<SharedSeek>(std::move(seek->first));
}

inarow::expected<std::vector<SharedSeek>, std::string> Directory::seeks(
    const std::optional<std::string>& terms) {
  auto r = redis_.script(kSeeks, {terms ? key("pool:", *terms) : key("pool", "")}, {prefix_});
  if (!r) return inarow::unexpected(std::move(r).error());
  if (!r->is_array() || r->array.size() % 7 != 0) {
    return inarow::unexpected(unexpected_reply("the seeks script"));
  }
  std::vector<std::pair<SharedSeek, std::int64_t>> all;
  for (std::size_t at = 0; at < r->array.size(); at += 7) {
    auto seek = decode_seek(r->array, at);
    if (!seek) return inarow::unexpected(unexpected_reply("the seeks script"));
    all.push_back(std::move(*seek));
  }
  std::sort(all.begin(), all.end(), [](const auto& a, const auto& b) {
    return std::tie(a.first.since_ms, a.second) < std::tie(b.first.since_ms, b.second);
  });
  std::vector<SharedSeek> out;
  out.reserve(all.size());
  for (auto& [seek, seq] : all)
    out.push_back(std::move(seek));
  return out;
}

inarow::expected<std::optional<std::pair<SharedSeek, SharedSeek>>, std::string> Directory::pair(
    const std::string& seek_id, const MatchmakerPolicy& policy, std::int64_t now_ms) {
  auto r = redis_.script(kPair, {},
                         {prefix_, seek_id, std::to_string(now_ms), number(policy.initial_window),
                          number(policy.widening_per_second), number(policy.max_window)});
  if (!r) return inarow::unexpected(std::move(r).error());
  using Pair = std::pair<SharedSeek, SharedSeek>;
  if (r->is_nil()) return std::optional<Pair>();
  auto first = r->is_array() ? decode_seek(r->array, 0) : std::nullopt;
  auto second = r->is_array() ? decode_seek(r->array, 7) : std::nullopt;
  if (!first || !second || r->array.size() != 14) {
    return inarow::unexpected(unexpected_reply("the pair script"));
  }
  return std::optional<Pair>(Pair{std::move(first->first), std::move(second->first)});
}

}  // namespace inarow::server

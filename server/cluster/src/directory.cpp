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

// A seek's hash holds these fields, returned in this order (8 strings).
// `seq` orders seeks added at the same since_ms.
//
// A node's seeks are those of its players, connected there: when its entry
// runs out (it died) or it leaves, they go with it. Whoever finds a node's
// entry gone first (the nodes script, or any pool script's sweep) drops
// the node from the set and its seeks from the pool, so a pool script
// never sees a seek of a node that is gone.
//
// A player's live matches against people (P"playing:"PLAYER) are counted
// against the live set: a match counts while it is live (claimed and not
// forgotten, whichever node owns it or whether its owner died), or while
// its hold runs out later (made, its lease not claimed yet). What counts
// no more is dropped as it is found, so nothing needs to remove it when a
// match ends or a node dies.
const char* const kSeekLua = R"lua(
local FIELDS = {'id', 'player', 'node', 'terms', 'rating', 'since', 'seq', 'listing'}
local function read_seek(p, id)
  return redis.call('HMGET', p .. 'seek:' .. id, unpack(FIELDS))
end
-- Removes a seek (its fields as read_seek gives them) from every index.
local function drop_seek(p, s)
  redis.call('ZREM', p .. 'pool:' .. s[4], s[1])
  redis.call('ZREM', p .. 'pool', s[1])
  redis.call('SREM', p .. 'node-seeks:' .. s[3], s[1])
  redis.call('DEL', p .. 'seek:' .. s[1])
  if redis.call('GET', p .. 'seeker:' .. s[2]) == s[1] then
    redis.call('DEL', p .. 'seeker:' .. s[2])
  end
end
local function drop_node_seeks(p, node)
  local ids = redis.call('SMEMBERS', p .. 'node-seeks:' .. node)
  for _, id in ipairs(ids) do
    local s = read_seek(p, id)
    if s[1] then drop_seek(p, s) end
  end
  redis.call('DEL', p .. 'node-seeks:' .. node)
  return #ids
end
-- The nodes whose entry ran out leave the set, and their seeks the pool.
local function sweep(p)
  for _, id in ipairs(redis.call('SMEMBERS', p .. 'nodes')) do
    if redis.call('EXISTS', p .. 'node:' .. id) == 0 then
      redis.call('SREM', p .. 'nodes', id)
      drop_node_seeks(p, id)
    end
  end
end
local function playing(p, player, now)
  local key = p .. 'playing:' .. player
  local n = 0
  local held = redis.call('ZRANGE', key, 0, -1, 'WITHSCORES')
  for i = 1, #held, 2 do
    if redis.call('ZSCORE', p .. 'live', held[i]) or tonumber(held[i + 1]) > now then
      n = n + 1
    else
      redis.call('ZREM', key, held[i])
    end
  end
  return n
end
local function hold(p, player, match, until_ms)
  redis.call('ZADD', p .. 'playing:' .. player, until_ms, match)
end
-- The 8 fields of each seek of `ids` still there, appended to `out`.
local function append_seeks(out, p, ids)
  for _, id in ipairs(ids) do
    local s = read_seek(p, id)
    if s[1] then
      for i = 1, 8 do out[#out + 1] = s[i] end
    end
  end
  return out
end
)lua";

Script seek_script(const char* body) {
  return Script(std::string(kLiveLua) + kSeekLua + body);
}

// ---- Nodes ----

// KEYS: node key, nodes set. ARGV: node id, address, ttl.
const Script kRegister(R"lua(
redis.call('SET', KEYS[1], ARGV[2], 'PX', ARGV[3])
redis.call('SADD', KEYS[2], ARGV[1])
return 1
)lua");

// KEYS: nodes set. ARGV: prefix. Each live node's id and address; the
// expired ones are dropped from the set as they are found, with their seeks.
const Script kNodes = seek_script(R"lua(
local out = {}
for _, id in ipairs(redis.call('SMEMBERS', KEYS[1])) do
  local address = redis.call('GET', ARGV[1] .. 'node:' .. id)
  if address then
    out[#out + 1] = id
    out[#out + 1] = address
  else
    redis.call('SREM', KEYS[1], id)
    drop_node_seeks(ARGV[1], id)
  end
end
return out
)lua");

// KEYS: node key, nodes set. ARGV: node id, prefix.
const Script kDeregister = seek_script(R"lua(
local live = redis.call('DEL', KEYS[1])
redis.call('SREM', KEYS[2], ARGV[1])
drop_node_seeks(ARGV[2], ARGV[1])
return live
)lua");

// ---- Leases ----

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

// KEYS: lease, generation, live[, ended]. ARGV: match[, node, linger (ms)].
// With `ended`, where the match ended, for as long as it lingers there.
const Script kForget(R"lua(
redis.call('DEL', KEYS[1], KEYS[2])
redis.call('ZREM', KEYS[3], ARGV[1])
if KEYS[4] then redis.call('SET', KEYS[4], ARGV[2], 'PX', ARGV[3]) end
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

// KEYS: locations. ARGV: node. How many named it.
const Script kClearLocations(R"lua(
local n = 0
for _, key in ipairs(KEYS) do
  if redis.call('GET', key) == ARGV[1] then
    redis.call('DEL', key)
    n = n + 1
  end
end
return n
)lua");

// ---- Seeks ----

// KEYS: seek hash, pool of the terms, seeker, pool, seq, node's seeks.
// ARGV: id, player, node, terms, rating, since, listing, and a cap and
// the prefix, or nothing. 1 added, 0 seeking already, 2 at the cap.
const Script kAddSeek = seek_script(R"lua(
if redis.call('EXISTS', KEYS[3]) == 1 then return 0 end
if ARGV[8] and playing(ARGV[9], ARGV[2], now_ms()) >= tonumber(ARGV[8]) then return 2 end
if redis.call('EXISTS', KEYS[1]) == 1 then
  return redis.error_reply('ERR seek id ' .. ARGV[1] .. ' is in the pool already')
end
local seq = redis.call('INCR', KEYS[5])
redis.call('HSET', KEYS[1], 'id', ARGV[1], 'player', ARGV[2], 'node', ARGV[3],
           'terms', ARGV[4], 'rating', ARGV[5], 'since', ARGV[6], 'seq', seq,
           'listing', ARGV[7])
redis.call('ZADD', KEYS[2], ARGV[5], ARGV[1])
redis.call('SET', KEYS[3], ARGV[1])
redis.call('ZADD', KEYS[4], seq, ARGV[1])
redis.call('SADD', KEYS[6], ARGV[1])
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

// KEYS: a pool (of some terms, or all). ARGV: prefix. 8 strings a seek.
const Script kSeeks = seek_script(R"lua(
sweep(ARGV[1])
return append_seeks({}, ARGV[1], redis.call('ZRANGE', KEYS[1], 0, -1))
)lua");

// ARGV: prefix, limit. The number open, then 8 strings a seek.
const Script kSeekPage = seek_script(R"lua(
local p = ARGV[1]
sweep(p)
return append_seeks({redis.call('ZCARD', p .. 'pool')}, p,
                    redis.call('ZRANGE', p .. 'pool', 0, tonumber(ARGV[2]) - 1))
)lua");

// ARGV: prefix, node. How many seeks went.
const Script kDropSeeksOf = seek_script(R"lua(
return drop_node_seeks(ARGV[1], ARGV[2])
)lua");

// ARGV: prefix, seek id, asker, asker busy (0 or 1), match, cap, ttl.
// {outcome} or {'taken', the seek's 8 strings}.
const Script kAcceptSeek = seek_script(R"lua(
local p = ARGV[1]
sweep(p)
local s = read_seek(p, ARGV[2])
if not s[1] then return {'unknown'} end
if s[2] == ARGV[3] then return {'own'} end
local now, cap = now_ms(), tonumber(ARGV[6])
if ARGV[4] == '1' or playing(p, ARGV[3], now) >= cap then return {'asker_busy'} end
if playing(p, s[2], now) >= cap then return {'seeker_busy'} end
drop_seek(p, s)
local mine = redis.call('GET', p .. 'seeker:' .. ARGV[3])
if mine then
  local m = read_seek(p, mine)
  if m[1] then drop_seek(p, m) else redis.call('DEL', p .. 'seeker:' .. ARGV[3]) end
end
local until_ms = expiry(ARGV[7])
hold(p, ARGV[3], ARGV[5], until_ms)
hold(p, s[2], ARGV[5], until_ms)
local out = {'taken'}
for i = 1, 8 do out[1 + i] = s[i] end
return out
)lua");

// ARGV: prefix, match, cap, ttl, then the players. 0: the match is held
// for them all; else the (1-based) place of the first at the cap, and
// nothing is held.
const Script kHoldMatch = seek_script(R"lua(
local p, now, cap = ARGV[1], now_ms(), tonumber(ARGV[3])
for i = 5, #ARGV do
  if playing(p, ARGV[i], now) >= cap then return i - 4 end
end
local until_ms = expiry(ARGV[4])
for i = 5, #ARGV do hold(p, ARGV[i], ARGV[2], until_ms) end
return 0
)lua");

// ARGV: prefix, match, then the players. The hold becomes a count for as
// long as the match is live.
const Script kCountMatch = seek_script(R"lua(
local now = now_ms()
for i = 3, #ARGV do
  playing(ARGV[1], ARGV[i], now)
  hold(ARGV[1], ARGV[i], ARGV[2], 0)
end
return 1
)lua");

// ARGV: prefix, player.
const Script kPlaying = seek_script(R"lua(
return playing(ARGV[1], ARGV[2], now_ms())
)lua");

// ARGV: prefix, seek id, now_ms, initial, widening, max, and for a match
// slot: its match, the cap, the hold's ttl. Both seeks' 8 strings, the
// longer-waiting first, or nil.
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
// longer waiting). With a slot, a seek whose player is at the cap is
// passed over, as the Matchmaker passes over one its can_play refuses.
const Script kPair = seek_script(R"lua(
local p = ARGV[1]
sweep(p)
local me = read_seek(p, ARGV[2])
if not me[1] then return false end
local slot = ARGV[7] ~= nil
local clock_now, cap = now_ms(), slot and tonumber(ARGV[8]) or 0
local function free(player)
  return not slot or playing(p, player, clock_now) < cap
end
if not free(me[2]) then return false end
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
    local c = redis.call('HMGET', p .. 'seek:' .. id, 'rating', 'since', 'seq', 'player')
    if c[1] then
      local c_since, c_seq = tonumber(c[2]), tonumber(c[3])
      local gap = math.abs(rating - tonumber(c[1]))
      if not (gap > mine or gap > window(c_since)) then
        if earlier(c_since, c_seq, since, seq) then
          if (not oldest or earlier(c_since, c_seq, oldest_since, oldest_seq)) and free(c[4]) then
            oldest, oldest_since, oldest_seq = id, c_since, c_seq
          end
        elseif (not best or gap < best_gap or
                (gap == best_gap and earlier(c_since, c_seq, best_since, best_seq))) and
            free(c[4]) then
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
if slot then
  local until_ms = expiry(ARGV[9])
  hold(p, me[2], ARGV[7], until_ms)
  hold(p, other[2], ARGV[7], until_ms)
end
local first, second = me, other
if best_since < since or (best_since == since and best_seq < seq) then
  first, second = other, me
end
local out = {}
for i = 1, 8 do out[i] = first[i] end
for i = 1, 8 do out[8 + i] = second[i] end
return out
)lua");

bool parse_int(const std::string& s, std::int64_t& out) {
  const auto r = std::from_chars(s.data(), s.data() + s.size(), out);
  return r.ec == std::errc() && r.ptr == s.data() + s.size();
}

// A seek's strings in a reply.
constexpr std::size_t kSeekFields = 8;

// A seek from 8 strings of `a` from `at` (and its seq, for ordering).
std::optional<std::pair<SharedSeek, std::int64_t>> decode_seek(const std::vector<RedisReply>& a,
                                                               std::size_t at) {
  if (a.size() < at + kSeekFields) return std::nullopt;
  for (std::size_t i = at; i < at + kSeekFields; ++i) {
    if (!a[i].is_string()) return std::nullopt;
  }
  SharedSeek s;
  s.seek_id = a[at].string;
  s.player_id = a[at + 1].string;
  s.node_id = a[at + 2].string;
  s.terms = a[at + 3].string;
  s.listing = a[at + 7].string;
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

// Keys a call on many players touches at most: one script or pipeline
// holds Redis (and its other clients) only so long.
constexpr std::size_t kKeysPerCall = 2000;

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
  return as_bool(
      redis_.script(kDeregister, {key("node:", node_id), key("nodes", "")}, {node_id, prefix_}),
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

inarow::expected<void, std::string> Directory::end_match(const std::string& match_id,
                                                         const std::string& node_id,
                                                         std::chrono::milliseconds linger) {
  if (linger <= std::chrono::milliseconds::zero()) return forget_match(match_id);
  return as_void(redis_.script(kForget,
                               {key("lease:", match_id), key("generation:", match_id),
                                key("live", ""), key("ended:", match_id)},
                               {match_id, node_id, millis(linger)}));
}

inarow::expected<std::optional<std::string>, std::string> Directory::ended_at(
    const std::string& match_id) {
  return as_optional_string(redis_.command({"GET", key("ended:", match_id)}), "GET");
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

inarow::expected<void, std::string> Directory::set_locations(
    const std::vector<std::string>& player_ids, const std::string& node_id,
    std::chrono::milliseconds ttl) {
  if (auto ok = check_ttl(ttl); !ok) return ok;
  const std::string px = millis(ttl);
  for (std::size_t at = 0; at < player_ids.size(); at += kKeysPerCall) {
    const std::size_t end = std::min(player_ids.size(), at + kKeysPerCall);
    std::vector<std::string> keys;
    keys.reserve(end - at);
    for (std::size_t i = at; i < end; ++i)
      keys.push_back(key("location:", player_ids[i]));
    std::vector<std::vector<std::string_view>> commands;
    commands.reserve(keys.size());
    for (const std::string& k : keys)
      commands.push_back({"SET", k, node_id, "PX", px});
    auto replies = redis_.pipeline(commands);
    if (!replies) return inarow::unexpected(std::move(replies).error());
    for (auto& reply : *replies) {
      if (!reply) return inarow::unexpected(std::move(reply).error());
    }
  }
  return {};
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

inarow::expected<std::size_t, std::string> Directory::clear_locations(
    const std::vector<std::string>& player_ids, const std::string& node_id) {
  std::size_t cleared = 0;
  for (std::size_t at = 0; at < player_ids.size(); at += kKeysPerCall) {
    std::vector<std::string> keys;
    for (std::size_t i = at; i < std::min(player_ids.size(), at + kKeysPerCall); ++i)
      keys.push_back(key("location:", player_ids[i]));
    auto r = redis_.script(kClearLocations, keys, {node_id});
    if (!r) return inarow::unexpected(std::move(r).error());
    if (!r->is_integer()) return inarow::unexpected(unexpected_reply("the clear_locations script"));
    cleared += static_cast<std::size_t>(r->integer);
  }
  return cleared;
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
  return as_bool(redis_.script(kAddSeek,
                               {key("seek:", seek.seek_id), key("pool:", seek.terms),
                                key("seeker:", seek.player_id), key("pool", ""),
                                key("seek-seq", ""), key("node-seeks:", seek.node_id)},
                               {seek.seek_id, seek.player_id, seek.node_id, seek.terms,
                                number(seek.rating), std::to_string(seek.since_ms), seek.listing}),
                 "the add_seek script");
}

inarow::expected<Directory::SeekAdded, std::string> Directory::add_seek(const SharedSeek& seek,
                                                                        int cap) {
  if (!std::isfinite(seek.rating)) {
    return inarow::unexpected(std::string("a seek's rating must be a finite number"));
  }
  auto r = redis_.script(
      kAddSeek,
      {key("seek:", seek.seek_id), key("pool:", seek.terms), key("seeker:", seek.player_id),
       key("pool", ""), key("seek-seq", ""), key("node-seeks:", seek.node_id)},
      {seek.seek_id, seek.player_id, seek.node_id, seek.terms, number(seek.rating),
       std::to_string(seek.since_ms), seek.listing, std::to_string(cap), prefix_});
  if (!r) return inarow::unexpected(std::move(r).error());
  if (!r->is_integer() || r->integer < 0 || r->integer > 2) {
    return inarow::unexpected(unexpected_reply("the add_seek script"));
  }
  return r->integer == 1   ? SeekAdded::added
         : r->integer == 0 ? SeekAdded::already_seeking
                           : SeekAdded::at_cap;
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
  if (!r->is_array() || r->array.size() % kSeekFields != 0) {
    return inarow::unexpected(unexpected_reply("the seeks script"));
  }
  std::vector<std::pair<SharedSeek, std::int64_t>> all;
  for (std::size_t at = 0; at < r->array.size(); at += kSeekFields) {
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

inarow::expected<SeekPage, std::string> Directory::seek_page(std::size_t limit) {
  if (limit == 0) return inarow::unexpected(std::string("a page holds at least one seek"));
  auto r = redis_.script(kSeekPage, {}, {prefix_, std::to_string(limit)});
  if (!r) return inarow::unexpected(std::move(r).error());
  if (!r->is_array() || r->array.empty() || !r->array[0].is_integer() ||
      (r->array.size() - 1) % kSeekFields != 0) {
    return inarow::unexpected(unexpected_reply("the seek_page script"));
  }
  SeekPage page;
  page.total = static_cast<std::size_t>(r->array[0].integer);
  for (std::size_t at = 1; at < r->array.size(); at += kSeekFields) {
    auto seek = decode_seek(r->array, at);
    if (!seek) return inarow::unexpected(unexpected_reply("the seek_page script"));
    page.seeks.push_back(std::move(seek->first));
  }
  return page;
}

inarow::expected<std::size_t, std::string> Directory::drop_seeks_of(const std::string& node_id) {
  auto r = redis_.script(kDropSeeksOf, {}, {prefix_, node_id});
  if (!r) return inarow::unexpected(std::move(r).error());
  if (!r->is_integer()) return inarow::unexpected(unexpected_reply("the drop_seeks_of script"));
  return static_cast<std::size_t>(r->integer);
}

inarow::expected<Accepted, std::string> Directory::accept_seek(const std::string& seek_id,
                                                               const std::string& asker,
                                                               bool asker_busy,
                                                               const MatchSlot& slot) {
  if (auto ok = check_ttl(slot.ttl); !ok) return inarow::unexpected(ok.error());
  auto r = redis_.script(kAcceptSeek, {},
                         {prefix_, seek_id, asker, asker_busy ? "1" : "0", slot.match_id,
                          std::to_string(slot.cap), millis(slot.ttl)});
  if (!r) return inarow::unexpected(std::move(r).error());
  if (!r->is_array() || r->array.empty() || !r->array[0].is_string()) {
    return inarow::unexpected(unexpected_reply("the accept_seek script"));
  }
  using Outcome = Accepted::Outcome;
  const std::string& outcome = r->array[0].string;
  Accepted accepted;
  if (outcome == "taken") {
    auto seek = decode_seek(r->array, 1);
    if (!seek) return inarow::unexpected(unexpected_reply("the accept_seek script"));
    accepted.outcome = Outcome::taken;
    accepted.seek = std::move(seek->first);
  } else if (outcome == "unknown") {
    accepted.outcome = Outcome::unknown;
  } else if (outcome == "own") {
    accepted.outcome = Outcome::own;
  } else if (outcome == "asker_busy") {
    accepted.outcome = Outcome::asker_busy;
  } else if (outcome == "seeker_busy") {
    accepted.outcome = Outcome::seeker_busy;
  } else {
    return inarow::unexpected(unexpected_reply("the accept_seek script"));
  }
  return accepted;
}

inarow::expected<std::optional<std::size_t>, std::string> Directory::hold_match(
    const MatchSlot& slot, const std::vector<std::string>& players) {
  if (auto ok = check_ttl(slot.ttl); !ok) return inarow::unexpected(ok.error());
  std::vector<std::string> args{prefix_, slot.match_id, std::to_string(slot.cap), millis(slot.ttl)};
  args.insert(args.end(), players.begin(), players.end());
  auto r = redis_.script(kHoldMatch, {}, args);
  if (!r) return inarow::unexpected(std::move(r).error());
  if (!r->is_integer() || r->integer < 0 ||
      r->integer > static_cast<std::int64_t>(players.size())) {
    return inarow::unexpected(unexpected_reply("the hold_match script"));
  }
  if (r->integer == 0) return std::optional<std::size_t>{};
  return std::optional<std::size_t>{static_cast<std::size_t>(r->integer - 1)};
}

inarow::expected<void, std::string> Directory::count_match(
    const std::string& match_id, const std::vector<std::string>& players) {
  if (players.empty()) return {};
  std::vector<std::string> args{prefix_, match_id};
  args.insert(args.end(), players.begin(), players.end());
  return as_void(redis_.script(kCountMatch, {}, args));
}

inarow::expected<int, std::string> Directory::playing(const std::string& player_id) {
  auto r = redis_.script(kPlaying, {}, {prefix_, player_id});
  if (!r) return inarow::unexpected(std::move(r).error());
  if (!r->is_integer()) return inarow::unexpected(unexpected_reply("the playing script"));
  return static_cast<int>(r->integer);
}

inarow::expected<std::optional<std::pair<SharedSeek, SharedSeek>>, std::string> Directory::pair(
    const std::string& seek_id, const MatchmakerPolicy& policy, std::int64_t now_ms,
    const std::optional<MatchSlot>& slot) {
  std::vector<std::string> args{prefix_,
                                seek_id,
                                std::to_string(now_ms),
                                number(policy.initial_window),
                                number(policy.widening_per_second),
                                number(policy.max_window)};
  if (slot) {
    if (auto ok = check_ttl(slot->ttl); !ok) return inarow::unexpected(ok.error());
    args.insert(args.end(), {slot->match_id, std::to_string(slot->cap), millis(slot->ttl)});
  }
  auto r = redis_.script(kPair, {}, args);
  if (!r) return inarow::unexpected(std::move(r).error());
  using Pair = std::pair<SharedSeek, SharedSeek>;
  if (r->is_nil()) return std::optional<Pair>();
  auto first = r->is_array() ? decode_seek(r->array, 0) : std::nullopt;
  auto second = r->is_array() ? decode_seek(r->array, kSeekFields) : std::nullopt;
  if (!first || !second || r->array.size() != 2 * kSeekFields) {
    return inarow::unexpected(unexpected_reply("the pair script"));
  }
  return std::optional<Pair>(Pair{std::move(first->first), std::move(second->first)});
}

}  // namespace inarow::server

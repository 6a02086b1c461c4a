-- Adds or removes one entry of an allow or deny list, within the list's bound, and bumps the lists' version.
-- KEYS[1]  the list's hash, {<prefix>:lists}:deny or {<prefix>:lists}:allow: field = the entry's canonical text,
--          value = "<expiresAtMillis>;<rules>" (expiry 0 = until removed; rules comma separated, empty = every rule)
-- KEYS[2]  the lists' version, {<prefix>:lists}:version, a counter every instance reads to find a missed change
--          (both keys share the hash tag, so one slot in a Redis Cluster)
-- ARGV[1]  'add' or 'remove'
-- ARGV[2]  the entry's canonical text
-- ARGV[3]  (add) the rules, comma separated, empty for every rule
-- ARGV[4]  (add) the time to live in milliseconds, 0 for none
-- ARGV[5]  (add) the most entries in force the list may hold
-- Reply: 1 when added, replaced or removed; 0 when the list is full (add) or had no such entry (remove).
-- Time: Redis TIME, in milliseconds; an entry's expiry is absolute, so each instance lets it lapse on its own.
-- TTL rule: the keys have none; entries whose expiry has passed are deleted here, before the bound is checked.
local list = KEYS[1]
local version = KEYS[2]
if ARGV[1] == 'remove' then
  local removed = redis.call('HDEL', list, ARGV[2])
  redis.call('INCR', version)
  return removed
end
local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
local entries = redis.call('HGETALL', list)
for i = 1, #entries, 2 do
  local expiry = tonumber(string.match(entries[i + 1], '^(%d+);'))
  if expiry and expiry > 0 and expiry <= now then
    redis.call('HDEL', list, entries[i])
  end
end
if redis.call('HEXISTS', list, ARGV[2]) == 0 and redis.call('HLEN', list) >= tonumber(ARGV[5]) then
  return 0
end
local ttl = tonumber(ARGV[4])
local expiresAt = 0
if ttl > 0 then
  expiresAt = now + ttl
end
redis.call('HSET', list, ARGV[2], expiresAt .. ';' .. ARGV[3])
redis.call('INCR', version)
return 1

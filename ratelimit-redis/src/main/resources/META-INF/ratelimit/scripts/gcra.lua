--[[
gcra.lua: the fast path of ratelimit.lua for calls whose checks are all GCRA (the default algorithm).

Same KEYS and ARGV as ratelimit.lua (evaluate mode only; refunds use ratelimit.lua), the same maths as
its gcra function and the Java reference dev.ratelimit.algorithm.Gcra; the differential test binds all three. It
exists because Redis runs a script's whole body on every call: this one defines no functions and builds no tables
beyond the reply and one list, which makes a one-check call about twice as cheap for Redis as ratelimit.lua. The
common case (every check admits) takes the shortest path: what a denial or an inspection reports is computed only
when the call denies.

KEYS[i]   state key of check i
ARGV[1]   now in microseconds, or '' for redis.call('TIME') (an explicit time is for tests only; TTLs then last at
          least an hour, see ratelimit.lua)
ARGV[2]   '' (evaluate)
ARGV[3 + 7(i-1) ..]  per check: 6 (GCRA), interval (period / limit, µs), capacity (burst), 0, cost, shadow (0|1),
          maxWait (always 0 here: calls with reservations run ratelimit.lua)
Batch     (see ratelimit.lua) ARGV[3 + 7N + q - 1] (N = #KEYS): the number of checks of request q; the requests are
          decided one after the other at the call's one time, and the reply is the list of their replies
Reply     { allowed (1|0), now, then per check: allowed (1|0), remaining, resetAfter, retryAfter (-1 = never),
          nextAfter (until one more unit than remaining, at least one; 0 when the TAT is not ahead of now) }, as
          ratelimit.lua's without its reclaimed values and delay; but when every check of the request admits, the
          short reply { 1, now, then per check resetAfter } (2 + N values), from which the caller computes remaining
          and nextAfter with the same formulas (decision 130: fewer than half the values for Redis to build and send)
State     string integer: the theoretical arrival time (TAT); TTL until it
]]

local now
local minTtl = 0
if ARGV[1] == '' then
  local t = redis.call('TIME')
  now = t[1] * 1000000 + t[2]
else
  now = tonumber(ARGV[1])
  minTtl = 3600000000
end

local floor = math.floor
local total = #KEYS
-- a batch (see ratelimit.lua): after the checks' arguments, the number of checks of each request
local batched = #ARGV > 2 + 7 * total
local replies = {}
local first = 1
local reply

for q = 1, batched and #ARGV - 2 - 7 * total or 1 do
  local n = batched and tonumber(ARGV[2 + 7 * total + q]) or total
  reply = { 1, now }
  local tats = {}
  local verdict = 1
  local short = true

  -- Phase 1: decide every check; nothing is written yet. Check j of the request is check i of the call.
  for j = 1, n do
    local i = first + j - 1
    local base = 7 * i - 4 -- ARGV index of check i's algorithm id
    local interval = tonumber(ARGV[base + 1])
    local capacity = tonumber(ARGV[base + 2])
    local cost = tonumber(ARGV[base + 4])
    local tat = tonumber(redis.call('GET', KEYS[i]) or now)
    if tat < now then
      tat = now
    end
    tats[j] = tat
    local tolerance = capacity * interval
    local ahead = tat + cost * interval - now
    local r = 5 * j - 2 -- reply index of check j's allowed flag
    if cost <= capacity and ahead <= tolerance then
      -- remaining and nextAfter follow from ahead: filled in below only when the reply is not the short one
      reply[r], reply[r + 2] = 1, ahead
    else
      short = false
      local remainingNow = floor((tolerance - (tat - now)) / interval)
      if remainingNow < 0 then
        remainingNow = 0
      end
      local nextAfter = 0
      if tat > now then
        nextAfter = tat - now - tolerance + (remainingNow + 1) * interval
      end
      local retry = -1
      if cost <= capacity then
        retry = ahead - tolerance
        if retry < 1 then
          retry = 1
        end
        if nextAfter > retry then
          nextAfter = retry
        end
      end
      reply[r], reply[r + 1], reply[r + 2], reply[r + 3], reply[r + 4] = 0, remainingNow, tat - now, retry, nextAfter
      if ARGV[base + 5] == '0' then
        verdict = 0
      end
    end
  end
  reply[1] = verdict

  -- Phase 2: admitted, so write what the checks consumed; denied, so report the admitting checks as inspected.
  if verdict == 1 then
    for j = 1, n do
      local i = first + j - 1
      local r = 5 * j - 2
      if reply[r] == 1 and ARGV[7 * i] ~= '0' then
        local ahead = reply[r + 2]
        local ttl = ahead
        if ttl < minTtl then
          ttl = minTtl
        end
        redis.call('SET', KEYS[i], string.format('%d', now + ahead), 'PX', math.ceil(ttl / 1000))
      end
    end
  end
  if verdict == 1 and short then
    -- every check admitted: the short reply { 1, now, then per check its resetAfter (ahead) }, from which the caller
    -- computes remaining and nextAfter as below (RateLimitScript.parse, decision 130)
    for j = 1, n do
      reply[2 + j] = reply[5 * j]
    end
    for k = #reply, 3 + n, -1 do
      reply[k] = nil
    end
  else
    -- the full reply of the checks that admitted: consumed (the request admitted) or inspected (it was denied)
    for j = 1, n do
      local r = 5 * j - 2
      if reply[r] == 1 then
        local base = 7 * (first + j - 1) - 4
        local interval = tonumber(ARGV[base + 1])
        local tolerance = tonumber(ARGV[base + 2]) * interval
        local ahead = reply[r + 2]
        if verdict == 0 then
          ahead = tats[j] - now
        end
        local remaining = floor((tolerance - ahead) / interval)
        if remaining < 0 then
          remaining = 0
        end
        local nextAfter = 0
        if ahead > 0 then
          nextAfter = ahead - tolerance + (remaining + 1) * interval
        end
        reply[r + 1], reply[r + 2], reply[r + 3], reply[r + 4] = remaining, ahead, 0, nextAfter
      end
    end
  end
  replies[q] = reply
  first = first + n
end

if batched then
  return replies
end
return reply

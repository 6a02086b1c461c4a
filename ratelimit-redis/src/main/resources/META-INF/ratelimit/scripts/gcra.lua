--[[
gcra.lua: the fast path of ratelimit.lua for calls whose checks are all GCRA (the default algorithm) and evaluate.

The same maths as ratelimit.lua's gcra function and the Java reference dev.ratelimit.algorithm.Gcra; the
differential test binds all three. It exists because Redis runs a script's whole body on every call, and because the
per-check work is what a batch cannot share (issue 34, decision 136): it defines one small function, reads one
argument per check, builds no table per request, and answers one flat list. The common case (every check admits)
takes the shortest path: what a denial or an inspection reports is computed only when a request is denied.

KEYS[i]   state key of check i
ARGV[1]   now in microseconds, or '' for redis.call('TIME') (an explicit time is for tests only; TTLs then last at
          least an hour, see ratelimit.lua)
ARGV[2]   S, the number of distinct specs of the call
ARGV[3 + 4(s-1) ..]  spec s: interval (period / limit, µs), capacity (burst), cost, shadow (0|1)
ARGV[3 + 4S + i - 1]          the spec of check i (N = #KEYS checks)
ARGV[3 + 4S + N + q - 1]      the number of checks of request q; the requests are decided one after the other at the
                              call's one time, each all-or-nothing on its own
Reply     one flat list: now, then per request a flag and its values:
          1 (every check admitted), then per check resetAfter (how far the TAT is ahead of now), from which the
            caller computes remaining and nextAfter (decision 130);
          2 (admitted, a shadow check denied) or 0 (denied), then per check allowed (1|0), remaining, resetAfter,
            retryAfter (-1 = never), nextAfter (until one more unit than remaining, at least one; 0 when the TAT is
            not ahead of now), as ratelimit.lua's without its reclaimed values and delay
State     string integer: the theoretical arrival time (TAT). The key expires at the end of the second in which the
          TAT falls (PXAT), never before the TAT; a write whose TAT falls in the same second as the stored one
          changes the value in place (INCRBY) and leaves the expiry, which is what most writes are (decision 136).
          Every script that writes a GCRA key (ratelimit.lua, sync.lua) sets the same expiry, so that it holds.
]]

local call = redis.call
local floor, ceil = math.floor, math.ceil
local fmt = string.format

local now
local test = ARGV[1] ~= ''
if test then
  now = tonumber(ARGV[1])
else
  local t = call('TIME')
  now = t[1] * 1000000 + t[2]
end

local specs = tonumber(ARGV[2])
local intervals, capacities, costs, shadows = {}, {}, {}, {}
for s = 1, specs do
  local a = 4 * s - 1
  intervals[s], capacities[s], costs[s], shadows[s] = tonumber(ARGV[a]), tonumber(ARGV[a + 1]),
      tonumber(ARGV[a + 2]), ARGV[a + 3] ~= '0'
end
local total = #KEYS
local checksAt = 2 + 4 * specs
local countsAt = checksAt + total

-- Writes a new TAT over the stored one (old, nil when none).
local function store(key, old, tat)
  if test then
    -- a test's time is not Redis's: at least an hour, as ratelimit.lua
    local ttl = tat - now
    if ttl < 3600000000 then
      ttl = 3600000000
    end
    call('SET', key, fmt('%d', tat), 'PX', ceil(ttl / 1000))
    return
  end
  local second = ceil(tat / 1000000)
  if old and second == ceil(old / 1000000) then
    call('INCRBY', key, fmt('%d', tat - old))
  else
    call('SET', key, fmt('%d', tat), 'PXAT', second * 1000)
  end
end

local reply = { now }
local size = 1
local first = 1
local olds, tats, specOf = {}, {}, {}

for q = 1, #ARGV - countsAt do
  local n = tonumber(ARGV[countsAt + q])
  local done = false
  if n == 1 then
    -- the common request, one check that admits: no table
    local s = tonumber(ARGV[checksAt + first])
    local interval, capacity, cost = intervals[s], capacities[s], costs[s]
    local key = KEYS[first]
    local old = tonumber(call('GET', key))
    local tat = old or now
    if tat < now then
      tat = now
    end
    local ahead = tat + cost * interval - now
    if cost <= capacity and ahead <= capacity * interval then
      if cost ~= 0 then
        store(key, old, now + ahead)
      end
      reply[size + 1], reply[size + 2] = 1, ahead
      size = size + 2
      done = true
    end
  end
  if not done then
    -- Phase 1: decide every check; nothing is written yet. Check j of the request is check first + j - 1 of the call.
    local verdict, short = 1, true
    local at = size + 1 -- the request's flag
    for j = 1, n do
      local i = first + j - 1
      local s = tonumber(ARGV[checksAt + i])
      local interval, capacity, cost = intervals[s], capacities[s], costs[s]
      local old = tonumber(call('GET', KEYS[i]))
      local tat = old or now
      if tat < now then
        tat = now
      end
      olds[j], tats[j], specOf[j] = old, tat, s
      local tolerance = capacity * interval
      local ahead = tat + cost * interval - now
      local r = at + 5 * j - 4 -- reply index of check j's allowed flag (full layout)
      if cost <= capacity and ahead <= tolerance then
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
        if not shadows[s] then
          verdict = 0
        end
      end
    end

    -- Phase 2: admitted, so write what the checks consumed; denied, so report the admitting checks as inspected.
    if verdict == 1 then
      for j = 1, n do
        local r = at + 5 * j - 4
        if reply[r] == 1 and costs[specOf[j]] ~= 0 then
          store(KEYS[first + j - 1], olds[j], now + reply[r + 2])
        end
      end
    end
    if verdict == 1 and short then
      reply[at] = 1
      for j = 1, n do
        reply[at + j] = reply[at + 5 * j - 2]
      end
      for k = at + 5 * n, at + n + 1, -1 do
        reply[k] = nil
      end
      size = at + n
    else
      reply[at] = (verdict == 1) and 2 or 0
      for j = 1, n do
        local r = at + 5 * j - 4
        if reply[r] == 1 then
          local s = specOf[j]
          local interval = intervals[s]
          local tolerance = capacities[s] * interval
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
      size = at + 5 * n
    end
  end
  first = first + n
end

return reply

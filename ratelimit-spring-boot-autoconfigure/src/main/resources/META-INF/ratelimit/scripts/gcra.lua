--[[
gcra.lua: the fast path of ratelimit.lua for calls whose checks are all GCRA (the default algorithm).

Same KEYS, ARGV and reply as ratelimit.lua (evaluate mode only; refunds use ratelimit.lua), and the same maths as
its gcra function and the Java reference dev.ratelimit.algorithm.Gcra; the differential test binds all three. It
exists because Redis runs a script's whole body on every call: this one defines no functions and builds no tables
beyond the reply and one list, which makes a one-check call about twice as cheap for Redis as ratelimit.lua.

KEYS[i]   state key of check i
ARGV[1]   now in microseconds, or '' for redis.call('TIME') (an explicit time is for tests only; TTLs then last at
          least an hour, see ratelimit.lua)
ARGV[2]   '' (evaluate)
ARGV[3 + 6(i-1) ..]  per check: 6 (GCRA), interval (period / limit, µs), capacity (burst), 0, cost, shadow (0|1)
Reply     { allowed (1|0), now, then per check: allowed (1|0), remaining, resetAfter, retryAfter (-1 = never) }
State     string integer: the theoretical arrival time (TAT); TTL until it
]]

local now
local minTtl = 0
if ARGV[1] == '' then
  local t = redis.call('TIME')
  now = tonumber(t[1]) * 1000000 + tonumber(t[2])
else
  now = tonumber(ARGV[1])
  minTtl = 3600000000
end

local floor = math.floor
local n = #KEYS
local reply = { 1, now }
local inspected = {} -- per check: remaining and resetAfter as an inspection (cost 0) would report them
local verdict = 1

for i = 1, n do
  local base = 3 + 6 * (i - 1)
  local interval = tonumber(ARGV[base + 1])
  local capacity = tonumber(ARGV[base + 2])
  local cost = tonumber(ARGV[base + 4])
  local tat = tonumber(redis.call('GET', KEYS[i]) or now)
  if tat < now then
    tat = now
  end
  local tolerance = capacity * interval
  local remainingNow = floor((tolerance - (tat - now)) / interval)
  if remainingNow < 0 then
    remainingNow = 0
  end
  local r = 2 + 4 * (i - 1)
  local ahead = tat + cost * interval - now
  if cost > capacity then
    reply[r + 1], reply[r + 2], reply[r + 3], reply[r + 4] = 0, remainingNow, tat - now, -1
  elseif ahead > tolerance then
    local retry = ahead - tolerance
    if retry < 1 then
      retry = 1
    end
    reply[r + 1], reply[r + 2], reply[r + 3], reply[r + 4] = 0, remainingNow, tat - now, retry
  else
    local remaining = floor((tolerance - ahead) / interval)
    if remaining < 0 then
      remaining = 0
    end
    reply[r + 1], reply[r + 2], reply[r + 3], reply[r + 4] = 1, remaining, ahead, 0
  end
  if reply[r + 1] == 0 and ARGV[base + 5] == '0' then
    verdict = 0
  end
  inspected[2 * i - 1], inspected[2 * i] = remainingNow, tat - now
end
reply[1] = verdict

for i = 1, n do
  local r = 2 + 4 * (i - 1)
  if reply[r + 1] == 1 then
    if verdict == 0 then
      reply[r + 2], reply[r + 3] = inspected[2 * i - 1], inspected[2 * i]
    elseif tonumber(ARGV[3 + 6 * (i - 1) + 4]) > 0 then
      local ttl = reply[r + 3]
      if ttl < minTtl then
        ttl = minTtl
      end
      redis.call('SET', KEYS[i], string.format('%d', now + reply[r + 3]), 'PX', math.ceil(ttl / 1000))
    end
  end
end
return reply

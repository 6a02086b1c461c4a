--[[
Applies the flushes of local views (rules in `sync: local` mode) and replies the state of each flush's key after it.
A flush is a G-counter entry: the units one view admitted in one window since it was created, cumulative. The entries
hash keeps, per view and window, the total applied so far; only what a flush carries beyond it is applied, so a flush
that is retried, whose reply was lost or that overtakes an older one never counts a unit twice. For an entry the hash
no longer holds (it expired with its key), what the view says the store acknowledged is taken as applied.

The units are absorbed as the Java reference's Syncable.absorb does: consumed without a limit check (they were
admitted), so a state may go beyond its limit, which later decisions pay back.

KEYS[2i-1]  the key of flush i, the state as ratelimit.lua keeps it
KEYS[2i]    its entries hash (same hash tag, so the same slot)
ARGV[1]     now in microseconds, or '' to use redis.call('TIME') (an explicit time is for tests only)
ARGV[2 + 8(i-1) .. 9 + 8(i-1)], per flush i:
  algorithm   the script id: 1 fixed window, 3 sliding window counter, 4 token bucket, 6 GCRA
  a, b        interval and capacity (token bucket, GCRA), or period and limit (windows), in microseconds / units
  offset      the fixed window's offset (0 otherwise)
  window      the window that counted the units (0 for token bucket and GCRA)
  field       the entry: view id ':' window
  total       the view's units in that window, cumulative
  acked       what the view says the store acknowledged of it

Reply: { now, state_1 or false, ..., state_n or false }, each state as the key holds it.
]]

local call = redis.call
local floor, ceil, max = math.floor, math.ceil, math.max
local fmt, find, sub = string.format, string.find, string.sub

local now
local minTtl = 0
if ARGV[1] == '' then
  local t = call('TIME')
  now = tonumber(t[1]) * 1000000 + tonumber(t[2])
else
  now = tonumber(ARGV[1])
  minTtl = 3600000000
end

local function int(x)
  return fmt('%d', x)
end

local function px(micros)
  return ceil(max(micros, minTtl, 1) / 1000)
end

local function split2(v)
  local i = find(v, ' ', 1, true)
  return tonumber(sub(v, 1, i - 1)), tonumber(sub(v, i + 1))
end

local function split3(v)
  local i = find(v, ' ', 1, true)
  local j = find(v, ' ', i + 1, true)
  return tonumber(sub(v, 1, i - 1)), tonumber(sub(v, i + 1, j - 1)), tonumber(sub(v, j + 1))
end

-- GCRA's TAT, or the token bucket's 'full at' time: later by units intervals, from now at the earliest. A GCRA key
-- expires at the end of the second of its TAT, as gcra.lua (which relies on it) and ratelimit.lua set it.
local function later(key, interval, units, gcra)
  local v = call('GET', key)
  local at = now
  if v then at = max(tonumber(v), now) end
  at = at + units * interval
  if gcra and minTtl == 0 then
    call('SET', key, int(at), 'PXAT', ceil(at / 1000000) * 1000)
  else
    call('SET', key, int(at), 'PX', px(at - now))
  end
end

local function fixedWindow(key, period, offset, window, units)
  if window < floor((now - offset) / period) * period + offset then return end
  local v = call('GET', key)
  local count
  if v then
    local start, c = split2(v)
    if start == window then
      count = c + units
    elseif start < window then
      count = units
    else
      return
    end
  else
    count = units
  end
  call('SET', key, int(window) .. ' ' .. int(count), 'PX', px(window + period - now))
end

local function slidingCounter(key, period, window, units)
  if window < floor(now / period) * period - period then return end
  local v = call('GET', key)
  local start, previous, current
  if not v then
    start, previous, current = window, 0, units
  else
    local s, p, c = split3(v)
    if s == window then
      start, previous, current = s, p, c + units
    elseif s == window + period then
      start, previous, current = s, p + units, c
    elseif s < window then
      start, current = window, units
      if s == window - period then previous = c else previous = 0 end
    else
      return
    end
  end
  local ttl
  if current > 0 then ttl = start + 2 * period - now else ttl = start + period - now end
  call('SET', key, int(start) .. ' ' .. int(previous) .. ' ' .. int(current), 'PX', px(ttl))
end

local reply = { now }
for i = 1, #KEYS / 2 do
  local key, entries = KEYS[2 * i - 1], KEYS[2 * i]
  local base = 2 + 8 * (i - 1)
  local algorithm = ARGV[base]
  local a, b = tonumber(ARGV[base + 1]), tonumber(ARGV[base + 2])
  local offset, window = tonumber(ARGV[base + 3]), tonumber(ARGV[base + 4])
  local field, total = ARGV[base + 5], tonumber(ARGV[base + 6])
  local applied = call('HGET', entries, field)
  if applied then applied = tonumber(applied) else applied = tonumber(ARGV[base + 7]) end
  if total > applied then
    local units = total - applied
    if algorithm == '6' or algorithm == '4' then
      later(key, a, units, algorithm == '6')
    elseif algorithm == '1' then
      fixedWindow(key, a, offset, window, units)
    elseif algorithm == '3' then
      slidingCounter(key, a, window, units)
    else
      error('ratelimit: sync takes no algorithm ' .. tostring(algorithm))
    end
    call('HSET', entries, field, int(total))
    local ttl = call('PTTL', key)
    local period = ceil(max(a * b, a) / 1000)
    if algorithm == '1' or algorithm == '3' then period = ceil(max(2 * a, minTtl) / 1000) end
    call('PEXPIRE', entries, max(ttl, period, ceil(minTtl / 1000)))
  end
  reply[i + 1] = call('GET', key)
end
return reply

--[[
Rules with scope: global. Each key is a hash of region entries, a PN-counter per window: field '<region>:<window>'
holds the units that region admitted in that window, cumulative, and '<region>:<window>:r' the units it gave back.
Both only grow, so another region's entries merge in by maximum (retries, reordering and overtaking are harmless).
A decision sums the entries of the windows it needs over every region (net of refunds, at least 0) and applies the
fixed window's or the sliding window counter's maths to the sum, as the Java reference (RegionCounters) does.
Entries of a window that ended two periods or more before now weigh nothing and are dropped when the key is written.

KEYS[i]   the hash of check (or refund, or merged key) i
ARGV[1]   now in microseconds, or '' to use redis.call('TIME') (an explicit time is for tests only)
ARGV[2]   'count', 'peek', 'refund', 'charge' or 'merge'
ARGV[3]   this region (count, peek, refund, charge)
count / peek, per check i, ARGV[4 + 6(i-1) ..]: algorithm (1 fixed window, 3 sliding window counter), period, limit,
          offset (the fixed window's, 0 otherwise), cost, shadow ('1' when a denial does not deny the request)
refund, per refund i, the same six: algorithm, period, limit, offset, cost, and the time the units were counted at
charge, per charge i, likewise: units a request admitted at that time turned out to cost more (settled after the
          response), added to this region's entry of its window without a limit check (debt), while that window
          still weighs
merge, per key i in turn: period, n, then n pairs of field and value

Reply (count, peek, refund, charge): { now, admitted (1 or 0), then per check: window, previous, current, entry }, the
merged state each check was decided on (after the refund, for a refund) and this region's entry after the call (0
when none was written). Reply (merge): { now }.
]]

local call = redis.call
local floor, ceil, max = math.floor, math.ceil, math.max
local find, sub, fmt = string.find, string.sub, string.format

local now
local minTtl = 0
if ARGV[1] == '' then
  local t = call('TIME')
  now = tonumber(t[1]) * 1000000 + tonumber(t[2])
else
  now = tonumber(ARGV[1])
  minTtl = 3600000000
end
local mode, region = ARGV[2], ARGV[3]

local function int(x)
  return fmt('%d', x)
end

local function px(micros)
  return ceil(max(micros, minTtl, 1) / 1000)
end

-- the window of a field, or nil
local function windowOf(field)
  local i = find(field, ':', 1, true)
  if not i then return nil end
  local j = find(field, ':', i + 1, true)
  if j then return tonumber(sub(field, i + 1, j - 1)) end
  return tonumber(sub(field, i + 1))
end

-- a key's entries: field -> value
local function read(key)
  local flat = call('HGETALL', key)
  local entries = {}
  for k = 1, #flat, 2 do entries[flat[k]] = tonumber(flat[k + 1]) end
  return entries
end

local function net(entries, window)
  local total = 0
  for field, value in pairs(entries) do
    if windowOf(field) == window then
      if sub(field, -2) == ':r' then total = total - value else total = total + value end
    end
  end
  return max(0, total)
end

local function windowAt(period, offset, t)
  return floor((t - offset) / period) * period + offset
end

-- the merged state: window, previous, current
local function merged(entries, algorithm, period, offset)
  local window = windowAt(period, offset, now)
  local previous = 0
  if algorithm == '3' then previous = net(entries, window - period) end
  return window, previous, net(entries, window)
end

local function fits(algorithm, period, limit, window, previous, current, cost)
  if cost > limit then return false end
  local estimate = current
  if algorithm == '3' then
    estimate = floor(previous * (period - (now - window)) / period) + current
  end
  return estimate + cost <= limit
end

local function dropStale(key, period)
  local flat = call('HKEYS', key)
  for k = 1, #flat do
    local window = windowOf(flat[k])
    if window and window + 2 * period <= now then call('HDEL', key, flat[k]) end
  end
end

local function expire(key, period)
  call('PEXPIRE', key, max(call('PTTL', key), px(2 * period)))
end

if mode == 'merge' then
  local a = 4
  for i = 1, #KEYS do
    local key = KEYS[i]
    local period, n = tonumber(ARGV[a]), tonumber(ARGV[a + 1])
    a = a + 2
    for k = 1, n do
      local field, value = ARGV[a], tonumber(ARGV[a + 1])
      a = a + 2
      local window = windowOf(field)
      if window and window + 2 * period > now then
        local old = call('HGET', key, field)
        if not old or tonumber(old) < value then call('HSET', key, field, int(value)) end
      end
    end
    dropStale(key, period)
    if call('EXISTS', key) == 1 then expire(key, period) end
  end
  return { now }
end

local reply = { now, 1 }
if mode == 'refund' or mode == 'charge' then
  -- a refund adds to the window's refund entry, a charge to its count entry
  local suffix = (mode == 'refund') and ':r' or ''
  for i = 1, #KEYS do
    local key, a = KEYS[i], 4 + 6 * (i - 1)
    local algorithm, period, offset = ARGV[a], tonumber(ARGV[a + 1]), tonumber(ARGV[a + 3])
    local cost, at = tonumber(ARGV[a + 4]), tonumber(ARGV[a + 5])
    local window = windowAt(period, offset, at)
    local entry = 0
    if window + 2 * period > now then
      dropStale(key, period)
      entry = call('HINCRBY', key, region .. ':' .. int(window) .. suffix, cost)
      expire(key, period)
    end
    local w, previous, current = merged(read(key), algorithm, period, offset)
    reply[#reply + 1] = w
    reply[#reply + 1] = previous
    reply[#reply + 1] = current
    reply[#reply + 1] = entry
  end
  return reply
end

-- count or peek: decide every check on the entries plus what the checks before it took, then write if all fit
local hashes, counted, admitted = {}, {}, true
for i = 1, #KEYS do
  local key, a = KEYS[i], 4 + 6 * (i - 1)
  local algorithm, period, limit = ARGV[a], tonumber(ARGV[a + 1]), tonumber(ARGV[a + 2])
  local offset, cost = tonumber(ARGV[a + 3]), tonumber(ARGV[a + 4])
  local entries = hashes[key]
  if not entries then
    entries = read(key)
    hashes[key] = entries
  end
  local window, previous, current = merged(entries, algorithm, period, offset)
  reply[2 + 4 * (i - 1) + 1] = window
  reply[2 + 4 * (i - 1) + 2] = previous
  reply[2 + 4 * (i - 1) + 3] = current
  reply[2 + 4 * (i - 1) + 4] = 0
  if fits(algorithm, period, limit, window, previous, current, cost) then
    local field = region .. ':' .. int(window)
    entries[field] = (entries[field] or 0) + cost
    counted[i] = field
  elseif ARGV[a + 5] ~= '1' then
    admitted = false
  end
end
if not admitted then
  reply[2] = 0
  return reply
end
if mode == 'count' then
  for i = 1, #KEYS do
    local cost = tonumber(ARGV[4 + 6 * (i - 1) + 4])
    if counted[i] and cost > 0 then
      local period = tonumber(ARGV[4 + 6 * (i - 1) + 1])
      dropStale(KEYS[i], period)
      reply[2 + 4 * i] = call('HINCRBY', KEYS[i], counted[i], cost)
      expire(KEYS[i], period)
    end
  end
end
return reply

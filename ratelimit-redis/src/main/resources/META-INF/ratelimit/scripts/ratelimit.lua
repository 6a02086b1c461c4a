--[[
ratelimit.lua: evaluates every check of one request atomically (acquiring the leases of its concurrency checks in the
same step), peeks at what evaluating them would give, refunds what a request consumed, or settles requests whose
cost was known only after they ran.

The maths of each algorithm mirrors the Java reference in dev.ratelimit.algorithm; a differential test binds them.
All times are integer microseconds (exact in Lua's doubles below 2^53; RateLimitPolicy bounds every value).

KEYS[i]   state key of check i, '<prefix>:{<rule>:<subject>}'
ARGV[1]   now in microseconds, or '' to use redis.call('TIME') (an explicit time is for tests only)
ARGV[2]   '' to evaluate; 'peek' to peek (evaluate, writing nothing); 'settle' to settle; to refund, the time
          (microseconds) at which the refunded request was admitted
ARGV[3 + 7(i-1) .. 9 + 7(i-1)], per check i:
          algorithm   1 fixed window, 2 sliding log, 3 sliding counter, 4 token bucket, 5 leaky bucket, 6 GCRA,
                      7 concurrency, 8 distinct, 9 calendar window, 10 GCRA warming up, 11 token bucket warming up
          a, b, c     fixed window: period, limit, window offset   | sliding log, counter: period, limit, 0
                      calendar window: nominal period (unused), limit, five window starts 'b0 b1 b2 b3 b4' (see below)
                      token bucket, leaky bucket, GCRA: interval (period / limit), capacity, 0
                      concurrency: lease timeout, limit, lease id (the request's; '' when it acquires nothing)
                      distinct: period, limit, the value's token (decimal digits; '' when cost is 0)
                      warming up: interval, capacity, 'warmUp coldFactor limit' (µs, a decimal, units)
          cost        units (0 inspects only)
          shadow      1 when the check may not deny the request, else 0
          maxWait     microseconds the check accepts to wait for a reserved slot (0: deny at once; token bucket,
                      leaky bucket and GCRA only)

ARGV[3 + 7N + q - 1]  (a batch only, N = #KEYS) the number of checks of request q, negative for a peek: the call
          then decides several requests, each made of the next checks, one after the other in that order, at the one
          time of the call, each all-or-nothing on its own exactly as a call of its own would; it replies a list of
          their replies. ARGV[2] is then ''.

Evaluate: phase 1 computes every check without writing; the request is allowed when every check with shadow = 0
allows it. Phase 2 writes only then, and only the checks that allowed (cost > 0). A denied request writes nothing;
the checks that would have allowed it report their state as if inspected with cost 0. The first write is always
one that Redis refuses when out of memory, so a full Redis fails the call before it writes anything.
Reservations: a check with shadow = 0 that denies, but whose retryAfter is at most its maxWait (algorithms 4, 5, 6),
does not deny the request: the request is admitted with a delay, the longest such retryAfter, if no other check
denies it. Then every check of algorithms 4, 5 and 6 is decided again at now + delay (where each one admits: taking
its slot now for then), and the others' resetAfter is seen from then (reduced by the delay); their writes happen at
now. Reply and TTLs of the re-decided checks are relative to now + delay, their TTLs set from now.
Reply (integers): { allowed (1|0), now, then per check: allowed (1|0), remaining, resetAfter, retryAfter, nextAfter,
          then per check: reclaimed, then delay (0 unless admitted with a reservation) }
          retryAfter is 0 when allowed, -1 when the cost exceeds what the policy can ever admit. nextAfter is the time
          until one more unit is available than remaining (0 when nothing is used, and always for concurrency; at
          most retryAfter of a denial). reclaimed is the number of expired slots that a concurrency check's
          admission removed (a peek: would remove); for a distinct check, 1 when its admission added a value that
          the window had not counted (a peek: would add); for a warm-up check (10, 11), the limit in force at its
          warmth; else 0.

Concurrency: an admitted request of cost c holds the lease <id> as c members '<id>:1' .. '<id>:c' of the check's
sorted set, scored by their expiry (now + lease timeout); a member is held while its expiry is after now. The write
phase removes expired members, after adding the lease's (reclaims them; a set with no held member counts as none, so they are then not
counted). remaining = limit - held; resetAfter = until the earliest held member expires (0 if none); retryAfter of a
denial = until the (held + cost - limit)-th earliest held member expires, clamped to [1 ms, 1 s] (a suggested wait:
releases free slots sooner). Releasing and renewing leases is lease.lua's.

Distinct: each subject presents at most `limit` distinct values per window [k * period, (k + 1) * period); a value
already counted in the window is admitted and changes nothing; any cost above 0 presents the value once. Limits up to
512 count exactly, in a set of the tokens; above 512 in a HyperLogLog (a value is seen when PFADD changes no
register, and a new value is admitted while PFCOUNT with it stays within the limit). The string '<key>:w' (same hash
tag, so same slot) says which window, and which form, the state counts: 's<windowStart>' or 'h<windowStart>'; a later
window that the clock stepped back out of counts until it ends, as for the fixed window. For a HyperLogLog, phase 1
learns whether a value is new by adding it and restoring the sketch's bytes, so it writes nothing in effect.
remaining = limit - count; resetAfter = until the window ends (0 when nothing is counted); retryAfter of a denial = until the window ends.

Calendar window: a fixed window whose boundaries follow a time zone's calendar (days of 23 to 25 hours, months of 28
to 31 days), which Lua cannot compute: the caller passes five consecutive window starts b0 < b1 < .. < b4 computed
around its own clock (b1 starts the window holding the caller's time), and the script picks the window that holds
its own time, [b0, b1), [b1, b2) or [b2, b3): a caller's clock off by less than a window still finds the right one;
one off by more fails the call rather than count in a wrong window. The state is the fixed window's,
'windowStart count'. A state of the current window, or of the next one (the clock stepped back), counts until that
window ends; any other counts as empty. Refunds take units off the window of ARGV[2] among [b0, b1) .. [b3, b4), if
the state still holds it. The Java reference is CalendarWindow.

Peek: evaluate without phase 2's writes. The reply is exactly the one evaluate would give at this moment (verdict,
and for an allowed request the state after its cost); no key is created, changed or given a new TTL.

Refund: gives back `cost` of every check, as consumed at ARGV[2], then inspects it with cost 0, one check after the
other. Used when checks in different Redis Cluster slots were evaluated separately and another slot denied (a
concurrency check then releases the lease it acquired; a distinct check, sent with a cost only when its admission
added its value, removes it from an exact set, while a HyperLogLog cannot forget and keeps it), and when a request
ended with an outcome that its rule does not count (count-when; never a concurrency or distinct check). What is given
back, as far as it still counts at `now`:
  GCRA, token bucket, leaky bucket  the stored time moves back by cost * interval; at or before now the key is deleted
                                    (a bucket is never fuller than its capacity, a TAT never before now)
  fixed window   count - cost (not below 0) if the state still holds the window of ARGV[2], keeping its TTL
  calendar       likewise, for the window of ARGV[2] among those of the five starts
  sliding log    up to `cost` members scored ARGV[2] are removed
  counter        the count of the window of ARGV[2] (current, or previous once the state moved on by one window)
                 drops by cost, not below 0, keeping its TTL
  distinct       the value's token leaves an exact set (only right at once, in the window it was added in)
A key without state has nothing to give back. The Java reference is LimitAlgorithm.refund; the differential test binds
them. Reply: as for evaluate, with the limit in force of a warm-up check (else 0) in place of the reclaimed counts,
and no delay.

Settle: per check, `cost` is the signed difference between what the request cost and what it reserved (its
estimate), and `maxWait` the time (microseconds) at which the request was admitted; `shadow` is unused. One check
after the other: a positive difference is charged, a negative one given back exactly as a refund of that many units
(above), then the check is inspected with cost 0. A charge consumes without a limit check (the work is done), so the
state may go past its limit: debt, which denies every request, an inspection too, until it has recovered. It creates
the state of a key that has none, and sets a TTL that covers the recovery:
  GCRA, token bucket, leaky bucket  the stored time (from now at the earliest) moves difference * interval later
  warming up     likewise, at the interval in force at the key's warmth (a cold key becomes warm from now)
  fixed window   count + difference, if the window of the admission is still the current one (a later window
                 owes nothing); a state of an earlier window is replaced by the admission's
  calendar       likewise, for the window of the admission among those of the five starts
  counter        the count of the admission's window grows: the current one, or the previous one once the state
                 moved on by one window; a window older than now's previous owes nothing
  sliding log, concurrency, distinct   not settled (the call fails)
Reply: as for a refund. The first write of a charge is SET, so a full Redis refuses the call before it writes.

State and TTL (every write sets one, no longer than the state matters):
  GCRA         string integer: theoretical arrival time; TTL until it
  token bucket string integer: time the bucket is full again; TTL until it
  leaky bucket string integer: time the bucket is empty again; TTL until it
  fixed window string 'windowStart count'; TTL until the window ends (a calendar window's too)
  sliding log  sorted set, one member '<now>:<n>' per unit, scored by its time; TTL until the newest is forgotten
  counter      string 'windowStart previous current'; TTL until both windows have slid out
  concurrency  sorted set, one member '<lease id>:<k>' per slot, scored by its expiry; TTL until the latest expires
  distinct     set of tokens (limit <= 512) or HyperLogLog, and '<key>:w' holding 's|h<windowStart>'; both with a
               TTL until the window ends
  warming up   string 'at since': the base algorithm's time and when the key was last cold; TTL until it + warmUp
               (an expired key is a cold one). A refund moves 'at' back, not before now, keeping the TTL
]]

local call = redis.call
local floor = math.floor
local ceil = math.ceil
local max = math.max
local min = math.min
local fmt = string.format
local find = string.find
local sub = string.sub

-- With an explicit time (tests), keys still expire on Redis's real clock, which does not follow the test's time:
-- TTLs then last at least an hour so that expiry never forgets state the test's time still needs. Every algorithm
-- ignores state that its own time has made stale, so only memory is affected.
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
  return ceil(max(micros, minTtl) / 1000)
end

-- Writes a GCRA key's TAT. It expires at the end of the second in which the TAT falls (never before it): gcra.lua
-- relies on that expiry to change a TAT in place within one second (decision 136), so every script that writes a
-- GCRA key sets it so.
local function setTat(key, at)
  if minTtl == 0 then
    call('SET', key, int(at), 'PXAT', ceil(at / 1000000) * 1000)
  else
    call('SET', key, int(at), 'PX', px(at - now))
  end
end

-- Outcomes: allowed, remaining, resetAfter, retryAfter, new value, ttl, nextAfter
local function allowed(remaining, reset, nextAfter, value, ttl)
  return 1, max(0, remaining), reset, 0, value, ttl, nextAfter
end

local function denied(remaining, reset, nextAfter, retry)
  local r = max(1, retry)
  return 0, max(0, remaining), reset, r, nil, nil, min(nextAfter, r)
end

local function never(remaining, reset, nextAfter)
  return 0, max(0, remaining), reset, -1, nil, nil, nextAfter
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

-- v: the stored TAT (a string or a number), or nil
local function gcraOf(v, interval, capacity, cost)
  local tat = now
  if v then
    tat = max(tonumber(v), now)
  end
  local tolerance = capacity * interval
  local remainingNow = floor((tolerance - (tat - now)) / interval)
  -- until a TAT ahead of now leaves room for one more unit than now (at least one)
  local function nextAfter(a)
    if a <= 0 then return 0 end
    return a - tolerance + (max(0, floor((tolerance - a) / interval)) + 1) * interval
  end
  if cost > capacity then
    return never(remainingNow, tat - now, nextAfter(tat - now))
  end
  local ahead = tat + cost * interval - now
  if ahead > tolerance then
    return denied(remainingNow, tat - now, nextAfter(tat - now), ahead - tolerance)
  end
  return allowed(floor((tolerance - ahead) / interval), ahead, nextAfter(ahead), now + ahead, ahead)
end

-- The state is the 'full at' time F, as in the reference: tokens = capacity - ceil((F - now) / interval).
local function gcra(key, interval, capacity, cost)
  return gcraOf(call('GET', key), interval, capacity, cost)
end

-- v: the stored 'full at' time (a string or a number), or nil
local function tokenBucketOf(v, interval, capacity, cost)
  local tokens, since = capacity, 0
  if v then
    local fullIn = tonumber(v) - now
    if fullIn > 0 then
      local missing = ceil(fullIn / interval)
      tokens = capacity - missing
      since = missing * interval - fullIn
    end
  end
  local function untilFull(t)
    if t >= capacity then return 0 end
    return (capacity - t) * interval - since
  end
  -- until one more token than now (at least one) is in a bucket full in fullIn
  local function nextAfter(fullIn)
    local missing = ceil(fullIn / interval)
    if missing == 0 then return 0 end
    return fullIn - (capacity - max(0, capacity - missing) - 1) * interval
  end
  if cost > capacity then
    local reset = untilFull(tokens)
    return never(tokens, reset, nextAfter(reset))
  end
  if tokens < cost then
    local reset = untilFull(tokens)
    return denied(tokens, reset, nextAfter(reset), (cost - tokens) * interval - since)
  end
  local reset = untilFull(tokens - cost)
  return allowed(tokens - cost, reset, nextAfter(reset), now + reset, reset)
end

local function tokenBucket(key, interval, capacity, cost)
  return tokenBucketOf(call('GET', key), interval, capacity, cost)
end

-- Warm-up of GCRA (10) and the token bucket (11), as dev.ratelimit.algorithm.WarmingUp: the state is 'at since' (the
-- base algorithm's time, and when the key was last cold); params is 'warmUp coldFactor limit'. A key without state,
-- or whose 'at' is warmUp or more before now, is cold (since = now). At warmth e = min(now - since, warmUp) the base
-- algorithm runs with a slower interval and a smaller capacity (IEEE doubles in the reference's order, so both give
-- the same integers), and the key is kept until it is cold (TTL + warmUp). The 8th value is the limit in force.
local function warm(key, algorithm, interval, capacity, params, cost)
  local w, f, limit = split3(params)
  local v = call('GET', key)
  local at, since
  if v then
    at, since = split2(v)
  end
  if not v or now - at >= w then
    at = nil
    since = now
  end
  local elapsed = max(0, now - since)
  if elapsed < w then
    local span = w + (f - 1) * elapsed
    interval = floor(interval * f * w / span)
    capacity = max(1, floor(capacity * span / (f * w)))
    limit = max(1, floor(limit * span / (f * w)))
  end
  local ok, remaining, reset, retry, value, ttl, nextAfter
  if algorithm == 10 then
    ok, remaining, reset, retry, value, ttl, nextAfter = gcraOf(at, interval, capacity, cost)
  else
    ok, remaining, reset, retry, value, ttl, nextAfter = tokenBucketOf(at, interval, capacity, cost)
  end
  if ok == 1 then
    value = int(value) .. ' ' .. int(since)
    ttl = ttl + w
  end
  return ok, remaining, reset, retry, value, ttl, nextAfter, limit
end

-- The state is the 'empty at' time E, as in the reference: level = ceil((E - now) / interval).
local function leakyBucket(key, interval, capacity, cost)
  local v = call('GET', key)
  local level, since = 0, 0
  if v then
    local emptyIn = tonumber(v) - now
    if emptyIn > 0 then
      level = ceil(emptyIn / interval)
      since = level * interval - emptyIn
    end
  end
  local function untilEmpty(l)
    if l == 0 then return 0 end
    return l * interval - since
  end
  -- until a bucket empty in emptyIn has room for one more unit than now (at least one)
  local function nextAfter(emptyIn)
    local l = ceil(emptyIn / interval)
    if l == 0 then return 0 end
    return emptyIn - (min(l, capacity) - 1) * interval
  end
  if cost > capacity then
    local reset = untilEmpty(level)
    return never(capacity - level, reset, nextAfter(reset))
  end
  if level + cost > capacity then
    local reset = untilEmpty(level)
    return denied(capacity - level, reset, nextAfter(reset), (level + cost - capacity) * interval - since)
  end
  local reset = untilEmpty(level + cost)
  return allowed(capacity - level - cost, reset, nextAfter(reset), now + reset, reset)
end

-- Decides a cost in a window that counts `count` and ends in `untilEnd` (fixed and calendar windows alike).
local function windowOutcome(windowStart, untilEnd, count, limit, cost)
  if cost > limit then
    if count > 0 then return never(limit - count, untilEnd, untilEnd) end
    return never(limit, 0, 0)
  end
  if count + cost > limit then
    return denied(limit - count, untilEnd, untilEnd, untilEnd)
  end
  local counted = count + cost
  local reset = 0
  if counted > 0 then reset = untilEnd end
  return allowed(limit - counted, reset, reset, int(windowStart) .. ' ' .. int(counted), untilEnd)
end

local function fixedWindow(key, period, limit, offset, cost)
  local windowStart = floor((now - offset) / period) * period + offset
  local count = 0
  local v = call('GET', key)
  if v then
    local start, c = split2(v)
    -- the current window, or a later one that the clock stepped back out of: it counts until it ends
    if start >= windowStart and (start - offset) % period == 0 then
      windowStart, count = start, c
    end
  end
  return windowOutcome(windowStart, windowStart + period - now, count, limit, cost)
end

local function split5(v)
  local b = {}
  for part in string.gmatch(v, '%-?%d+') do
    b[#b + 1] = tonumber(part)
  end
  return b
end

-- The index i (0-based) of the window [b_i, b_i+1) that holds t among the first `last` + 1 windows, or nil.
local function calendarIndex(b, t, last)
  for i = 0, last do
    if t >= b[i + 1] and t < b[i + 2] then return i end
  end
  return nil
end

local function calendarWindow(key, limit, bounds, cost)
  local b = split5(bounds)
  local i = calendarIndex(b, now, 2)
  if not i then
    error('ratelimit: the calendar window boundaries ' .. bounds .. ' do not hold the time ' .. int(now)
      .. ' (the caller\'s clock is off by more than a window)')
  end
  local windowStart, windowEnd = b[i + 1], b[i + 2]
  local count = 0
  local v = call('GET', key)
  if v then
    local start, c = split2(v)
    -- the current window, or the next one that the clock stepped back out of: it counts until it ends
    if start == windowStart then
      count = c
    elseif start == windowEnd then
      windowStart, windowEnd, count = windowEnd, b[i + 3], c
    end
  end
  return windowOutcome(windowStart, windowEnd - now, count, limit, cost)
end

-- Writes nothing; the write phase adds the members. Entries at t are live while t > now - period.
local function slidingLog(key, period, limit, cost)
  local live = '(' .. int(now - period)
  local count = call('ZCOUNT', key, live, '+inf')
  local untilEmpty, untilNext = 0, 0
  if count > 0 then
    untilEmpty = tonumber(call('ZRANGE', key, -1, -1, 'WITHSCORES')[2]) + period - now
    untilNext = tonumber(call('ZRANGEBYSCORE', key, live, '+inf', 'WITHSCORES', 'LIMIT', 0, 1)[2]) + period - now
  end
  if cost > limit then
    return never(limit - count, untilEmpty, untilNext)
  end
  if count + cost > limit then
    local blocking = call('ZRANGEBYSCORE', key, live, '+inf', 'WITHSCORES', 'LIMIT', count + cost - limit - 1, 1)
    return denied(limit - count, untilEmpty, untilNext, tonumber(blocking[2]) + period - now)
  end
  if cost == 0 then
    return allowed(limit - count, untilEmpty, untilNext, nil, 0)
  end
  -- the new entries are now's; a live one may be later (the clock stepped back)
  if count == 0 or untilNext > period then
    untilNext = period
  end
  local reset = max(untilEmpty, period)
  return allowed(limit - count - cost, reset, untilNext, count, reset)
end

-- Writes nothing; the write phase reclaims expired slots and adds the lease. Slots are held while expiry > now.
-- Value: the expired slots the admission reclaims (none when no slot is held: the set then counts as none).
local function concurrency(key, timeout, limit, cost)
  local after = '(' .. int(now)
  local held = call('ZCOUNT', key, after, '+inf')
  local reset = 0
  if held > 0 then
    reset = tonumber(call('ZRANGEBYSCORE', key, after, '+inf', 'WITHSCORES', 'LIMIT', 0, 1)[2]) - now
  end
  if cost > limit then
    return never(limit - held, reset, 0)
  end
  if held + cost > limit then
    local blocking = call('ZRANGEBYSCORE', key, after, '+inf', 'WITHSCORES', 'LIMIT', held + cost - limit - 1, 1)
    return denied(limit - held, reset, 0, min(1000000, max(1000, tonumber(blocking[2]) - now)))
  end
  if cost == 0 then
    return allowed(limit - held, reset, 0, 0, 0)
  end
  local reclaimable = 0
  if held > 0 then
    reclaimable = call('ZCARD', key) - held
    reset = min(reset, timeout)
  else
    reset = timeout
  end
  return allowed(limit - held - cost, reset, 0, reclaimable, 0)
end

local EXACT_MAX_LIMIT = 512

-- The window of a distinct check and whether its state counts: '<key>:w' holds 's<windowStart>' for an exact set or
-- 'h<windowStart>' for a HyperLogLog; the current window, or a later one that the clock stepped back out of, counts
-- until it ends (a state of the other form, left by the rule's earlier limit, does not).
local function distinctWindow(key, period, exact)
  local windowStart = floor(now / period) * period
  local v = call('GET', key .. ':w')
  if v and sub(v, 1, 1) == (exact and 's' or 'h') then
    local start = tonumber(sub(v, 2))
    if start >= windowStart and start % period == 0 then
      return start, true
    end
  end
  return windowStart, false
end

-- Value: 1 when the admission adds the value (it was not counted in the window), else 0.
local function distinct(key, period, limit, value, cost)
  local exact = limit <= EXACT_MAX_LIMIT
  local windowStart, current = distinctWindow(key, period, exact)
  local untilEnd = windowStart + period - now
  local count = 0
  if current then
    count = call(exact and 'SCARD' or 'PFCOUNT', key)
  end
  local reset = 0
  if count > 0 then reset = untilEnd end
  -- values come back only when the window ends: the next one is as far as the full reset
  if cost == 0 then
    return allowed(limit - count, reset, reset, 0, 0)
  end
  local after
  if not current then
    after = 1
  elseif exact then
    if call('SISMEMBER', key, value) == 1 then
      return allowed(limit - count, reset, reset, 0, 0)
    end
    after = count + 1
  else
    local saved = call('GET', key)
    if call('PFADD', key, value) == 0 then
      return allowed(limit - count, reset, reset, 0, 0)
    end
    after = call('PFCOUNT', key)
    call('SET', key, saved, 'KEEPTTL')
  end
  if after > limit then
    return denied(limit - count, reset, untilEnd, untilEnd)
  end
  return allowed(limit - after, untilEnd, untilEnd, 1, untilEnd)
end

-- Adds the value of an admitted distinct check, starting the state afresh when it counted no current window.
local function addDistinct(key, period, limit, value, ttl)
  local exact = limit <= EXACT_MAX_LIMIT
  local windowStart, current = distinctWindow(key, period, exact)
  -- SET first: the first write must be one Redis refuses when out of memory (see addLogEntries)
  call('SET', key .. ':w', (exact and 's' or 'h') .. int(windowStart), 'PX', px(ttl))
  if not current then
    call('DEL', key)
  end
  call(exact and 'SADD' or 'PFADD', key, value)
  call('PEXPIRE', key, px(ttl))
end

local function weighted(count, overlap, period)
  return floor(count * overlap / period)
end

-- The first elapsed time at which a previous window of count weighs at most room: the closed form, then moved to
-- where weighted itself first fits (products beyond 2^53 round).
local function firstFit(count, room, period)
  if count <= room then return 0 end
  local e = floor(period - (room + 1) * period / count) + 1
  if e > period then e = period end
  while e > 0 and weighted(count, period - e + 1, period) <= room do
    e = e - 1
  end
  while weighted(count, period - e, period) > room do
    e = e + 1
  end
  return e
end

local function slidingCounter(key, period, limit, cost)
  local windowStart = floor(now / period) * period
  local previous, current = 0, 0
  local v = call('GET', key)
  if v then
    local start, p, c = split3(v)
    -- the current window, or a later one that the clock stepped back out of, seen from its start
    if start >= windowStart and start % period == 0 then
      windowStart, previous, current = start, p, c
    elseif start == windowStart - period then
      previous = c
    end
  end
  local elapsed = now - windowStart
  local estimate = weighted(previous, period - max(0, elapsed), period) + current
  local function untilEmpty(c)
    if c > 0 then return windowStart + 2 * period - now end
    if previous > 0 then return windowStart + period - now end
    return 0
  end
  -- until the estimate of (previous, c) is one lower than now
  local function nextAfter(c)
    local weight = weighted(previous, period - max(0, elapsed), period)
    if weight > 0 then return firstFit(previous, weight - 1, period) - elapsed end
    if c > 0 then return period - elapsed + firstFit(c, c - 1, period) end
    return 0
  end
  if cost > limit then
    return never(limit - estimate, untilEmpty(current), nextAfter(current))
  end
  if estimate + cost > limit then
    local retry
    if current + cost <= limit then
      retry = firstFit(previous, limit - current - cost, period) - elapsed
    else
      retry = period - elapsed + firstFit(current, limit - cost, period)
    end
    return denied(limit - estimate, untilEmpty(current), nextAfter(current), retry)
  end
  local counted = current + cost
  local reset = untilEmpty(counted)
  return allowed(limit - estimate - cost, reset, nextAfter(counted),
    int(windowStart) .. ' ' .. int(previous) .. ' ' .. int(counted), reset)
end

local function compute(i, cost)
  local base = 3 + 7 * (i - 1)
  local algorithm = tonumber(ARGV[base])
  local a, b = tonumber(ARGV[base + 1]), tonumber(ARGV[base + 2])
  local key = KEYS[i]
  if algorithm == 6 then return gcra(key, a, b, cost) end
  if algorithm == 4 then return tokenBucket(key, a, b, cost) end
  if algorithm == 5 then return leakyBucket(key, a, b, cost) end
  if algorithm == 1 then return fixedWindow(key, a, b, tonumber(ARGV[base + 3]), cost) end
  if algorithm == 2 then return slidingLog(key, a, b, cost) end
  if algorithm == 3 then return slidingCounter(key, a, b, cost) end
  if algorithm == 7 then return concurrency(key, a, b, cost) end
  if algorithm == 8 then return distinct(key, a, b, ARGV[base + 3], cost) end
  if algorithm == 9 then return calendarWindow(key, b, ARGV[base + 3], cost) end
  if algorithm == 10 or algorithm == 11 then return warm(key, algorithm, a, b, ARGV[base + 3], cost) end
  error('ratelimit: unknown algorithm ' .. tostring(ARGV[base]))
end

-- Runs a command on a key with many arguments, at most 1,000 at a time: Lua's unpack fails beyond about 8,000.
local function inChunks(command, key, args, step)
  for first = 1, #args, step do
    call(command, key, unpack(args, first, min(first + step - 1, #args)))
  end
end

-- The first write of every path is a command Redis refuses when it is out of memory (ZADD, SET): Redis checks a
-- script's memory only at its first write, so a full Redis refuses the whole call before anything is written, whatever
-- the algorithm. Expired entries are therefore removed after the new ones are added (they never collide: the new ones
-- are scored now, the removed ones before now - period).
local function addLogEntries(key, period, liveCount, cost, ttl)
  local score = int(now)
  local args = {}
  local n = liveCount
  for _ = 1, cost do
    repeat
      n = n + 1
    until not call('ZSCORE', key, score .. ':' .. n)
    args[#args + 1] = score
    args[#args + 1] = score .. ':' .. n
  end
  inChunks('ZADD', key, args, 1000)
  call('ZREMRANGEBYSCORE', key, '-inf', int(now - period))
  call('PEXPIRE', key, px(ttl))
end

local function leaseMembers(id, slots)
  local members = {}
  for k = 1, slots do
    members[k] = id .. ':' .. k
  end
  return members
end

-- Adds the lease's slots, reclaims the expired ones (after adding: ZADD is the first write, see addLogEntries; the new
-- slots expire after now), and lets the key expire with its latest slot.
local function addLease(key, timeout, id, cost)
  local expiry = int(now + timeout)
  local args = {}
  for k = 1, cost do
    args[#args + 1] = expiry
    args[#args + 1] = id .. ':' .. k
  end
  inChunks('ZADD', key, args, 1000)
  call('ZREMRANGEBYSCORE', key, '-inf', int(now))
  call('PEXPIRE', key, px(tonumber(call('ZRANGE', key, -1, -1, 'WITHSCORES')[2]) - now))
end

local function refund(i, admittedAt, cost)
  local base = 3 + 7 * (i - 1)
  local algorithm = tonumber(ARGV[base])
  local a, b = tonumber(ARGV[base + 1]), tonumber(ARGV[base + 2])
  local key = KEYS[i]
  if cost == 0 then return end
  if algorithm == 7 then
    inChunks('ZREM', key, leaseMembers(ARGV[base + 3], cost), 1000)
  elseif algorithm == 8 then
    if b <= EXACT_MAX_LIMIT then
      redis.pcall('SREM', key, ARGV[base + 3])
    end
  elseif algorithm == 9 then
    local v = call('GET', key)
    if not v then return end
    local bounds = split5(ARGV[base + 3])
    local j = calendarIndex(bounds, admittedAt, 3)
    local start, count = split2(v)
    if j and start == bounds[j + 1] then
      call('SET', key, int(start) .. ' ' .. int(max(0, count - cost)), 'KEEPTTL')
    end
  elseif algorithm >= 10 then
    local v = call('GET', key)
    if v then
      local at, since = split2(v)
      -- a key whose quota is whole (a cold one too) has nothing to give back; 'at' never moves later
      if at > now then
        call('SET', key, int(max(now, at - cost * a)) .. ' ' .. int(since), 'KEEPTTL')
      end
    end
  elseif algorithm >= 4 then
    local v = call('GET', key)
    if v then
      local at = tonumber(v) - cost * a
      if at > now and algorithm == 6 then
        setTat(key, at)
      elseif at > now then
        call('SET', key, int(at), 'PX', px(at - now))
      else
        call('DEL', key)
      end
    end
  elseif algorithm == 2 then
    local members = call('ZRANGEBYSCORE', key, int(admittedAt), int(admittedAt), 'LIMIT', 0, cost)
    if #members > 0 then
      inChunks('ZREM', key, members, 1000)
    end
  else
    local v = call('GET', key)
    if not v then return end
    if algorithm == 1 then
      local offset = tonumber(ARGV[base + 3])
      local start, count = split2(v)
      if start == floor((admittedAt - offset) / a) * a + offset then
        call('SET', key, int(start) .. ' ' .. int(max(0, count - cost)), 'KEEPTTL')
      end
    else
      local start, previous, current = split3(v)
      local admittedWindow = floor(admittedAt / a) * a
      if start == admittedWindow then
        current = max(0, current - cost)
      elseif start == admittedWindow + a then
        previous = max(0, previous - cost)
      end
      call('SET', key, int(start) .. ' ' .. int(previous) .. ' ' .. int(current), 'KEEPTTL')
    end
  end
end

-- Adds `units` to the window that starts at `window` (ending at `windowEnd`) if the state counts it or an earlier one;
-- a state of a later window (the clock stepped back out of it) is left as it is.
local function chargeWindow(key, window, windowEnd, units)
  local count = units
  local v = call('GET', key)
  if v then
    local start, c = split2(v)
    if start == window then
      count = c + units
    elseif start > window then
      return
    end
  end
  call('SET', key, int(window) .. ' ' .. int(count), 'PX', px(windowEnd - now))
end

-- Charges `units` to check i, admitted at admittedAt, without a limit check (see Settle above).
local function charge(i, admittedAt, units)
  local base = 3 + 7 * (i - 1)
  local algorithm = tonumber(ARGV[base])
  local a = tonumber(ARGV[base + 1])
  local key = KEYS[i]
  if algorithm == 10 or algorithm == 11 then
    local w, f = split3(ARGV[base + 3])
    local v = call('GET', key)
    local at, since
    if v then
      at, since = split2(v)
    end
    if not v or now - at >= w then
      at, since = now, now
    end
    local elapsed = max(0, now - since)
    local interval = a
    if elapsed < w then
      interval = floor(a * f * w / (w + (f - 1) * elapsed))
    end
    at = max(at, now) + units * interval
    call('SET', key, int(at) .. ' ' .. int(since), 'PX', px(at - now + w))
  elseif algorithm == 4 or algorithm == 5 or algorithm == 6 then
    local v = call('GET', key)
    local at = now
    if v then
      at = max(tonumber(v), now)
    end
    at = at + units * a
    if algorithm == 6 then
      setTat(key, at)
    else
      call('SET', key, int(at), 'PX', px(at - now))
    end
  elseif algorithm == 1 then
    local offset = tonumber(ARGV[base + 3])
    local window = floor((admittedAt - offset) / a) * a + offset
    if window >= floor((now - offset) / a) * a + offset then
      chargeWindow(key, window, window + a, units)
    end
  elseif algorithm == 9 then
    local bounds = split5(ARGV[base + 3])
    local current = calendarIndex(bounds, now, 2)
    local j = calendarIndex(bounds, admittedAt, 3)
    if current and j and j >= current then
      chargeWindow(key, bounds[j + 1], bounds[j + 2], units)
    end
  elseif algorithm == 3 then
    local window = floor(admittedAt / a) * a
    if window < floor(now / a) * a - a then return end
    local start, previous, current = window, 0, units
    local v = call('GET', key)
    if v then
      local s, p, c = split3(v)
      if s == window then
        start, previous, current = s, p, c + units
      elseif s == window + a then
        start, previous, current = s, p + units, c
      elseif s < window then
        if s == window - a then previous = c end
      else
        return
      end
    end
    local ttl = start + a - now
    if current > 0 then ttl = start + 2 * a - now end
    call('SET', key, int(start) .. ' ' .. int(previous) .. ' ' .. int(current), 'PX', px(ttl))
  end
end

local n = #KEYS
local peek = ARGV[2] == 'peek'

-- Puts check i, inspected with cost 0, into the reply of a refund or a settlement: its 5 values, and after the 5 values
-- of every check the limit in force of a warm-up check (else 0).
local function inspect(reply, i)
  local ok, remaining, reset, retry, _, _, nextAfter, limit = compute(i, 0)
  local r = 2 + 5 * (i - 1)
  reply[r + 1], reply[r + 2], reply[r + 3], reply[r + 4], reply[r + 5] = ok, remaining, reset, retry, nextAfter
  reply[2 + 5 * n + i] = limit or 0
end

if ARGV[2] == 'settle' then
  -- every check is vetted before anything is written, so that a call that fails writes nothing
  for i = 1, n do
    local base = 3 + 7 * (i - 1)
    local algorithm = ARGV[base]
    if algorithm == '2' or algorithm == '7' or algorithm == '8' then
      error('ratelimit: algorithm ' .. algorithm .. ' cannot be settled after the response')
    end
    if algorithm == '9' and not calendarIndex(split5(ARGV[base + 3]), now, 2) then
      error('ratelimit: the calendar window boundaries ' .. ARGV[base + 3] .. ' do not hold the time ' .. int(now)
        .. ' (the caller\'s clock is off by more than a window)')
    end
  end
  local reply = { 1, now }
  for i = 1, n do
    local base = 3 + 7 * (i - 1)
    local difference = tonumber(ARGV[base + 4])
    if difference > 0 then
      charge(i, tonumber(ARGV[base + 6]), difference)
    elseif difference < 0 then
      refund(i, tonumber(ARGV[base + 6]), -difference)
    end
    inspect(reply, i)
  end
  return reply
end

if ARGV[2] ~= '' and not peek then
  local admittedAt = tonumber(ARGV[2])
  local reply = { 1, now }
  for i = 1, n do
    refund(i, admittedAt, tonumber(ARGV[3 + 7 * (i - 1) + 4]))
    inspect(reply, i)
  end
  return reply
end

-- Evaluates (or peeks at) the request made of checks first .. first + n - 1 of the call; returns its reply.
local function decide(first, n, peek)
  local reply = { 1, now }
  local values, ttls, limits = {}, {}, {}
  local verdict = 1
  local delay = 0
  for j = 1, n do
    local i = first + j - 1
    local base = 3 + 7 * (i - 1)
    local ok, remaining, reset, retry, value, ttl, nextAfter, limit = compute(i, tonumber(ARGV[base + 4]))
    local r = 2 + 5 * (j - 1)
    reply[r + 1], reply[r + 2], reply[r + 3], reply[r + 4], reply[r + 5] = ok, remaining, reset, retry, nextAfter
    values[j], ttls[j], limits[j] = value, ttl, limit
    if ok == 0 and ARGV[base + 5] == '0' then
      if retry > 0 and retry <= tonumber(ARGV[base + 6]) then
        delay = max(delay, retry)
      else
        verdict = 0
      end
    end
  end
  reply[1] = verdict

  -- A reservation: the checks of the reservable algorithms are decided at the time the request proceeds.
  if verdict == 1 and delay > 0 then
    local arrival = now
    now = arrival + delay
    for j = 1, n do
      local i = first + j - 1
      local base = 3 + 7 * (i - 1)
      local r = 2 + 5 * (j - 1)
      local algorithm = ARGV[base]
      if algorithm == '4' or algorithm == '5' or algorithm == '6' then
        local ok, remaining, reset, retry, value, ttl, nextAfter = compute(i, tonumber(ARGV[base + 4]))
        reply[r + 1], reply[r + 2], reply[r + 3], reply[r + 4], reply[r + 5] = ok, remaining, reset, retry, nextAfter
        values[j] = value
        if ttl then ttls[j] = ttl + delay end
      else
        reply[r + 3] = max(0, reply[r + 3] - delay)
        reply[r + 5] = max(0, reply[r + 5] - delay)
      end
    end
    now = arrival
  end

  for j = 1, n do
    local i = first + j - 1
    local r = 2 + 5 * (j - 1)
    if reply[r + 1] == 1 then
      local base = 3 + 7 * (i - 1)
      local cost = tonumber(ARGV[base + 4])
      if verdict == 0 then
        local _, remaining, reset, _, _, _, nextAfter = compute(i, 0)
        reply[r + 2], reply[r + 3], reply[r + 5] = remaining, reset, nextAfter
      elseif cost > 0 and not peek then
        if ARGV[base] == '2' then
          addLogEntries(KEYS[i], tonumber(ARGV[base + 1]), values[j], cost, ttls[j])
        elseif ARGV[base] == '7' then
          addLease(KEYS[i], tonumber(ARGV[base + 1]), ARGV[base + 3], cost)
        elseif ARGV[base] == '8' then
          if values[j] == 1 then
            addDistinct(KEYS[i], tonumber(ARGV[base + 1]), tonumber(ARGV[base + 2]), ARGV[base + 3], ttls[j])
          end
        elseif ARGV[base] == '6' then
          setTat(KEYS[i], values[j])
        else
          call('SET', KEYS[i], type(values[j]) == 'number' and int(values[j]) or values[j], 'PX', px(ttls[j]))
        end
      end
    end
  end
  for j = 1, n do
    local base = 3 + 7 * (first + j - 2)
    local reclaimed = 0
    if verdict == 1 and (ARGV[base] == '7' or ARGV[base] == '8') and reply[3 + 5 * (j - 1)] == 1
        and ARGV[base + 4] ~= '0' then
      reclaimed = values[j]
    elseif limits[j] then
      -- a warm-up check: the limit in force
      reclaimed = limits[j]
    end
    reply[2 + 5 * n + j] = reclaimed
  end
  -- after the 5 values per check and the reclaimed (or added) value per check
  if verdict == 1 then
    reply[3 + 6 * n] = delay
  else
    reply[3 + 6 * n] = 0
  end
  return reply
end

-- A batch: after the checks' arguments, one per request, its number of checks (negative: a peek). The requests are
-- decided one after the other, in that order, at the one time of the call.
if #ARGV > 2 + 7 * n then
  local replies = {}
  local first = 1
  for q = 1, #ARGV - 2 - 7 * n do
    local size = tonumber(ARGV[2 + 7 * n + q])
    replies[q] = decide(first, (size < 0) and -size or size, size < 0)
    first = first + ((size < 0) and -size or size)
  end
  return replies
end
return decide(1, n, peek)

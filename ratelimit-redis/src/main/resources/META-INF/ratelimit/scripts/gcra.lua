--[[
gcra.lua: the fast path of ratelimit.lua for calls whose checks are all GCRA (the default algorithm) and evaluate.

The same maths as ratelimit.lua's gcra function and the Java reference dev.ratelimit.algorithm.Gcra; the
differential test binds all three. It exists because Redis runs a script's whole body on every call, and because the
per-check work is what a batch cannot share (issue 34, decision 136): it reads no argument per check when the
call's requests share their shape (else one), builds no table per request, and answers one flat list. The common case (every check admits)
takes the shortest path: what a denial or an inspection reports is computed only when a request is denied.

KEYS[i]   state key of check i; none in a Redis Cluster batch across hash slots (run with a shebang that allows them,
          decision 140): its keys then follow the arguments below, then their number, and are read one GET each
          (a command inside a script may not span slots)
ARGV[1]   now in microseconds, or '' for redis.call('TIME') (an explicit time is for tests only; TTLs then last at
          least an hour, see ratelimit.lua)
ARGV[2]   S, the number of distinct specs of the call, sent as -S when no key occurs twice in the call: the script
          then keeps no table of what the call wrote (8% of a batched call's Redis CPU with one check per request,
          16% with three: decision 137)
ARGV[3]   T: when every request of the call has the same checks' specs in the same order (the common case), their
          number, else 0
ARGV[4 + 4(s-1) ..]  spec s: interval (period / limit, µs), capacity (burst), cost, shadow (0|1)
then      T > 0: the spec of each of the T checks of every request (the call has #KEYS / T requests);
          T = 0: the spec of each check i (N = #KEYS checks), then each request's number of checks
          The requests are decided one after the other at the call's one time, each all-or-nothing on its own.
Reply     one flat list: now, then per request either its checks' resetAfter (how far the TAT is ahead of now, never
          negative) when every check admitted, from which the caller computes remaining and nextAfter (decision
          130), or -1 (admitted, a shadow check denied) or -2 (denied) and then per check allowed (1|0), remaining,
          resetAfter, retryAfter (-1 = never), nextAfter (until one more unit than remaining, at least one; 0 when the
          TAT is not ahead of now), as ratelimit.lua's without its reclaimed values and delay
State     string integer: the theoretical arrival time (TAT). The key expires at the end of the second in which the
          TAT falls (PXAT), never before the TAT; a write whose TAT falls in the same second as the stored one
          changes the value in place (INCRBY) and leaves the expiry, which is what most writes are (decision 136).
          Every script that writes a GCRA key (ratelimit.lua, sync.lua) sets the same expiry, so that it holds.
]]

local call = redis.call
local keys, argc = KEYS, #ARGV
local across = #keys == 0
if across then
  local n = tonumber(ARGV[argc])
  argc = argc - 1 - n
  keys = {}
  for i = 1, n do
    keys[i] = ARGV[argc + i]
  end
end
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

-- the specs, four values each (interval, capacity, cost, shadow) in one table
local specs = tonumber(ARGV[2])
local distinct = specs < 0
if distinct then
  specs = -specs
end
local spec = {}
for a = 4, 3 + 4 * specs, 4 do
  spec[a - 3], spec[a - 2], spec[a - 1], spec[a] = tonumber(ARGV[a]), tonumber(ARGV[a + 1]), tonumber(ARGV[a + 2]),
      ARGV[a + 3] ~= '0'
end
local total = #keys
-- the spec of check j of a request: the call's one shape (template > 0), or ARGV[checksAt + i] for check i of the call
local template = tonumber(ARGV[3])
local checksAt = 3 + 4 * specs
local countsAt = checksAt + total
local requests = (template > 0) and total / template or argc - countsAt
local single = (template == 1) and tonumber(ARGV[checksAt + 1])
local shape
local fast, fastCost, fastTolerance, fastOld, fastAhead
if template > 1 then
  shape = {}
  for j = 1, template do
    shape[j] = tonumber(ARGV[checksAt + j])
  end
  -- the common multi-check call (decision 139): Redis's clock, distinct keys, every check of the shape consuming
  -- (0 < cost <= capacity), so a request that admits is decided and written in two short loops, from values
  -- computed once per call; a request that does not falls through to the general path, which writes nothing first
  fast = ARGV[1] == '' and distinct
  if fast then
    fastCost, fastTolerance, fastOld, fastAhead = {}, {}, {}, {}
    for j = 1, template do
      local a = 4 * shape[j]
      local interval, capacity, cost = spec[a - 3], spec[a - 2], spec[a - 1]
      if cost > capacity or cost == 0 then
        fast = false
      end
      fastCost[j], fastTolerance[j] = cost * interval, capacity * interval
    end
  end
end

-- Every key's value, read at once; when a key occurs twice in the call, what the call writes is tracked in written,
-- so that a request reads what the requests before it in the call wrote, as if each had read Redis.
local stored
if across then
  stored = {}
  for i = 1, total do
    stored[i] = call('GET', keys[i])
  end
else
  stored = call('MGET', unpack(keys))
end
local written = (total > 1 and not distinct) and {} or nil

-- Writes a new TAT, on Redis's clock, over the stored one (old, nil when none): in place while it stays within the
-- end of the stored one's second (a TAT never moves back), else with its own second's end as the expiry. Numbers are
-- formatted here: one passed as is goes to Redis through a floating-point %.17g, which costs more.
local function write(key, old, tat)
  if old and tat <= ceil(old / 1000000) * 1000000 then
    call('INCRBY', key, fmt('%d', tat - old))
  else
    call('SET', key, fmt('%d', tat), 'PXAT', fmt('%d', ceil(tat / 1000000) * 1000))
  end
end

-- Writes a new TAT over the stored one (old, nil when none; a key that the call wrote holds what it wrote).
local function store(key, old, tat)
  if written then
    old = written[key] or old
    written[key] = tat
  end
  if test then
    -- a test's time is not Redis's: at least an hour, as ratelimit.lua
    local ttl = tat - now
    if ttl < 3600000000 then
      ttl = 3600000000
    end
    call('SET', key, fmt('%d', tat), 'PX', ceil(ttl / 1000))
    return
  end
  write(key, old, tat)
end

local reply = { now }
local size = 1
local first = 1
local olds, tats, specOf, aheads

for q = 1, requests do
  local n = (template > 0) and template or tonumber(ARGV[countsAt + q])
  local done = false
  if n == 1 then
    -- the common request, one check that admits: no table
    local a = 4 * (single or tonumber(ARGV[checksAt + first]))
    local interval, capacity, cost = spec[a - 3], spec[a - 2], spec[a - 1]
    local key = keys[first]
    local old = written and written[key]
    if old == nil then
      old = tonumber(stored[first])
    end
    local tat = old or now
    if tat < now then
      tat = now
    end
    local ahead = tat + cost * interval - now
    if cost <= capacity and ahead <= capacity * interval then
      if cost ~= 0 then
        if written or test then
          store(key, old, now + ahead)
        else
          -- write, inlined for the commonest check of all: a lone check of a call whose keys are distinct (2-4% of
          -- the call, decision 138)
          tat = now + ahead
          if old and tat <= ceil(old / 1000000) * 1000000 then
            call('INCRBY', key, fmt('%d', tat - old))
          else
            call('SET', key, fmt('%d', tat), 'PXAT', fmt('%d', ceil(tat / 1000000) * 1000))
          end
        end
      end
      size = size + 1
      reply[size] = ahead
      done = true
    end
  end
  if fast then
    -- decide every check, then, when all admit, write them all (nothing is written before the verdict)
    local admit = true
    for j = 1, n do
      local old = tonumber(stored[first + j - 1])
      local tat = old or now
      if tat < now then
        tat = now
      end
      local ahead = tat + fastCost[j] - now
      if ahead > fastTolerance[j] then
        admit = false
        break
      end
      fastOld[j], fastAhead[j] = old, ahead
    end
    if admit then
      for j = 1, n do
        local ahead = fastAhead[j]
        write(keys[first + j - 1], fastOld[j], now + ahead)
        reply[size + j] = ahead
      end
      size = size + n
      done = true
    end
  end
  if not done then
    -- Phase 1: decide every check; nothing is written yet. Check j of the request is check first + j - 1 of the call.
    local verdict, short = 1, true
    if not olds then
      olds, tats, specOf, aheads = {}, {}, {}, {}
    end
    for j = 1, n do
      local a = 4 * (shape and shape[j] or single or tonumber(ARGV[checksAt + first + j - 1]))
      local interval, capacity, cost = spec[a - 3], spec[a - 2], spec[a - 1]
      local old = written and written[keys[first + j - 1]]
      if old == nil then
        old = tonumber(stored[first + j - 1])
      end
      local tat = old or now
      if tat < now then
        tat = now
      end
      local ahead = tat + cost * interval - now
      olds[j], tats[j], specOf[j] = old, tat, a
      if cost <= capacity and ahead <= capacity * interval then
        aheads[j] = ahead
      else
        aheads[j] = false
        short = false
        if not spec[a] then
          verdict = 0
        end
      end
    end

    -- Phase 2: admitted, so write what the checks consumed
    if verdict == 1 then
      for j = 1, n do
        if aheads[j] and spec[specOf[j] - 1] ~= 0 then
          store(keys[first + j - 1], olds[j], now + aheads[j])
        end
      end
    end
    if short then
      for j = 1, n do
        reply[size + j] = aheads[j]
      end
      size = size + n
    else
      -- the full reply: -1 admitted (a shadow check denied), -2 denied, then five values per check; a check that
      -- admitted reports what it consumed, or, when the request was denied, what it would have (inspected)
      size = size + 1
      reply[size] = (verdict == 1) and -1 or -2
      for j = 1, n do
        local a = specOf[j]
        local interval, capacity, cost = spec[a - 3], spec[a - 2], spec[a - 1]
        local tolerance = capacity * interval
        local tat = tats[j]
        local r = size + 5 * j - 4
        if aheads[j] then
          local ahead = aheads[j]
          if verdict == 0 then
            ahead = tat - now
          end
          local remaining = floor((tolerance - ahead) / interval)
          if remaining < 0 then
            remaining = 0
          end
          local nextAfter = 0
          if ahead > 0 then
            nextAfter = ahead - tolerance + (remaining + 1) * interval
          end
          reply[r], reply[r + 1], reply[r + 2], reply[r + 3], reply[r + 4] = 1, remaining, ahead, 0, nextAfter
        else
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
            retry = tat + cost * interval - now - tolerance
            if retry < 1 then
              retry = 1
            end
            if nextAfter > retry then
              nextAfter = retry
            end
          end
          reply[r], reply[r + 1], reply[r + 2], reply[r + 3], reply[r + 4] = 0, remainingNow, tat - now, retry,
              nextAfter
        end
      end
      size = size + 5 * n
    end
  end
  first = first + n
end

return reply

--[[
lease.lua: releases or renews the leases of concurrency checks, which ratelimit.lua acquires (algorithm 7).

The maths mirrors the Java reference dev.ratelimit.algorithm.Concurrency (release, renew); a differential test binds
them. Times are integer microseconds.

A lease <id> of c slots is the members '<id>:1' .. '<id>:c' of the check's sorted set, scored by their expiry. It is
held while its expiry is after now; member '<id>:1' stands for the lease.

KEYS[i]   the sorted set of lease i, '<prefix>:{<rule>:<subject>}'
ARGV[1]   now in microseconds, or '' to use redis.call('TIME') (an explicit time is for tests only; TTLs then last at
          least an hour, see ratelimit.lua)
ARGV[2]   'release' or 'renew'
ARGV[3 + 3(i-1) .. 5 + 3(i-1)], per lease i:
          id          the lease id
          slots       its slots (the cost it was acquired with)
          timeout     the policy's lease timeout (renew only; microseconds)

Release: removes the lease's members, whether or not they have expired (an expired lease is then never counted as
          reclaimed). A lease that is not there changes nothing.
Renew:    a held lease's members expire at max(their expiry, now + timeout); a lease that is not held (expired,
          released, reclaimed) changes nothing and is not taken again.
Reply:    per lease: 1 when it was held (release: released; renew: renewed), else 0
TTL:      the key expires with its latest member (Redis deletes a sorted set left empty)
]]

local call = redis.call
local now
local minTtl = 0
if ARGV[1] == '' then
  local t = call('TIME')
  now = tonumber(t[1]) * 1000000 + tonumber(t[2])
else
  now = tonumber(ARGV[1])
  minTtl = 3600000000
end

local release = ARGV[2] == 'release'

-- Lua's unpack fails beyond about 8,000 values: at most 1,000 arguments a call.
local function inChunks(command, key, option, args)
  for first = 1, #args, 1000 do
    local last = math.min(first + 999, #args)
    if option then
      call(command, key, option, unpack(args, first, last))
    else
      call(command, key, unpack(args, first, last))
    end
  end
end

local function expireWithLatest(key)
  local latest = call('ZRANGE', key, -1, -1, 'WITHSCORES')[2]
  if latest then
    call('PEXPIRE', key, math.ceil(math.max(tonumber(latest) - now, minTtl) / 1000))
  end
end

local reply = {}
for i = 1, #KEYS do
  local key = KEYS[i]
  local base = 3 + 3 * (i - 1)
  local id, slots = ARGV[base], tonumber(ARGV[base + 1])
  local score = call('ZSCORE', key, id .. ':1')
  local held = 0
  if score then
    score = tonumber(score)
    if score > now then
      held = 1
    end
    local args = {}
    if release then
      for k = 1, slots do
        args[k] = id .. ':' .. k
      end
      inChunks('ZREM', key, nil, args)
      expireWithLatest(key)
    elseif held == 1 then
      local expiry = string.format('%d', math.max(score, now + tonumber(ARGV[base + 2])))
      for k = 1, slots do
        args[#args + 1] = expiry
        args[#args + 1] = id .. ':' .. k
      end
      inChunks('ZADD', key, 'XX', args)
      expireWithLatest(key)
    end
  end
  reply[i] = held
end
return reply

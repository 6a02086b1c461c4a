--[[
gcra-minimal.lua: the least work a one-round-trip GCRA limiter does in Redis. Written for the benchmarks only: it is
the "ideal client" of the throughput benchmark and the script redis-benchmark runs for the Redis ceiling.

KEYS     one state key per rule (all keys share one rule here); the request (cost 1) is admitted only if every key
         admits it, and only then is anything written
ARGV[1]  emission interval in microseconds (period / limit)
ARGV[2]  burst (how many requests may arrive at once)
Reply    1 admitted, 0 denied
]]
local t = redis.call('TIME')
local now = t[1] * 1000000 + t[2]
local interval = tonumber(ARGV[1])
local tolerance = interval * tonumber(ARGV[2])
local tats = {}
for i = 1, #KEYS do
  local tat = math.max(tonumber(redis.call('GET', KEYS[i]) or now), now) + interval
  if tat - now > tolerance then
    return 0
  end
  tats[i] = tat
end
for i = 1, #KEYS do
  redis.call('SET', KEYS[i], string.format('%d', tats[i]), 'PX', math.ceil((tats[i] - now) / 1000))
end
return 1

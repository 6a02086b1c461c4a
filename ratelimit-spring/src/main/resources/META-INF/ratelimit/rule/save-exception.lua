-- Stores one per-subject exception of a rule, unless the rule already has as many as allowed.
-- KEYS[1]: the rule's exceptions hash, <prefix>:exceptions:<rule> (field = subject, value = limit)
-- ARGV[1]: the subject
-- ARGV[2]: the limit (decimal, units per period)
-- ARGV[3]: the most exceptions the rule may have
-- Reply: 1 when stored (a new subject, or a new limit of a subject that has one), 0 when the rule is full.
-- TTL: none; an exception lasts until an operator removes it.
if redis.call('HEXISTS', KEYS[1], ARGV[1]) == 1 or redis.call('HLEN', KEYS[1]) < tonumber(ARGV[3]) then
	redis.call('HSET', KEYS[1], ARGV[1], ARGV[2])
	return 1
end
return 0

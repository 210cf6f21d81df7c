-- sweep.lua: removes a run's keys that are dead at an instant of the
-- virtual clock. Redis expires keys on its own clock, which is not the
-- virtual one, so each key is also in the run's expiry index, scored by
-- the instant it can no longer affect a decision, and removed here when
-- the virtual clock passes it.
-- KEYS[1] the expiry index. ARGV: instant, the namespace prefix, the most
-- keys to remove. Returns how many it removed.
local dead = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', ARGV[1], 'LIMIT', 0, tonumber(ARGV[3]))
for i = 1, #dead do
  redis.call('UNLINK', ARGV[2] .. dead[i])
  redis.call('ZREM', KEYS[1], dead[i])
end
return #dead

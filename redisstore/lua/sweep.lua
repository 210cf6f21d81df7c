-- sweep.lua: removes a run's keys that are dead at an instant of the
-- virtual clock. Redis expires keys on its own clock, which is not the
-- virtual one, so each key is also in the run's expiry index, scored by
-- the instant it can no longer affect a decision, and removed here when
-- the virtual clock passes it.
-- KEYS[1] the expiry index. ARGV: instant, the namespace prefix, the most
-- keys to remove. Returns how many it removed.
-- A window's end kills every client's key at once (10,000 of them a
-- minute at 10,000 clients): they go 1,000 a command, not one each.
local dead = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', ARGV[1], 'LIMIT', 0, tonumber(ARGV[3]))
local n = #dead
for i = 1, n, 1000 do
  local last = math.min(i + 999, n)
  local keys = {}
  for j = i, last do keys[#keys + 1] = ARGV[2] .. dead[j] end
  redis.call('UNLINK', unpack(keys))
  redis.call('ZREM', KEYS[1], unpack(dead, i, last))
end
return n

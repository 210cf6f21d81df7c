-- trim.lua: drops the timestamps that have left the window from every
-- live sorted set of a run's sliding log, as the in-process log's sweep
-- does, so MEMORY USAGE counts what is live at the instant.
-- KEYS[1] the expiry index. ARGV: instant, window ms, the namespace
-- prefix, offset and count of index members to visit. Returns how many it
-- visited.
local live = redis.call('ZRANGEBYSCORE', KEYS[1], '(' .. ARGV[1], '+inf', 'LIMIT', tonumber(ARGV[4]), tonumber(ARGV[5]))
local edge = string.format('%d', tonumber(ARGV[1]) - tonumber(ARGV[2]))
for i = 1, #live do
  redis.call('ZREMRANGEBYSCORE', ARGV[3] .. live[i], '-inf', edge)
end
return #live

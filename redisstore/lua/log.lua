-- log.lua: the sliding window log, a sorted set of timestamps per client.
-- KEYS[1] the client's sorted set, KEYS[2] the run's expiry index.
-- ARGV: instant, window ms, limit, count rejected, compare, expiry, grace
-- ms, the member to add (unique in the run), the key's name in the
-- index.
local t, w, limit = tonumber(ARGV[1]), tonumber(ARGV[2]), tonumber(ARGV[3])
local rejected, compare = ARGV[4] == '1', tonumber(ARGV[5])
local expiry, grace = ARGV[6] == '1', tonumber(ARGV[7])
local edge = int(t - w) -- timestamps at or before it have left the window
local count, oldest = 0, 0
if expiry then
  redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', edge)
  count = redis.call('ZCARD', KEYS[1])
  if count > 0 then oldest = redis.call('ZRANGE', KEYS[1], 0, 0, 'WITHSCORES')[2] end
else
  count = redis.call('ZCOUNT', KEYS[1], '(' .. edge, '+inf')
  if count > 0 then
    oldest = redis.call('ZRANGEBYSCORE', KEYS[1], '(' .. edge, '+inf', 'WITHSCORES', 'LIMIT', 0, 1)[2]
  end
end
local allowed = admits(count, limit, compare)
if allowed or rejected then
  redis.call('ZADD', KEYS[1], int(t), ARGV[8])
  if expiry then
    -- Dead once its newest timestamp has left the window: t + W.
    redis.call('PEXPIRE', KEYS[1], int(w + grace))
    redis.call('ZADD', KEYS[2], int(t + w), ARGV[9])
  end
end
return {allowed and 1 or 0, int(count), tostring(oldest)}

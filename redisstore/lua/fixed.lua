-- fixed.lua: the fixed window, one counter per client per window.
-- KEYS[1] the counter (aligned: one key per window; from the first
-- request: a hash of the window's start s and count n), KEYS[2] the run's
-- expiry index.
-- ARGV: instant, window ms, limit, count rejected (0/1), compare (0 <, 1
-- + 1 ≤, 2 ≤), expiry (0/1), grace ms, window start (aligned;
-- empty for a window from the first request), the key's name in the index.
local t, w, limit = tonumber(ARGV[1]), tonumber(ARGV[2]), tonumber(ARGV[3])
local rejected, compare = ARGV[4] == '1', tonumber(ARGV[5])
local expiry, grace = ARGV[6] == '1', tonumber(ARGV[7])
local start, count
if ARGV[8] ~= '' then
  start = tonumber(ARGV[8])
  count = tonumber(redis.call('GET', KEYS[1]) or '0')
else
  local h = redis.call('HMGET', KEYS[1], 's', 'n')
  local s, n = tonumber(h[1] or '0'), tonumber(h[2] or '0')
  if n > 0 and t - s < w then start, count = s, n else start, count = t, 0 end
end
local allowed = admits(count, limit, compare)
if allowed or rejected then
  if ARGV[8] ~= '' then
    redis.call('INCR', KEYS[1])
  else
    redis.call('HSET', KEYS[1], 's', int(start), 'n', int(count + 1))
  end
  if expiry and (count == 0 or ARGV[8] == '') then
    -- Dead once its window has ended: start + W.
    redis.call('PEXPIRE', KEYS[1], int(start + w - t + grace))
    redis.call('ZADD', KEYS[2], int(start + w), ARGV[9])
  end
end
return {allowed and 1 or 0, int(start), int(count)}

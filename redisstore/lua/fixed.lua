-- fixed.lua: the fixed window, one counter per client per window.
-- KEYS[1] the counter (aligned: one key per window; from the first
-- request: a hash of the window's start s and count n), KEYS[2] the run's
-- expiry index.
-- ARGV: instant, window ms, limit, count rejected (0/1), compare (0 <, 1
-- + 1 ≤, 2 ≤), expiry (0/1), grace ms, window start (aligned;
-- empty for a window from the first request), the key's name in the index.
-- It runs on every request, so it is kept to what a request needs: no
-- common.lua (whose functions Lua would define again on every call), its
-- answer whole numbers (Redis sends a Lua number as an integer, cut as
-- string.format's %d cuts it), a number formatted only where Redis
-- needs the digits (PEXPIRE, HSET, ZADD).
local t, w, limit = tonumber(ARGV[1]), tonumber(ARGV[2]), tonumber(ARGV[3])
local aligned = ARGV[8] ~= ''
local start, count
if aligned then
  start = tonumber(ARGV[8])
  count = tonumber(redis.call('GET', KEYS[1]) or '0')
else
  local h = redis.call('HMGET', KEYS[1], 's', 'n')
  local s, n = tonumber(h[1] or '0'), tonumber(h[2] or '0')
  if n > 0 and t - s < w then start, count = s, n else start, count = t, 0 end
end
-- The rule set's comparison: count ≤ limit (2), else count < limit (the
-- same as count + 1 ≤ limit for whole counts).
local allowed
if ARGV[5] == '2' then allowed = count <= limit else allowed = count < limit end
if allowed or ARGV[4] == '1' then
  if aligned then
    redis.call('INCR', KEYS[1])
  else
    redis.call('HSET', KEYS[1], 's', string.format('%d', start), 'n', string.format('%d', count + 1))
  end
  if ARGV[6] == '1' and (count == 0 or not aligned) then
    -- Dead once its window has ended: start + W.
    redis.call('PEXPIRE', KEYS[1], string.format('%d', start + w - t + tonumber(ARGV[7])))
    redis.call('ZADD', KEYS[2], string.format('%d', start + w), ARGV[9])
  end
end
return {allowed and 1 or 0, start, count}

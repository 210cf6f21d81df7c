-- counter.lua: the sliding window counter, two counters per client: this
-- window's and the one before.
-- KEYS[1] this window's counter, KEYS[2] the previous window's, KEYS[3] the
-- run's expiry index.
-- ARGV: instant, window ms, limit, count rejected, compare, expiry, grace
-- ms, this window's start, rounding (0 exact, 1 floor, 2 half up),
-- the key's name in the index.
local t, w, limit = tonumber(ARGV[1]), tonumber(ARGV[2]), tonumber(ARGV[3])
local rejected, compare = ARGV[4] == '1', tonumber(ARGV[5])
local expiry, grace = ARGV[6] == '1', tonumber(ARGV[7])
local start, rounding = tonumber(ARGV[8]), tonumber(ARGV[9])
local current = tonumber(redis.call('GET', KEYS[1]) or '0')
local previous = tonumber(redis.call('GET', KEYS[2]) or '0')
local wn = w - (t - start) -- the previous window's weight, over w
local allowed
if rounding ~= 0 then
  -- current + round(previous × wn / w), the rounding exact
  local p = mul(big(previous), big(wn))
  local r
  if rounding == 2 then r = div(add(add(p, p), big(w)), 2 * w) else r = div(p, w) end
  allowed = admits(current + small(r), limit, compare)
else
  -- current·w + previous·wn against limit·w
  local v = add(mul(big(current), big(w)), mul(big(previous), big(wn)))
  local lw = mul(big(limit), big(w))
  if compare == 1 then allowed = cmp(add(v, big(w)), lw) <= 0
  elseif compare == 2 then allowed = cmp(v, lw) <= 0
  else allowed = cmp(v, lw) < 0 end
end
if allowed or rejected then
  redis.call('INCR', KEYS[1])
  if expiry then
    -- Dead once it is not even the previous window: start + 2W.
    redis.call('PEXPIRE', KEYS[1], int(start + 2 * w - t + grace))
    redis.call('ZADD', KEYS[3], int(start + 2 * w), ARGV[10])
  end
end
return {allowed and 1 or 0, int(current), int(previous)}

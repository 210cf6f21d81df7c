-- bucket.lua: the token bucket, a hash per client of its level and when
-- it was last brought up to date. The level is in units of 1/W of a token
-- (as the in-process bucket keeps it), a decimal string: capacity·W may
-- pass 2^53.
-- KEYS[1] the client's hash, KEYS[2] the run's expiry index.
-- ARGV: instant, window ms (units per token), limit (units gained per
-- ms), full (capacity·W, decimal), expiry, grace ms, the key's name
-- in the index.
local t, w, rate = tonumber(ARGV[1]), tonumber(ARGV[2]), tonumber(ARGV[3])
local full = fromdec(ARGV[4])
local expiry, grace = ARGV[5] == '1', tonumber(ARGV[6])
local h = redis.call('HMGET', KEYS[1], 'tokens', 'at')
local level = full
if h[1] then
  level = fromdec(h[1])
  local at = tonumber(h[2])
  if t > at then
    -- refilled at rate units a ms, up to full
    local need = div(add(sub(full, level), big(rate - 1)), rate) -- ⌈room / rate⌉ ms
    if cmp(big(t - at), need) >= 0 then level = full
    else level = add(level, mul(big(t - at), big(rate))) end
  end
end
local allowed = cmp(level, big(w)) >= 0
local after = level
if allowed then after = sub(level, big(w)) end
redis.call('HSET', KEYS[1], 'tokens', todec(after), 'at', int(t))
if expiry then
  -- Dead once it is full again: a new bucket starts full.
  local need = div(add(sub(full, after), big(rate - 1)), rate)
  if cmp(need, big(2 ^ 45)) < 0 then
    local ms = small(need)
    redis.call('PEXPIRE', KEYS[1], int(ms + grace))
    redis.call('ZADD', KEYS[2], int(t + ms), ARGV[7])
  else
    redis.call('ZADD', KEYS[2], '+inf', ARGV[7]) -- full again past year 1,000,000
  end
end
return {allowed and 1 or 0, todec(level)}

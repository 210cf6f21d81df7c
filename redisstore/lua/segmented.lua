-- segmented.lua: the segmented window, one hash per client, a field per
-- segment with a count: the segment's index, its count.
-- KEYS[1] the client's hash, KEYS[2] the run's expiry index.
-- ARGV: instant, segment ms, segments S, limit, count rejected, compare,
-- expiry, grace ms, the current segment's index k (exact text), its
-- start, the key's name in the index.
local t, seg, n, limit = tonumber(ARGV[1]), tonumber(ARGV[2]), tonumber(ARGV[3]), tonumber(ARGV[4])
local rejected, compare = ARGV[5] == '1', tonumber(ARGV[6])
local expiry, grace = ARGV[7] == '1', tonumber(ARGV[8])
local k, start = tonumber(ARGV[9]), tonumber(ARGV[10])
local h = redis.call('HGETALL', KEYS[1])
local count, oldest, gone = 0, 0, {}
for i = 1, #h, 2 do
  local idx, c = tonumber(h[i]), tonumber(h[i + 1])
  if idx <= k - n then
    gone[#gone + 1] = h[i] -- left the window: it can never count again
  else
    count = count + c
    if idx == k - n + 1 then oldest = c end
  end
end
if #gone > 0 then redis.call('HDEL', KEYS[1], unpack(gone)) end
local allowed = admits(count, limit, compare)
if allowed or rejected then
  redis.call('HINCRBY', KEYS[1], ARGV[9], 1)
  if expiry then
    -- Dead once this segment has left the window: its start + S segments.
    local dead = start + n * seg
    redis.call('PEXPIRE', KEYS[1], int(dead - t + grace))
    redis.call('ZADD', KEYS[2], int(dead), ARGV[11])
  end
end
return {allowed and 1 or 0, int(count), int(oldest)}

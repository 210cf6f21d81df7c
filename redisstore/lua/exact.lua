-- exact.lua: whole-number arithmetic past 2^53, prepended to the scripts
-- that multiply (the sliding counter's and the token bucket's).
-- Redis runs Lua 5.1, whose numbers are doubles: exact only up to 2^53.
-- A sliding counter compares current·W + previous·(W − elapsed) with
-- limit·W, and a token bucket holds up to capacity·W units: with a limit
-- of 10^9 and a window of a week both pass 6·10^17. So those products are
-- taken on numbers held as little-endian limbs of 20 bits, every partial
-- product below 2^40 and every sum below 2^53: exact, as the in-process
-- limiters' 128-bit arithmetic is.
local LIMB = 1048576 -- 2^20

local function big(x) -- x: a whole number from 0 to 2^53
  local r = {}
  repeat
    local q = math.floor(x / LIMB)
    r[#r + 1] = x - q * LIMB
    x = q
  until x == 0
  return r
end

local function norm(r) -- carries every limb into range and trims leading zeros
  local c = 0
  for i = 1, #r do
    local v = r[i] + c
    c = math.floor(v / LIMB)
    r[i] = v - c * LIMB
  end
  while c > 0 do
    local q = math.floor(c / LIMB)
    r[#r + 1] = c - q * LIMB
    c = q
  end
  while #r > 1 and r[#r] == 0 do r[#r] = nil end
  return r
end

local function add(a, b)
  local r = {}
  for i = 1, math.max(#a, #b) do r[i] = (a[i] or 0) + (b[i] or 0) end
  return norm(r)
end

local function sub(a, b) -- a − b, for a ≥ b
  local r, borrow = {}, 0
  for i = 1, #a do
    local v = a[i] - (b[i] or 0) - borrow
    if v < 0 then v, borrow = v + LIMB, 1 else borrow = 0 end
    r[i] = v
  end
  return norm(r)
end

local function mul(a, b)
  local r = {}
  for i = 1, #a + #b do r[i] = 0 end
  for i = 1, #a do
    for j = 1, #b do r[i + j - 1] = r[i + j - 1] + a[i] * b[j] end
  end
  return norm(r)
end

local function cmp(a, b) -- −1, 0 or 1 (both trimmed)
  if #a ~= #b then return #a < #b and -1 or 1 end
  for i = #a, 1, -1 do
    if a[i] ~= b[i] then return a[i] < b[i] and -1 or 1 end
  end
  return 0
end

local function div(a, d) -- ⌊a / d⌋ for a whole d from 1 to 2^32
  local q, rem = {}, 0
  for i = #a, 1, -1 do
    local v = rem * LIMB + a[i] -- below 2^52
    local k = math.floor(v / d)
    if k * d > v then k = k - 1 elseif (k + 1) * d <= v then k = k + 1 end
    q[i] = k
    rem = v - k * d
  end
  return norm(q)
end

local function small(a) -- a as a Lua number: exact while a < 2^53
  local x = 0
  for i = #a, 1, -1 do x = x * LIMB + a[i] end
  return x
end

local function fromdec(s) -- a decimal string of digits
  local r = {0}
  for i = 1, #s do
    r = norm(add(mul(r, {10}), {string.byte(s, i) - 48}))
  end
  return r
end

local function todec(a) -- the decimal string of a
  if #a == 1 then return string.format('%d', a[1]) end
  local digits = {}
  while not (#a == 1 and a[1] == 0) do
    local q = div(a, 10)
    digits[#digits + 1] = string.char(48 + small(sub(a, mul(q, {10}))))
    a = q
  end
  return string.reverse(table.concat(digits))
end

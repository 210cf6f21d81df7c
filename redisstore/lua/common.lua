-- common.lua: prepended to the scripts that use it (not those alone: see store.go).
local function int(x) return string.format('%d', x) end -- a whole Lua number, every digit

-- admits applies a rule set's comparison to a whole count n.
local function admits(n, limit, compare)
  if compare == 2 then return n <= limit end -- count ≤ limit
  return n < limit -- count < limit, and count + 1 ≤ limit, the same for whole counts
end

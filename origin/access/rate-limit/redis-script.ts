/**
 * `consume` of shared/access/window.ts as one Lua script, so the read, the
 * decision and the count happen atomically in Redis: origins sharing a
 * Redis share exact counts. The subject's slots are a hash (slot index ->
 * count) that expires one window plus one slot after its newest request.
 *
 * KEYS[1]: the subject's hash. ARGV: limit, window ms, slots per window, and
 * the time in ms ('' reads Redis's own clock, so origins' clocks need not
 * agree). Returns {allowed (1/0), remaining, retry-after seconds}.
 */
export const RATE_LIMIT_SCRIPT = `
local limit = tonumber(ARGV[1])
local window = tonumber(ARGV[2])
local buckets = tonumber(ARGV[3])
local now = tonumber(ARGV[4])
if not now then
  local time = redis.call('TIME')
  now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
end
local width = window / buckets
local current = math.floor(now / width)
local fields = redis.call('HGETALL', KEYS[1])
local live = {}
local used = 0
for i = 1, #fields, 2 do
  local slot = tonumber(fields[i])
  if slot < current - buckets then
    redis.call('HDEL', KEYS[1], fields[i])
  else
    local count = tonumber(fields[i + 1])
    live[#live + 1] = { slot, count }
    used = used + count
  end
end
if used < limit then
  redis.call('HINCRBY', KEYS[1], string.format('%d', current), 1)
  redis.call('PEXPIRE', KEYS[1], math.ceil(window + width))
  return { 1, limit - used - 1, 0 }
end
table.sort(live, function(a, b) return a[1] < b[1] end)
local left = used
for _, entry in ipairs(live) do
  left = left - entry[2]
  if left < limit then
    return { 0, 0, math.max(1, math.ceil(((entry[1] + buckets + 1) * width - now) / 1000)) }
  end
end
return { 0, 0, 1 }
`;

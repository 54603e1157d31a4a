-- wrk script for bench/ingest.ts: POST /api/e with varied tracker events, the same traffic the
-- autocannon run sends. Usage: wrk -s wrk-events.lua <url>/api/e -- <file of JSON bodies, one per line>
local uas = {
  'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36',
  'Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Mobile/15E148 Safari/604.1',
  'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4 Safari/605.1.15',
  'Mozilla/5.0 (X11; Linux x86_64; rv:128.0) Gecko/20100101 Firefox/128.0',
  'Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/130.0.0.0 Mobile Safari/537.36',
}
local bodies = {}
local next_thread = 0
local n

-- each thread starts at its own place in the bodies and addresses
function setup(thread)
  thread:set('first', next_thread)
  next_thread = next_thread + 1
end

function init(args)
  for line in io.lines(args[1]) do bodies[#bodies + 1] = line end
  n = first * 7919
end

function request()
  n = n + 1
  return wrk.format('POST', nil, {
    ['Content-Type'] = 'application/json',
    ['User-Agent'] = uas[(n % #uas) + 1],
    ['X-Real-IP'] = string.format('198.51.%d.%d', math.floor(n / 256) % 256, n % 256),
  }, bodies[(n % #bodies) + 1])
end

-- one JSON line for bench/ingest.ts: requests, duration and latency in microseconds
function done(summary, latency)
  local e = summary.errors
  io.write(string.format(
    'WRK_RESULT {"requests":%d,"durationUs":%d,"p50Us":%d,"p99Us":%d,"non2xx":%d,"errors":%d}\n',
    summary.requests, summary.duration, latency:percentile(50), latency:percentile(99), e.status,
    e.connect + e.read + e.write + e.timeout))
end

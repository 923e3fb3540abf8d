-- wrk script for the queue scenario: each request a different browser's header (read from the
-- file named by the first argument, one "Name: value" header a line), each connection pausing between its
-- requests so that all of them together poll at the rate asked (second argument, requests/s),
-- spread over the second as browsers polling on their own timers are, not in bursts.
local headers = {}
local pause = 0
local i = 0

function init(args)
  for line in io.lines(args[1]) do
    local name, value = line:match("^([^:]+):%s*(.*)$")
    headers[#headers + 1] = { [name] = value }
  end
  local connections = tonumber(args[3])
  pause = connections * 1000 / tonumber(args[2])
  i = math.random(#headers)
end

function request()
  i = i % #headers + 1
  return wrk.format("GET", nil, headers[i])
end

function delay()
  -- jittered around the pause, so the connections do not fall into step
  return math.floor(pause * (0.5 + math.random()))
end

function done(summary, latency, requests)
  local codes = summary.errors
  io.write(string.format('{"requests":%d,"seconds":%f,"p50":%f,"p99":%f,"max":%f,"non2xx":%d,"errors":%d}\n',
    summary.requests, summary.duration / 1e6, latency:percentile(50) / 1000, latency:percentile(99) / 1000,
    latency.max / 1000, codes.status, codes.connect + codes.read + codes.write + codes.timeout))
end

-- wrk script for loads of a duration: requests read from a file (first argument), one a line
-- (bench/request-file.lua). Each thread walks the list from its own offset, one request after the other, so with one
-- pass of the list every request is a different one (the cold figures: every event page read for
-- the first time). Second argument: requests a second over all connections, each connection
-- pausing between its requests ("0": as fast as answered); third: the connection count.
local requests = {}
local pause = 0
local i = 0
local step = 1
local thread_index = 0
local thread_count = 1
local threads = {}

function setup(thread)
  thread:set("index", #threads)
  threads[#threads + 1] = thread
end

function init(args)
  local format = require("request-file")
  for line in io.lines(args[1]) do
    requests[#requests + 1] = format(line)
  end
  local rate = tonumber(args[2])
  if rate > 0 then pause = tonumber(args[3]) * 1000 / rate end
  thread_index = index or 0
  thread_count = tonumber(args[4] or "1")
  i = thread_index
  step = thread_count
end

function request()
  local r = requests[(i % #requests) + 1]
  i = i + step
  return r
end

function delay()
  -- jittered around the pause, so the connections do not fall into step
  if pause == 0 then return 0 end
  return math.floor(pause * (0.5 + math.random()))
end

function done(summary, latency, requests)
  local codes = summary.errors
  io.write(string.format('{"requests":%d,"seconds":%f,"p50":%f,"p99":%f,"max":%f,"non2xx":%d,"errors":%d}\n',
    summary.requests, summary.duration / 1e6, latency:percentile(50) / 1000, latency:percentile(99) / 1000,
    latency.max / 1000, codes.status, codes.connect + codes.read + codes.write + codes.timeout))
end

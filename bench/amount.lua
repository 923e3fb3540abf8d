-- wrk script for loads of a fixed number of requests (a rush that sells a hall and stops): the
-- requests are read from a file (first argument), one a line (bench/request-file.lua). Thread i
-- of n sends lines i, i+n, i+2n... once each and stops when all of its lines are answered.
-- Second argument: the thread count. Each thread prints one JSON line when it stops: its first
-- send and last answer (a monotonic clock, ms), its statuses and when each was first and last
-- answered; a progress line every 100 answers. wrk itself runs until the caller interrupts it
-- and then prints the latencies over every thread (done()).
local ffi = require("ffi")
ffi.cdef [[
  typedef struct { long tv_sec; long tv_nsec; } admit_timespec;
  int clock_gettime(int clock, admit_timespec *ts);
]]
local ts = ffi.new("admit_timespec")
local function now_ms()
  ffi.C.clock_gettime(1, ts) -- CLOCK_MONOTONIC
  return tonumber(ts.tv_sec) * 1000 + tonumber(ts.tv_nsec) / 1e6
end

local threads = {}
local requests = {}
local next_line = 0
local step = 1
local sent = 0
local reserved = 0
-- wrk calls request() once on the first thread before the load starts, to check what it returns
local verifying = false
local answered = 0
local share = 0
local first_sent = nil
local last_answer = 0
local statuses = {}
-- per status: when it was first and last answered (ms on the monotonic clock)
local spans = {}
local finished = false

function setup(thread)
  thread:set("index", #threads)
  threads[#threads + 1] = thread
end

function init(args)
  local all = {}
  for line in io.lines(args[1]) do
    all[#all + 1] = line
  end
  step = tonumber(args[2])
  local index = index or 0
  -- this thread's lines only
  local format = require("request-file")
  for k = index + 1, #all, step do
    requests[#requests + 1] = format(all[k])
  end
  share = #requests
  verifying = index == 0
end

function delay()
  -- wrk asks delay() before every request and calls request() when the delay has passed, so the
  -- share is counted here: a connection whose thread has promised every line waits (the thread
  -- stops when the last answer is in) and no line is sent twice
  if reserved >= share then return 3600000 end
  reserved = reserved + 1
  return 0
end

function request()
  if verifying then
    verifying = false
    return requests[1]
  end
  next_line = next_line + 1
  sent = sent + 1
  if first_sent == nil then first_sent = now_ms() end
  return requests[next_line]
end

function response(status, headers, body)
  answered = answered + 1
  last_answer = now_ms()
  local key = tostring(status)
  statuses[key] = (statuses[key] or 0) + 1
  local span = spans[key]
  if span == nil then spans[key] = { last_answer, last_answer } else span[2] = last_answer end
  if answered % 100 == 0 then
    io.write(string.format('{"progress":%d,"sent":%d,"at":%f}\n', answered, sent, last_answer))
    io.stdout:flush()
  end
  if answered >= share and not finished then
    finished = true
    local counts, times = {}, {}
    for k, v in pairs(statuses) do
      counts[#counts + 1] = string.format('"%s":%d', k, v)
      times[#times + 1] = string.format('"%s":[%f,%f]', k, spans[k][1], spans[k][2])
    end
    io.write(string.format('{"thread":%d,"first":%f,"last":%f,"answered":%d,"statuses":{%s},"spans":{%s}}\n',
      index or 0, first_sent or last_answer, last_answer, answered, table.concat(counts, ","), table.concat(times, ",")))
    io.stdout:flush()
    wrk.thread:stop()
  end
end

function done(summary, latency, requests)
  local e = summary.errors
  io.write(string.format('{"requests":%d,"p50":%f,"p99":%f,"max":%f,"errors":{"connect":%d,"read":%d,"write":%d,"timeout":%d}}\n',
    summary.requests, latency:percentile(50) / 1000, latency:percentile(99) / 1000, latency.max / 1000,
    e.connect, e.read, e.write, e.timeout))
end

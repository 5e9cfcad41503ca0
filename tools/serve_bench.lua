-- wrk script of `make serve-bench` (tools/serve_bench.py): each thread
-- cycles through the request paths in the file named by $PATHS, from its
-- own offset; `done` prints one JSON line with the rate, the latency
-- percentiles and the failures (non-2xx answers included).
local threads, count = {}, 0

function setup(thread)
  thread:set("id", count)
  count = count + 1
  table.insert(threads, thread)
end

function init(args)
  paths = {}
  for line in io.lines(os.getenv("PATHS")) do
    paths[#paths + 1] = line
  end
  next_path = (id * 7919) % #paths
end

function request()
  next_path = next_path % #paths + 1
  return wrk.format("GET", paths[next_path])
end

function done(summary, latency, requests)
  local e = summary.errors
  io.write(string.format(
    '{"requests": %d, "seconds": %.3f, "p50_ms": %.3f, "p99_ms": %.3f, "max_ms": %.3f, "errors": %d}\n',
    summary.requests, summary.duration / 1e6, latency:percentile(50) / 1e3, latency:percentile(99) / 1e3,
    latency.max / 1e3, e.connect + e.read + e.write + e.status + e.timeout))
end

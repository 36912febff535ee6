-- wrk script for bench/load.ts: cycles through the request paths listed in the file WRK_PATHS
-- and prints one JSON line of results at the end.
local paths = {}
for line in io.lines(os.getenv("WRK_PATHS")) do paths[#paths + 1] = line end
local i = 0
wrk.headers["Authorization"] = "Token " .. os.getenv("WRK_TOKEN")
local encoding = os.getenv("WRK_ACCEPT_ENCODING")
if encoding ~= nil and encoding ~= "" then wrk.headers["Accept-Encoding"] = encoding end

request = function()
  i = i + 1
  return wrk.format("GET", paths[((i - 1) % #paths) + 1])
end

done = function(summary, latency, requests)
  local errors = summary.errors.connect + summary.errors.read + summary.errors.write + summary.errors.timeout
  io.write(string.format(
    '{"requests":%d,"rps":%.1f,"p50":%.2f,"p99":%.2f,"non2xx":%d,"errors":%d,"bytes":%d}\n',
    summary.requests, summary.requests / (summary.duration / 1e6), latency:percentile(50) / 1000,
    latency:percentile(99) / 1000, summary.errors.status, errors, summary.bytes))
end

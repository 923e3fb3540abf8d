-- One line of a wrk request file (requestLine in bench/lib.ts) as the request wrk sends:
-- tab-separated method, path, Authorization value or "-", Cookie value or "-", body (may be
-- empty). Loaded by require() from the scripts beside it (wrk runs with bench/ as its directory).
return function(line)
  local method, path, auth, cookie, body = line:match("^([^\t]*)\t([^\t]*)\t([^\t]*)\t([^\t]*)\t?(.*)$")
  local headers = {}
  if auth ~= "-" then headers["Authorization"] = auth end
  if cookie ~= "-" then headers["Cookie"] = cookie end
  if body ~= "" then headers["Content-Type"] = "application/json" else body = nil end
  return wrk.format(method, path, headers, body)
end

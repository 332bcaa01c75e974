-- What the saturation scripts share (bench/figures/saturation.py runs them through wrk):
-- the SQS request headers of each protocol, the bodies, and the report that done() prints.
local sqs = {}

-- Unsigned, but naming SQS's credential scope as an SDK's signature does (bench/wire.py).
local AUTHORIZATION =
   "AWS4-HMAC-SHA256 Credential=bench/20260101/us-east-1/sqs/aws4_request, SignedHeaders=host, Signature=0"

function sqs.json_headers(operation)
   return {
      ["Content-Type"] = "application/x-amz-json-1.0",
      ["X-Amz-Target"] = "AmazonSQS." .. operation,
      ["Authorization"] = AUTHORIZATION,
   }
end

function sqs.query_headers()
   return {
      ["Content-Type"] = "application/x-www-form-urlencoded; charset=utf-8",
      ["Authorization"] = AUTHORIZATION,
   }
end

function sqs.form_escape(text)
   return (text:gsub("[^%w%-%._~]", function(c) return string.format("%%%02X", string.byte(c)) end))
end

-- A POST to "/" that wrk sends unchanged on every connection (no request() function).
function sqs.static(headers, body)
   wrk.method = "POST"
   wrk.path = "/"
   for name, value in pairs(headers) do
      wrk.headers[name] = value
   end
   wrk.body = body
end

-- The report: every thread's `messages` (set in init for a static request: messages per
-- answered request; counted in response() otherwise), printed as one JSON line.
local threads = {}

function sqs.setup(thread)
   table.insert(threads, thread)
end

function sqs.done(summary, latency, requests)
   local errors = summary.errors
   local answered = summary.requests - errors.status
   local messages = 0
   for _, thread in ipairs(threads) do
      if thread:get("per_request") then
         messages = messages + answered * thread:get("per_request")
      else
         messages = messages + (thread:get("messages") or 0)
      end
   end
   io.write(string.format(
      'BENCH {"requests": %d, "status_errors": %d, "socket_errors": %d, "timeouts": %d, '
         .. '"duration_us": %d, "messages": %d, "latency_p50_us": %d, "latency_p99_us": %d}\n',
      summary.requests, errors.status, errors.connect + errors.read + errors.write, errors.timeout,
      summary.duration, messages, latency:percentile(50), latency:percentile(99)))
end

return sqs

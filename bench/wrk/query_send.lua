-- SendMessage, query protocol (form in, XML out): wrk ... -- QUEUE_URL BODY_BYTES
local sqs = require "sqs"
setup, done = sqs.setup, sqs.done

function init(args)
   per_request = 1
   local body = string.rep("x", tonumber(args[2]))
   sqs.static(sqs.query_headers(), "Action=SendMessage&Version=2012-11-05&QueueUrl=" .. sqs.form_escape(args[1])
      .. "&MessageBody=" .. body)
end

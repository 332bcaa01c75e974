-- SendMessage, JSON protocol: wrk ... -- QUEUE_URL BODY_BYTES
local sqs = require "sqs"
setup, done = sqs.setup, sqs.done

function init(args)
   per_request = 1
   local body = string.rep("x", tonumber(args[2]))
   sqs.static(sqs.json_headers("SendMessage"), '{"QueueUrl":"' .. args[1] .. '","MessageBody":"' .. body .. '"}')
end

-- SendMessageBatch of 10, JSON protocol: wrk ... -- QUEUE_URL BODY_BYTES
local sqs = require "sqs"
setup, done = sqs.setup, sqs.done

function init(args)
   per_request = 10
   local body = string.rep("x", tonumber(args[2]))
   local entries = {}
   for i = 0, 9 do
      entries[#entries + 1] = '{"Id":"' .. i .. '","MessageBody":"' .. body .. '"}'
   end
   sqs.static(sqs.json_headers("SendMessageBatch"),
      '{"QueueUrl":"' .. args[1] .. '","Entries":[' .. table.concat(entries, ",") .. ']}')
end

-- The drain, JSON protocol: ReceiveMessage of 10, then a DeleteMessageBatch of the receipt
-- handles that came (read here in response()); `messages` counts the deletes that succeeded.
-- wrk ... -- QUEUE_URL
local sqs = require "sqs"
setup, done = sqs.setup, sqs.done

local url, receive
local deletes = {} -- DeleteMessageBatch bodies waiting for a free connection
messages = 0

function init(args)
   url = args[1]
   receive = wrk.format("POST", "/", sqs.json_headers("ReceiveMessage"),
      '{"QueueUrl":"' .. url .. '","MaxNumberOfMessages":10,"VisibilityTimeout":600}')
end

function request()
   local body = table.remove(deletes)
   if body then
      return wrk.format("POST", "/", sqs.json_headers("DeleteMessageBatch"), body)
   end
   return receive
end

function response(status, headers, body)
   if status ~= 200 then
      return
   end
   local successful = body:match('"Successful"%s*:%s*%[(.-)%]')
   if successful then -- a DeleteMessageBatch's answer
      local _, deleted = successful:gsub('"Id"', "")
      messages = messages + deleted
      return
   end
   local entries = {}
   for handle in body:gmatch('"ReceiptHandle"%s*:%s*"([^"]+)"') do
      entries[#entries + 1] = '{"Id":"' .. #entries .. '","ReceiptHandle":"' .. handle .. '"}'
   end
   if #entries > 0 then
      deletes[#deletes + 1] = '{"QueueUrl":"' .. url .. '","Entries":[' .. table.concat(entries, ",") .. ']}'
   end
end

// The emulator's injected errors (POST /_emulator/error-rules) as the AWS SDK for JavaScript v3
// reads them: its exception class, Code and Type (from x-amzn-query-error), status and fault.
import { request } from "node:http";
import { SQSClient, CreateQueueCommand, SendMessageCommand, DeleteQueueCommand } from "@aws-sdk/client-sqs";

const endpoint = process.argv[2];
if (!endpoint) {
  console.error("usage: node error_rules.mjs ENDPOINT");
  process.exit(2);
}
const client = new SQSClient({
  endpoint,
  region: "us-east-1",
  credentials: { accessKeyId: "test", secretAccessKey: "test" },
  maxAttempts: 1,
});

// node:http, not fetch: a request with no Sec-Fetch-* header, as a test's own tooling sends it.
function admin(method, route, body) {
  return new Promise((resolve, reject) => {
    const sent = request(`${endpoint}/_emulator/${route}`, { method, headers: { "Content-Type": "application/json" } }, (answer) => {
      answer.resume();
      answer.on("end", () => (answer.statusCode === 200 ? resolve() : reject(new Error(`${route}: ${answer.statusCode}`))));
    });
    sent.on("error", reject);
    sent.end(body ? JSON.stringify(body) : undefined);
  });
}

try {
  const out = { ok: true };
  const { QueueUrl } = await client.send(new CreateQueueCommand({ QueueName: `node-errors-${process.pid}` }));
  for (const error of ["RequestThrottled", "InternalError", "ServiceUnavailable", "KmsDisabled"]) {
    await admin("POST", "error-rules", { error, queue: QueueUrl, operation: "SendMessage", count: 1 });
    try {
      await client.send(new SendMessageCommand({ QueueUrl, MessageBody: "x" }));
      out[error] = { name: "no error" };
    } catch (err) {
      out[error] = {
        name: err.name,
        Code: err.Code ?? null,
        Type: err.Type ?? null,
        message: err.message,
        httpStatusCode: err.$metadata?.httpStatusCode ?? null,
        fault: err.$fault ?? null,
      };
    }
  }
  await client.send(new DeleteQueueCommand({ QueueUrl }));
  process.stdout.write(JSON.stringify(out) + "\n");
} catch (err) {
  process.stdout.write(JSON.stringify({ ok: false, name: err?.name, message: err?.message }) + "\n");
  process.exit(1);
}

// One SQS scenario through the AWS SDK for JavaScript v3, against a local endpoint.
//
//   node sqs_scenario.mjs http://127.0.0.1:PORT [queue-name-prefix]
//
// Prints one JSON summary on stdout (compat_tests/clients/test_node_sdk.py checks it)
// and exits 0; on an unexpected error prints {"ok": false, ...} and exits 1.
//
// The SDK itself verifies MD5OfMessageBody on SendMessage, SendMessageBatch and
// ReceiveMessage and throws on a mismatch. It does not verify the attribute
// digests, so this script recomputes MD5OfMessageAttributes with AWS's algorithm
// and reports both values.

import { createHash } from "node:crypto";
import {
  SQSClient,
  CreateQueueCommand,
  GetQueueUrlCommand,
  SendMessageCommand,
  SendMessageBatchCommand,
  ReceiveMessageCommand,
  DeleteMessageCommand,
  DeleteMessageBatchCommand,
  ChangeMessageVisibilityCommand,
  GetQueueAttributesCommand,
  ListQueuesCommand,
  DeleteQueueCommand,
} from "@aws-sdk/client-sqs";

const endpoint = process.argv[2];
const prefix = process.argv[3] || "node-sdk";
if (!endpoint) {
  console.error("usage: node sqs_scenario.mjs ENDPOINT [QUEUE_PREFIX]");
  process.exit(2);
}

// AWS's algorithm (sqs-message-metadata): attributes sorted by name; for each one
// the name, the data type (4-byte big-endian length + UTF-8), a transport byte
// (1 string/number, 2 binary) and the value (length + bytes).
function md5OfAttributes(attrs) {
  const parts = [];
  const field = (buf) => {
    const len = Buffer.alloc(4);
    len.writeUInt32BE(buf.length);
    parts.push(len, buf);
  };
  const names = Object.keys(attrs).sort((a, b) => Buffer.compare(Buffer.from(a), Buffer.from(b)));
  for (const name of names) {
    const { DataType, StringValue, BinaryValue } = attrs[name];
    field(Buffer.from(name, "utf8"));
    field(Buffer.from(DataType, "utf8"));
    if (DataType.startsWith("Binary")) {
      parts.push(Buffer.from([2]));
      field(Buffer.from(BinaryValue));
    } else {
      parts.push(Buffer.from([1]));
      field(Buffer.from(StringValue, "utf8"));
    }
  }
  return createHash("md5").update(Buffer.concat(parts)).digest("hex");
}

const md5 = (s) => createHash("md5").update(Buffer.from(s, "utf8")).digest("hex");

// Self-check against the vectors in docs/sqs-reference.md 1.13 (AWS's own
// example, and the npm package aws-md5-of-message-attributes).
const VECTORS = [
  [{
    my_attribute_name_1: { DataType: "String", StringValue: "my_attribute_value_1" },
    my_attribute_name_2: { DataType: "String", StringValue: "my_attribute_value_2" },
  }, "c48838208d2b4e14e3ca0093a8443f09"],
  [{
    attribName1: { DataType: "String", StringValue: "attribValue 1" },
    customNumberTypeAttrib: { DataType: "Number.float", StringValue: "4563442423554324324264524243.32543234" },
    binaryAttribute: { DataType: "Binary", BinaryValue: Buffer.from("Hello binary world!") },
  }, "c932db14a896c663f83c260297d594ff"],
];
for (const [attrs, expected] of VECTORS) {
  if (md5OfAttributes(attrs) !== expected) throw new Error("md5OfAttributes in this script is wrong");
}

const client = new SQSClient({
  endpoint,
  region: "us-east-1",
  credentials: { accessKeyId: "test", secretAccessKey: "test" },
  maxAttempts: 1,
});

const BODY = "héllo wörld ✓ 😀 日本語 \t\n<&>";
const BINARY = Uint8Array.from([0, 1, 2, 127, 128, 254, 255]);
const ATTRS = {
  Greeting: { DataType: "String", StringValue: "grüße ✓" },
  Count: { DataType: "Number", StringValue: "-12.5e3" },
  Blob: { DataType: "Binary", BinaryValue: BINARY },
};

async function expectError(command) {
  try {
    await client.send(command);
  } catch (err) {
    return {
      name: err.name,
      Code: err.Code ?? null,
      Type: err.Type ?? null,
      message: err.message,
      httpStatusCode: err.$metadata?.httpStatusCode ?? null,
      fault: err.$fault ?? null,
    };
  }
  return { name: "no error" };
}

async function main() {
  const out = { ok: true };
  const name = `${prefix}-${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 8)}`;
  out.queueName = name;

  const { QueueUrl } = await client.send(
    new CreateQueueCommand({ QueueName: name, Attributes: { VisibilityTimeout: "30" } }),
  );
  out.queueUrl = QueueUrl;
  out.getQueueUrl = (await client.send(new GetQueueUrlCommand({ QueueName: name }))).QueueUrl;

  // Single send: the SDK throws if MD5OfMessageBody is wrong.
  const sent = await client.send(
    new SendMessageCommand({ QueueUrl, MessageBody: BODY, MessageAttributes: ATTRS }),
  );
  out.send = {
    messageId: sent.MessageId,
    md5OfBody: sent.MD5OfMessageBody,
    expectedMd5OfBody: md5(BODY),
    md5OfAttributes: sent.MD5OfMessageAttributes,
    expectedMd5OfAttributes: md5OfAttributes(ATTRS),
  };

  // Batch send: the SDK checks each entry's body MD5.
  const batch = await client.send(
    new SendMessageBatchCommand({
      QueueUrl,
      Entries: [
        { Id: "a", MessageBody: "batch a" },
        { Id: "b", MessageBody: "batch b ✓", MessageAttributes: { K: { DataType: "String", StringValue: "v" } } },
        { Id: "c", MessageBody: "batch c", DelaySeconds: 0 },
      ],
    }),
  );
  out.batch = {
    successfulIds: (batch.Successful || []).map((e) => e.Id).sort(),
    failed: batch.Failed || [],
    md5Ok: (batch.Successful || []).every((e) => e.MD5OfMessageBody === md5({ a: "batch a", b: "batch b ✓", c: "batch c" }[e.Id])),
    md5OfAttributesB: (batch.Successful || []).find((e) => e.Id === "b")?.MD5OfMessageAttributes ?? null,
    expectedMd5OfAttributesB: md5OfAttributes({ K: { DataType: "String", StringValue: "v" } }),
  };

  // Receive all four (the SDK throws on a body MD5 mismatch).
  const received = [];
  for (let i = 0; i < 10 && received.length < 4; i++) {
    const r = await client.send(
      new ReceiveMessageCommand({
        QueueUrl,
        MaxNumberOfMessages: 10,
        WaitTimeSeconds: 0,
        MessageSystemAttributeNames: ["All"],
        MessageAttributeNames: ["All"],
      }),
    );
    received.push(...(r.Messages || []));
  }
  out.receivedBodies = received.map((m) => m.Body).sort();
  const first = received.find((m) => m.MessageId === sent.MessageId);
  if (!first) throw new Error(`message ${sent.MessageId} not received: ${JSON.stringify(received)}`);
  const attrs = first.MessageAttributes || {};
  out.receive = {
    body: first.Body,
    md5OfBody: first.MD5OfBody,
    md5OfAttributes: first.MD5OfMessageAttributes,
    recomputedMd5OfAttributes: md5OfAttributes(attrs),
    attributeNames: Object.keys(attrs).sort(),
    greeting: attrs.Greeting,
    count: attrs.Count,
    blobType: attrs.Blob?.DataType,
    blobIsUint8Array: attrs.Blob?.BinaryValue instanceof Uint8Array,
    blobBytes: attrs.Blob?.BinaryValue ? Array.from(attrs.Blob.BinaryValue) : null,
    systemAttributes: first.Attributes || {},
  };
  const plain = received.find((m) => m.Body === "batch a");
  out.receivePlainHasMd5OfAttributes = plain ? "MD5OfMessageAttributes" in plain && plain.MD5OfMessageAttributes !== undefined : null;

  // Change visibility to 0: the message is visible again and its receive count goes to 2.
  await client.send(
    new ChangeMessageVisibilityCommand({ QueueUrl, ReceiptHandle: first.ReceiptHandle, VisibilityTimeout: 0 }),
  );
  const again = await client.send(
    new ReceiveMessageCommand({ QueueUrl, MaxNumberOfMessages: 10, WaitTimeSeconds: 0, MessageSystemAttributeNames: ["ApproximateReceiveCount"] }),
  );
  const redelivered = (again.Messages || []).find((m) => m.MessageId === sent.MessageId);
  out.redelivery = {
    count: (again.Messages || []).length,
    receiveCount: redelivered?.Attributes?.ApproximateReceiveCount ?? null,
    newHandle: redelivered ? redelivered.ReceiptHandle !== first.ReceiptHandle : null,
  };

  // Delete: one with the fresh handle, the rest in a batch.
  await client.send(new DeleteMessageCommand({ QueueUrl, ReceiptHandle: redelivered.ReceiptHandle }));
  const others = received.filter((m) => m.MessageId !== sent.MessageId);
  const del = await client.send(
    new DeleteMessageBatchCommand({
      QueueUrl,
      Entries: others.map((m, i) => ({ Id: `d${i}`, ReceiptHandle: m.ReceiptHandle })),
    }),
  );
  out.deleteBatch = { successful: (del.Successful || []).length, failed: del.Failed || [] };

  const qa = await client.send(new GetQueueAttributesCommand({ QueueUrl, AttributeNames: ["All"] }));
  out.attributes = qa.Attributes;

  const listed = await client.send(new ListQueuesCommand({ QueueNamePrefix: name }));
  out.listed = listed.QueueUrls || [];

  out.errors = {
    getQueueUrlMissing: await expectError(new GetQueueUrlCommand({ QueueName: `${name}-missing` })),
    sendToMissing: await expectError(
      new SendMessageCommand({ QueueUrl: `${QueueUrl}-missing`, MessageBody: "x" }),
    ),
    badReceiptHandle: await expectError(
      new DeleteMessageCommand({ QueueUrl, ReceiptHandle: "not-a-receipt-handle" }),
    ),
  };

  await client.send(new DeleteQueueCommand({ QueueUrl }));
  out.afterDelete = await expectError(new GetQueueUrlCommand({ QueueName: name }));
  out.fifo = await fifoScenario(`${name}-f.fifo`);
  out.regions = await regionScenario(`${name}-r`);
  return out;
}

// One name in two regions (issue 18 item 1): with the default --queue-urls aws both
// URLs are /<account>/<name>, the shape AWS gives; the SDK sends each request to its
// queue URL's host and signs it for its own region, which picks the queue.
async function regionScenario(queueName) {
  const west = new SQSClient({
    endpoint, region: "eu-west-1", credentials: { accessKeyId: "test", secretAccessKey: "test" }, maxAttempts: 1,
  });
  const out = {};
  const eastUrl = (await client.send(new CreateQueueCommand({ QueueName: queueName }))).QueueUrl;
  const westUrl = (await west.send(new CreateQueueCommand({ QueueName: queueName }))).QueueUrl;
  out.eastUrl = eastUrl;
  out.westUrl = westUrl;
  await west.send(new SendMessageCommand({ QueueUrl: westUrl, MessageBody: "west" }));
  await client.send(new SendMessageCommand({ QueueUrl: eastUrl, MessageBody: "east" }));
  const bodies = async (c, QueueUrl) =>
    ((await c.send(new ReceiveMessageCommand({ QueueUrl, MaxNumberOfMessages: 10 }))).Messages || []).map((m) => m.Body);
  out.westBodies = await bodies(west, westUrl);
  out.eastBodies = await bodies(client, eastUrl);
  const arn = async (c, QueueUrl) =>
    (await c.send(new GetQueueAttributesCommand({ QueueUrl, AttributeNames: ["QueueArn"] }))).Attributes.QueueArn;
  out.westArn = await arn(west, westUrl);
  out.westListed = (await west.send(new ListQueuesCommand({ QueueNamePrefix: queueName }))).QueueUrls || [];
  await west.send(new DeleteQueueCommand({ QueueUrl: westUrl }));
  await client.send(new DeleteQueueCommand({ QueueUrl: eastUrl }));
  return out;
}

// A FIFO queue with content-based deduplication: group order, sequence numbers,
// a duplicate, and the digest of a system attribute (AWSTraceHeader), which the
// script recomputes with the attribute algorithm.
async function fifoScenario(queueName) {
  const out = {};
  const { QueueUrl } = await client.send(new CreateQueueCommand({
    QueueName: queueName, Attributes: { FifoQueue: "true", ContentBasedDeduplication: "true" },
  }));
  const TRACE = { AWSTraceHeader: { DataType: "String", StringValue: "Root=1-5759e988-bd862e3fe1be46a994272793;Parent=53995c3f42cd8ad8;Sampled=1" } };
  const first = await client.send(new SendMessageCommand({
    QueueUrl, MessageBody: "f1", MessageGroupId: "a", MessageSystemAttributes: TRACE,
  }));
  out.first = {
    sequenceNumber: first.SequenceNumber,
    md5OfSystemAttributes: first.MD5OfMessageSystemAttributes,
    expectedMd5OfSystemAttributes: md5OfAttributes(TRACE),
  };
  const duplicate = await client.send(new SendMessageCommand({ QueueUrl, MessageBody: "f1", MessageGroupId: "a" }));
  out.duplicateSameId = duplicate.MessageId === first.MessageId && duplicate.SequenceNumber === first.SequenceNumber;
  const batch = await client.send(new SendMessageBatchCommand({
    QueueUrl,
    Entries: [
      { Id: "b1", MessageBody: "f2", MessageGroupId: "b" },
      { Id: "a2", MessageBody: "f3", MessageGroupId: "a" },
    ],
  }));
  out.batchSequenceNumbers = (batch.Successful || []).map((e) => e.SequenceNumber);
  const r = await client.send(new ReceiveMessageCommand({
    QueueUrl, MaxNumberOfMessages: 10, MessageSystemAttributeNames: ["All"],
  }));
  out.received = (r.Messages || []).map((m) => ({
    body: m.Body,
    group: m.Attributes?.MessageGroupId,
    dedup: m.Attributes?.MessageDeduplicationId,
    sequenceNumber: m.Attributes?.SequenceNumber,
    trace: m.Attributes?.AWSTraceHeader ?? null,
  }));
  out.expectedDedupF1 = createHash("sha256").update("f1").digest("hex");
  out.groupLocked = ((await client.send(new ReceiveMessageCommand({ QueueUrl, MaxNumberOfMessages: 10 }))).Messages || []).length;
  out.missingGroup = await expectError(new SendMessageCommand({ QueueUrl, MessageBody: "x" }));
  await client.send(new DeleteQueueCommand({ QueueUrl }));
  return out;
}

try {
  const out = await main();
  process.stdout.write(JSON.stringify(out, null, 2) + "\n");
} catch (err) {
  process.stdout.write(
    JSON.stringify({ ok: false, name: err?.name, message: err?.message, stack: err?.stack, metadata: err?.$metadata }) + "\n",
  );
  process.exit(1);
}

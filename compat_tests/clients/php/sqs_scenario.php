<?php
// One scenario of AsyncAws SQS (Debian's php-async-aws-sqs, the client of Symfony Messenger's
// SQS transport; it speaks the query protocol) against the server:
// php sqs_scenario.php ENDPOINT QUEUE_NAME. It prints a JSON summary that
// compat_tests/clients/test_php_async_aws.py checks part by part.
require_once '/usr/share/php/AsyncAws/Sqs/autoload.php';

use AsyncAws\Core\Exception\Http\ClientException;
use AsyncAws\Sqs\SqsClient;

const BODY = "héllo wörld ✓ 😀 日本語 \t\n<&>";

[, $endpoint, $name] = $argv;
$sqs = new SqsClient(['endpoint' => $endpoint, 'region' => 'us-east-1', 'accessKeyId' => 'test', 'accessKeySecret' => 'test']);
$summary = [];

function failure(callable $call): array
{
    try {
        $call();
    } catch (ClientException $e) {
        return ['class' => (new ReflectionClass($e))->getShortName(), 'code' => $e->getAwsCode(), 'status' => $e->getCode()];
    }
    return ['class' => null];
}

$url = $sqs->createQueue(['QueueName' => $name, 'Attributes' => ['VisibilityTimeout' => '30']])->getQueueUrl();
$summary['queueUrl'] = $url;
$summary['getQueueUrl'] = $sqs->getQueueUrl(['QueueName' => $name])->getQueueUrl();
$summary['queueExists'] = [$sqs->queueExists(['QueueName' => $name])->isSuccess(), $sqs->queueExists(['QueueName' => $name . '-missing'])->isSuccess()];

$sent = $sqs->sendMessage(['QueueUrl' => $url, 'MessageBody' => BODY, 'DelaySeconds' => 0, 'MessageAttributes' => [
    'Greeting' => ['DataType' => 'String', 'StringValue' => 'grüße ✓'],
    'Count' => ['DataType' => 'Number', 'StringValue' => '-12.5e3'],
    'Blob' => ['DataType' => 'Binary', 'BinaryValue' => "\x00\x01\x02\x7f\x80\xfe\xff"],
]]);
$summary['send'] = ['md5OfBody' => $sent->getMd5OfMessageBody(), 'md5OfAttributes' => $sent->getMd5OfMessageAttributes()];
$batch = $sqs->sendMessageBatch(['QueueUrl' => $url, 'Entries' => [
    ['Id' => 'a', 'MessageBody' => 'batch a'],
    ['Id' => 'b', 'MessageBody' => 'batch b ✓'],
]]);
$summary['batch'] = [
    'successful' => array_map(fn ($entry) => [$entry->getId(), $entry->getMd5OfMessageBody()], $batch->getSuccessful()),
    'failed' => count($batch->getFailed()),
];

$received = $sqs->receiveMessage(['QueueUrl' => $url, 'MaxNumberOfMessages' => 10, 'MessageAttributeNames' => ['All'], 'AttributeNames' => ['All']]);
$bodies = [];
foreach ($received->getMessages() as $message) {
    $bodies[] = $message->getBody();
    if ($message->getBody() === BODY) {
        $attributes = [];
        foreach ($message->getMessageAttributes() as $key => $value) {
            $attributes[$key] = ['DataType' => $value->getDataType(), 'StringValue' => $value->getStringValue(), 'BinaryHex' => $value->getBinaryValue() === null ? null : bin2hex($value->getBinaryValue())];
        }
        $summary['receive'] = [
            'md5OfBody' => $message->getMd5OfBody(), 'md5OfAttributes' => $message->getMd5OfMessageAttributes(),
            'attributes' => $attributes, 'systemAttributes' => $message->getAttributes(),
        ];
    }
    $sqs->deleteMessage(['QueueUrl' => $url, 'ReceiptHandle' => $message->getReceiptHandle()])->resolve();
}
sort($bodies);
$summary['receivedBodies'] = $bodies;
$summary['attributes'] = $sqs->getQueueAttributes(['QueueUrl' => $url, 'AttributeNames' => ['All']])->getAttributes();

$summary['errors'] = [
    'getQueueUrlMissing' => failure(fn () => $sqs->getQueueUrl(['QueueName' => $name . '-missing'])->getQueueUrl()),
    'badReceiptHandle' => failure(fn () => $sqs->deleteMessage(['QueueUrl' => $url, 'ReceiptHandle' => 'not-a-handle'])->resolve()),
    'emptyBody' => failure(fn () => $sqs->sendMessage(['QueueUrl' => $url, 'MessageBody' => ''])->getMessageId()),
];

$fifo = $sqs->createQueue(['QueueName' => $name . '.fifo', 'Attributes' => ['FifoQueue' => 'true', 'ContentBasedDeduplication' => 'true']])->getQueueUrl();
$numbers = [];
foreach ([['f1', 'a'], ['f2', 'b'], ['f3', 'a']] as [$body, $group]) {
    $numbers[] = $sqs->sendMessage(['QueueUrl' => $fifo, 'MessageBody' => $body, 'MessageGroupId' => $group])->getSequenceNumber();
}
$duplicate = $sqs->sendMessage(['QueueUrl' => $fifo, 'MessageBody' => 'f1', 'MessageGroupId' => 'a'])->getSequenceNumber();
$fifoReceived = [];
foreach ($sqs->receiveMessage(['QueueUrl' => $fifo, 'MaxNumberOfMessages' => 10, 'AttributeNames' => ['All']])->getMessages() as $message) {
    $fifoReceived[] = [$message->getBody(), $message->getAttributes()['MessageGroupId'], $message->getAttributes()['SequenceNumber']];
}
$summary['fifo'] = ['sequenceNumbers' => $numbers, 'duplicateSequenceNumber' => $duplicate, 'received' => $fifoReceived];

$sqs->purgeQueue(['QueueUrl' => $fifo])->resolve();
$sqs->deleteQueue(['QueueUrl' => $fifo])->resolve();
$sqs->deleteQueue(['QueueUrl' => $url])->resolve();
$summary['errors']['afterDelete'] = failure(fn () => $sqs->sendMessage(['QueueUrl' => $url, 'MessageBody' => 'gone'])->getMessageId());
$summary['ok'] = true;
echo json_encode($summary, JSON_UNESCAPED_UNICODE | JSON_THROW_ON_ERROR), "\n";

<?php
// Symfony Messenger's Amazon SQS transport (Debian's php-symfony-amazon-sqs-messenger, on
// AsyncAws) against the server: php messenger_scenario.php HOST:PORT QUEUE_NAME. It prints a
// JSON summary that compat_tests/clients/test_symfony_messenger.py checks part by part.
require_once '/usr/share/php/Symfony/Component/Messenger/autoload.php';
require_once '/usr/share/php/Symfony/Component/Messenger/Bridge/AmazonSqs/autoload.php';

use AsyncAws\Sqs\SqsClient;
use Symfony\Component\Messenger\Bridge\AmazonSqs\Transport\AmazonSqsFifoStamp;
use Symfony\Component\Messenger\Bridge\AmazonSqs\Transport\AmazonSqsReceivedStamp;
use Symfony\Component\Messenger\Bridge\AmazonSqs\Transport\AmazonSqsTransportFactory;
use Symfony\Component\Messenger\Envelope;
use Symfony\Component\Messenger\Stamp\DelayStamp;
use Symfony\Component\Messenger\Transport\Serialization\PhpSerializer;

[, $hostPort, $name] = $argv;
// As an application configures it against a local endpoint: no account in the path, so the
// transport creates its queue (auto_setup); a one-second long poll per empty get().
$options = 'sslmode=disable&access_key=test&secret_key=test&region=us-east-1&wait_time=1&visibility_timeout=30';
$factory = new AmazonSqsTransportFactory();
$transport = $factory->createTransport("sqs://$hostPort/$name?$options", [], new PhpSerializer());
$fifo = $factory->createTransport("sqs://$hostPort/$name.fifo?$options", [], new PhpSerializer());
$sqs = new SqsClient(['endpoint' => "http://$hostPort", 'region' => 'us-east-1', 'accessKeyId' => 'test', 'accessKeySecret' => 'test']);
$summary = [];

function texts(iterable $envelopes): array
{
    return array_map(fn (Envelope $envelope) => $envelope->getMessage()->text, iterator_to_array($envelopes, false));
}

$transport->setup();
$transport->send(new Envelope((object) ['text' => 'héllo wörld ✓ 😀 <&>']));
$transport->send(new Envelope((object) ['text' => 'second']));
$transport->send(new Envelope((object) ['text' => 'later'], [new DelayStamp(60000)]));
$summary['countAfterSends'] = $transport->getMessageCount();
$url = $sqs->getQueueUrl(['QueueName' => $name])->getQueueUrl();
$summary['queueUrl'] = $url;

$first = iterator_to_array($transport->get(), false);
$summary['first'] = [
    'texts' => texts($first),
    'receivedStamp' => $first[0]->last(AmazonSqsReceivedStamp::class) !== null,
];
$transport->ack($first[0]);
$second = iterator_to_array($transport->get(), false);
$summary['second'] = texts($second);
$transport->reject($second[0]);
$summary['emptyGet'] = texts($transport->get());
$attributes = $sqs->getQueueAttributes(['QueueUrl' => $url, 'AttributeNames' => ['All']])->getAttributes();
$summary['after'] = [
    'visible' => $attributes['ApproximateNumberOfMessages'],
    'inflight' => $attributes['ApproximateNumberOfMessagesNotVisible'],
    'delayed' => $attributes['ApproximateNumberOfMessagesDelayed'],
];

$fifo->setup();
foreach ([['f1', 'a'], ['f2', 'b'], ['f3', 'a']] as [$text, $group]) {
    $fifo->send(new Envelope((object) ['text' => $text], [new AmazonSqsFifoStamp($group, $text)]));
}
$fifo->send(new Envelope((object) ['text' => 'f1'], [new AmazonSqsFifoStamp('a', 'f1')]));  // a duplicate
$fifoTexts = [];
while ($envelopes = iterator_to_array($fifo->get(), false)) {
    foreach ($envelopes as $envelope) {
        $fifoTexts[] = $envelope->getMessage()->text;
        $fifo->ack($envelope);
    }
}
$summary['fifo'] = $fifoTexts;
$summary['fifoUrl'] = $sqs->getQueueUrl(['QueueName' => "$name.fifo"])->getQueueUrl();
$summary['ok'] = true;
echo json_encode($summary, JSON_UNESCAPED_UNICODE | JSON_THROW_ON_ERROR), "\n";

// One scenario of the AWS SDK for Go v2 (Debian's golang-github-aws-aws-sdk-go-v2-dev, which
// speaks the query protocol) against the server: go run sqs_scenario.go ENDPOINT QUEUE_NAME.
// It prints a JSON summary; compat_tests/clients/test_go_sdk.py checks each part. The SDK
// verifies MD5OfMessageBody on SendMessage, SendMessageBatch and ReceiveMessage itself.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"sort"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	"github.com/aws/aws-sdk-go-v2/service/sqs/types"
	smithyhttp "github.com/aws/smithy-go/transport/http"
)

const body = "héllo wörld ✓ 😀 日本語 \t\n<&>"

type failure struct {
	Code   string `json:"code"`
	Status int    `json:"status"`
	Typed  string `json:"typed"`
}

type attribute struct {
	DataType    string `json:"DataType"`
	StringValue string `json:"StringValue,omitempty"`
	BinaryValue []byte `json:"BinaryValue,omitempty"`
}

var ctx = context.Background()

// errorOf names what a failed call returned: the error code, the HTTP status and the SDK's
// typed error, if the code is one the model names.
func errorOf(err error) failure {
	var out failure
	var code interface{ ErrorCode() string }
	if errors.As(err, &code) {
		out.Code = code.ErrorCode()
	}
	var response *smithyhttp.ResponseError
	if errors.As(err, &response) {
		out.Status = response.HTTPStatusCode()
	}
	var missing *types.QueueDoesNotExist
	var invalid *types.ReceiptHandleIsInvalid
	switch {
	case errors.As(err, &missing):
		out.Typed = "QueueDoesNotExist"
	case errors.As(err, &invalid):
		out.Typed = "ReceiptHandleIsInvalid"
	}
	return out
}

func must[T any](value T, err error) T {
	if err != nil {
		fmt.Fprintln(os.Stderr, "unexpected error:", err)
		os.Exit(1)
	}
	return value
}

func attributesOf(message types.Message) map[string]attribute {
	out := map[string]attribute{}
	for name, value := range message.MessageAttributes {
		out[name] = attribute{aws.ToString(value.DataType), aws.ToString(value.StringValue), value.BinaryValue}
	}
	return out
}

func main() {
	endpoint, name := os.Args[1], os.Args[2]
	client := sqs.New(sqs.Options{
		Region:      "us-east-1",
		Credentials: credentials.NewStaticCredentialsProvider("test", "test", ""),
		EndpointResolver: sqs.EndpointResolverFunc(func(string, sqs.EndpointResolverOptions) (aws.Endpoint, error) {
			return aws.Endpoint{URL: endpoint}, nil
		}),
	})
	summary := map[string]any{}

	url := must(client.CreateQueue(ctx, &sqs.CreateQueueInput{
		QueueName: aws.String(name), Attributes: map[string]string{"VisibilityTimeout": "30"},
	})).QueueUrl
	summary["queueUrl"] = aws.ToString(url)
	summary["getQueueUrl"] = aws.ToString(must(client.GetQueueUrl(ctx, &sqs.GetQueueUrlInput{QueueName: aws.String(name)})).QueueUrl)
	summary["listed"] = must(client.ListQueues(ctx, &sqs.ListQueuesInput{QueueNamePrefix: aws.String(name)})).QueueUrls

	sent := must(client.SendMessage(ctx, &sqs.SendMessageInput{
		QueueUrl: url, MessageBody: aws.String(body),
		MessageAttributes: map[string]types.MessageAttributeValue{
			"Greeting": {DataType: aws.String("String"), StringValue: aws.String("grüße ✓")},
			"Count":    {DataType: aws.String("Number"), StringValue: aws.String("-12.5e3")},
			"Blob":     {DataType: aws.String("Binary"), BinaryValue: []byte{0, 1, 2, 127, 128, 254, 255}},
		},
	}))
	summary["send"] = map[string]string{
		"md5OfBody": aws.ToString(sent.MD5OfMessageBody), "md5OfAttributes": aws.ToString(sent.MD5OfMessageAttributes),
	}
	batch := must(client.SendMessageBatch(ctx, &sqs.SendMessageBatchInput{QueueUrl: url, Entries: []types.SendMessageBatchRequestEntry{
		{Id: aws.String("a"), MessageBody: aws.String("batch a")},
		{Id: aws.String("b"), MessageBody: aws.String("batch b ✓")},
	}}))
	var batchIds []string
	for _, entry := range batch.Successful {
		batchIds = append(batchIds, aws.ToString(entry.Id))
	}
	sort.Strings(batchIds)
	summary["batch"] = map[string]any{"successfulIds": batchIds, "failed": len(batch.Failed)}

	received := must(client.ReceiveMessage(ctx, &sqs.ReceiveMessageInput{
		QueueUrl: url, MaxNumberOfMessages: 10, MessageAttributeNames: []string{"All"},
		AttributeNames: []types.QueueAttributeName{"All"},
	})).Messages
	var bodies []string
	var handles []types.DeleteMessageBatchRequestEntry
	for i, message := range received {
		bodies = append(bodies, aws.ToString(message.Body))
		handles = append(handles, types.DeleteMessageBatchRequestEntry{Id: aws.String(fmt.Sprint(i)), ReceiptHandle: message.ReceiptHandle})
		if aws.ToString(message.Body) == body {
			summary["receive"] = map[string]any{
				"md5OfBody": aws.ToString(message.MD5OfBody), "md5OfAttributes": aws.ToString(message.MD5OfMessageAttributes),
				"attributes": attributesOf(message), "systemAttributes": message.Attributes,
			}
		}
	}
	sort.Strings(bodies)
	summary["receivedBodies"] = bodies

	// A visibility change to 0 makes the first message receivable again, with a new handle.
	_ = must(client.ChangeMessageVisibility(ctx, &sqs.ChangeMessageVisibilityInput{
		QueueUrl: url, ReceiptHandle: received[0].ReceiptHandle, VisibilityTimeout: 0,
	}))
	again := must(client.ReceiveMessage(ctx, &sqs.ReceiveMessageInput{
		QueueUrl: url, MaxNumberOfMessages: 10, AttributeNames: []types.QueueAttributeName{"ApproximateReceiveCount"},
	})).Messages
	summary["redelivery"] = map[string]any{
		"count": len(again), "receiveCount": again[0].Attributes["ApproximateReceiveCount"],
		"newHandle": aws.ToString(again[0].ReceiptHandle) != aws.ToString(received[0].ReceiptHandle),
	}
	_ = must(client.DeleteMessage(ctx, &sqs.DeleteMessageInput{QueueUrl: url, ReceiptHandle: again[0].ReceiptHandle}))
	deleted := must(client.DeleteMessageBatch(ctx, &sqs.DeleteMessageBatchInput{QueueUrl: url, Entries: handles}))
	summary["deleteBatch"] = map[string]int{"successful": len(deleted.Successful), "failed": len(deleted.Failed)}

	_ = must(client.TagQueue(ctx, &sqs.TagQueueInput{QueueUrl: url, Tags: map[string]string{"team": "go ✓"}}))
	summary["tags"] = must(client.ListQueueTags(ctx, &sqs.ListQueueTagsInput{QueueUrl: url})).Tags
	summary["attributes"] = must(client.GetQueueAttributes(ctx, &sqs.GetQueueAttributesInput{
		QueueUrl: url, AttributeNames: []types.QueueAttributeName{"All"},
	})).Attributes

	errs := map[string]failure{}
	_, err := client.GetQueueUrl(ctx, &sqs.GetQueueUrlInput{QueueName: aws.String(name + "-missing")})
	errs["getQueueUrlMissing"] = errorOf(err)
	_, err = client.DeleteMessage(ctx, &sqs.DeleteMessageInput{QueueUrl: url, ReceiptHandle: aws.String("not-a-handle")})
	errs["badReceiptHandle"] = errorOf(err)
	_, err = client.SendMessage(ctx, &sqs.SendMessageInput{QueueUrl: url, MessageBody: aws.String("")})
	errs["emptyBody"] = errorOf(err)

	fifoUrl := must(client.CreateQueue(ctx, &sqs.CreateQueueInput{
		QueueName: aws.String(name + ".fifo"), Attributes: map[string]string{"FifoQueue": "true", "ContentBasedDeduplication": "true"},
	})).QueueUrl
	var sequenceNumbers []string
	for _, sent := range []struct{ body, group string }{{"f1", "a"}, {"f2", "b"}, {"f3", "a"}} {
		out := must(client.SendMessage(ctx, &sqs.SendMessageInput{QueueUrl: fifoUrl, MessageBody: aws.String(sent.body), MessageGroupId: aws.String(sent.group)}))
		sequenceNumbers = append(sequenceNumbers, aws.ToString(out.SequenceNumber))
	}
	duplicate := must(client.SendMessage(ctx, &sqs.SendMessageInput{QueueUrl: fifoUrl, MessageBody: aws.String("f1"), MessageGroupId: aws.String("a")}))
	var fifoReceived [][]string
	for _, message := range must(client.ReceiveMessage(ctx, &sqs.ReceiveMessageInput{
		QueueUrl: fifoUrl, MaxNumberOfMessages: 10, AttributeNames: []types.QueueAttributeName{"All"},
	})).Messages {
		fifoReceived = append(fifoReceived, []string{aws.ToString(message.Body), message.Attributes["MessageGroupId"], message.Attributes["SequenceNumber"]})
	}
	_, err = client.SendMessage(ctx, &sqs.SendMessageInput{QueueUrl: fifoUrl, MessageBody: aws.String("no group")})
	errs["fifoMissingGroup"] = errorOf(err)
	summary["fifo"] = map[string]any{
		"sequenceNumbers": sequenceNumbers, "duplicateSequenceNumber": aws.ToString(duplicate.SequenceNumber), "received": fifoReceived,
	}

	_ = must(client.PurgeQueue(ctx, &sqs.PurgeQueueInput{QueueUrl: fifoUrl}))
	_ = must(client.DeleteQueue(ctx, &sqs.DeleteQueueInput{QueueUrl: fifoUrl}))
	_ = must(client.DeleteQueue(ctx, &sqs.DeleteQueueInput{QueueUrl: url}))
	_, err = client.SendMessage(ctx, &sqs.SendMessageInput{QueueUrl: url, MessageBody: aws.String("gone")})
	errs["afterDelete"] = errorOf(err)
	summary["errors"] = errs
	summary["ok"] = true
	must(0, json.NewEncoder(os.Stdout).Encode(summary))
}

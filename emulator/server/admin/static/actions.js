"use strict";
// What the dashboard does to queues, each through the SQS JSON 1.0 API as any client would:
// create and delete queues, receive and delete messages, redrive a dead-letter queue with a
// message move task. (Sending, purging and the manual clock are in app.js.)

// -- create and delete queues ---------------------------------------------------------

// The dead-letter queues the create form offers: this account's and region's queues of the
// same type (SQS wants a FIFO queue's dead-letter queue to be FIFO, and a standard's standard).
function renderCreateChoices() {
  const fifo = $("create-fifo").checked;
  const choice = $("create-dlq");
  const kept = choice.value;
  const options = state.queues.filter((q) => home(q) && (q.type === "fifo") === fifo)
    .map((q) => el("option", {value: q.arn, text: q.name}));
  choice.replaceChildren(el("option", {value: "", text: "none"}), ...options);
  choice.value = options.some((option) => option.value === kept) ? kept : "";
  $("create-cbd-label").hidden = !fifo;
  $("create-max-label").hidden = !choice.value;
}

$("create-fifo").addEventListener("change", renderCreateChoices);
$("create-dlq").addEventListener("change", renderCreateChoices);

$("create-form").addEventListener("submit", (event) => {
  event.preventDefault();
  const name = $("create-name").value.trim();
  const attributes = {};
  if ($("create-fifo").checked) {
    attributes.FifoQueue = "true";
    if ($("create-cbd").checked) attributes.ContentBasedDeduplication = "true";
  }
  if ($("create-visibility").value !== "") attributes.VisibilityTimeout = $("create-visibility").value;
  if ($("create-dlq").value) {
    attributes.RedrivePolicy = JSON.stringify({
      deadLetterTargetArn: $("create-dlq").value, maxReceiveCount: Number($("create-max").value),
    });
  }
  act($("create-button"), async () => {
    const created = await sqs("CreateQueue", {QueueName: name, Attributes: attributes});
    notify(`Created queue ${name}`);
    $("create-name").value = "";
    location.hash = hashFor(created.QueueUrl);
  });
});

$("delete-queue-button").addEventListener("click", () => {
  const queue = selectedQueue();
  if (!queue || !confirm(`Delete the queue ${queue.name} and its messages?`)) return;
  act($("delete-queue-button"), async () => {
    await sqs("DeleteQueue", {QueueUrl: queue.url});
    notify(`Deleted queue ${queue.name}`);
    history.replaceState(null, "", location.pathname);  // no hash: nothing selected
    select(null);
  });
});

// -- receive and delete messages ----------------------------------------------------------

$("receive-form").addEventListener("submit", (event) => {
  event.preventDefault();
  const queue = selectedQueue();
  if (!queue) return;
  // A short poll: on the manual clock a long poll would wait for time the page does not move.
  const params = {QueueUrl: queue.url, MaxNumberOfMessages: Number($("receive-max").value), WaitTimeSeconds: 0,
    MessageSystemAttributeNames: ["All"], MessageAttributeNames: ["All"]};
  if ($("receive-visibility").value !== "") params.VisibilityTimeout = Number($("receive-visibility").value);
  act($("receive-button"), async () => {
    const got = (await sqs("ReceiveMessage", params)).Messages || [];
    if (state.selected !== queue.url) return;
    const fresh = new Set(got.map((m) => m.MessageId));
    state.received = [...got, ...state.received.filter((m) => !fresh.has(m.MessageId))];
    renderReceived();
    const hidden = params.VisibilityTimeout ?? queue.attributes.VisibilityTimeout;
    notify(got.length ? `Received ${got.length} message(s) from ${queue.name}, hidden for ${hidden} s`
      : `No message to receive from ${queue.name}`);
  });
});

function deleteMessage(queue, message, button) {
  act(button, async () => {
    await sqs("DeleteMessage", {QueueUrl: queue.url, ReceiptHandle: message.ReceiptHandle});
    state.received = state.received.filter((m) => m !== message);
    renderReceived();
    notify(`Deleted message ${message.MessageId}`);
  });
}

function renderReceived() {
  const queue = selectedQueue();
  const rows = state.received.map((m) => {
    const attributes = m.Attributes || {};
    return el("tr", {"data-testid": "received-message", "data-id": m.MessageId},
      el("td", {"data-field": "id"}, el("code", {text: m.MessageId})),
      el("td", {}, bodyView(`received:${m.MessageId}`, m.Body, state.expanded)),
      el("td", {class: "num", "data-field": "receive_count", text: attributes.ApproximateReceiveCount || "—"}),
      el("td", {"data-field": "fifo"}, ...fifoFacts({group: attributes.MessageGroupId,
        dedup: attributes.MessageDeduplicationId, seq: attributes.SequenceNumber})),
      el("td", {"data-field": "receipt"}, el("code", {title: m.ReceiptHandle, text: `${m.ReceiptHandle.slice(0, 16)}…`})),
      el("td", {}, el("button", {type: "button", class: "danger", "data-testid": "delete-message",
        onclick: (event) => deleteMessage(queue, m, event.target), text: "Delete"})));
  });
  $("received").tBodies[0].replaceChildren(...rows);
  $("received-section").hidden = rows.length === 0;
}

// -- redrive a dead-letter queue -----------------------------------------------------------

// Only a dead-letter queue can be a move task's source; other queues have none to list.
async function moveTasks(queue) {
  if (!queue.dead_letter_sources.length) return null;
  const listed = await sqs("ListMessageMoveTasks", {SourceArn: queue.arn, MaxResults: 10});
  return {results: listed.Results || []};
}

// A redrive moves the visible messages: with none, it would only start a task of "0 of 0".
function renderRedrive(queue) {
  $("redrive").hidden = queue.dead_letter_sources.length === 0;
  $("redrive-button").disabled = queue.visible === 0;
  $("redrive-empty").hidden = queue.visible > 0;
  const choice = $("redrive-destination");
  const kept = choice.value;
  const others = state.queues.filter((q) => q !== queue && home(q))
    .map((q) => el("option", {value: q.arn, text: q.name}));
  choice.replaceChildren(el("option", {value: "", text: "each message's source queue"}), ...others);
  choice.value = others.some((option) => option.value === kept) ? kept : "";
}

function renderTasks() {
  const tasks = state.tasks;
  const rows = (tasks && tasks.results ? tasks.results : []).map((task) => {
    const moved = task.ApproximateNumberOfMessagesMoved, total = task.ApproximateNumberOfMessagesToMove;
    const cancel = task.Status === "RUNNING" ? el("button", {type: "button", class: "danger",
      "data-testid": "cancel-task", onclick: (event) => cancelTask(task, event.target), text: "Cancel"}) : null;
    return el("tr", {"data-testid": "move-task", "data-status": task.Status},
      el("td", {"data-field": "status", text: task.Status}),
      el("td", {class: "progress"},
        el("progress", {max: String(Math.max(total, 1)), value: String(total ? moved : 1)}),
        el("span", {"data-field": "moved", text: ` ${moved} of ${total}`})),
      el("td", {"data-field": "destination", text: task.DestinationArn ? arnName(task.DestinationArn) : "source queues"}),
      el("td", {"data-field": "rate", text: task.MaxNumberOfMessagesPerSecond ? `${task.MaxNumberOfMessagesPerSecond}/s` : "—"}),
      el("td", {"data-field": "started", text: fmtTime(task.StartedTimestamp / 1000)}),
      el("td", {"data-field": "failure", text: task.FailureReason || ""}),
      el("td", {}, cancel));
  });
  $("move-tasks").tBodies[0].replaceChildren(...rows);
  $("move-tasks").hidden = rows.length === 0;
  $("no-tasks").hidden = rows.length > 0;
  $("no-tasks").textContent = tasks && tasks.error ? tasks.error : "No redrive yet.";
}

function cancelTask(task, button) {
  act(button, async () => {
    const cancelled = await sqs("CancelMessageMoveTask", {TaskHandle: task.TaskHandle});
    notify(`Redrive cancelled after ${cancelled.ApproximateNumberOfMessagesMoved} message(s)`);
  });
}

$("redrive-form").addEventListener("submit", (event) => {
  event.preventDefault();
  const queue = selectedQueue();
  if (!queue || queue.visible === 0) return;
  const params = {SourceArn: queue.arn};
  if ($("redrive-destination").value) params.DestinationArn = $("redrive-destination").value;
  if ($("redrive-rate").value !== "") params.MaxNumberOfMessagesPerSecond = Number($("redrive-rate").value);
  act($("redrive-button"), async () => {
    await sqs("StartMessageMoveTask", params);
    notify(`Redrive of ${queue.name} started`);
  });
});

"use strict";
// The dashboard: polls the admin JSON routes and re-renders what changed. Every change it
// makes goes through the real SQS JSON 1.0 API like any other client's (actions.js), or
// through the admin API (the manual clock).

const POLL_MS = 1500;
const LONG_ID = 24;                     // characters of a FIFO id shown whole (a sequence number has 20)

const state = {
  health: null,
  queues: [],
  messages: null,                       // the last peek answer for the selected queue
  selected: fromHash(),                 // queue URL; kept in the hash so a reload keeps it
  pages: ["0"],                         // peek cursors: page n starts after pages[n]
  expanded: new Set(),                  // message ids whose details (and keys of long bodies) are open
  tasks: null,                          // the selected dead-letter queue's message move tasks
  received: [],                         // what this page received from the selected queue, not yet deleted
  rendered: {},                         // what each part was last drawn from, to skip redraws
};

// -- helpers ------------------------------------------------------------------

function fromHash() {
  return decodeURIComponent(location.hash.slice(1)) || null;
}

function hashFor(url) {
  return "#" + encodeURIComponent(url);
}

function fmtRelative(epoch) {
  const delta = Math.round(epoch - state.health.now);
  if (delta === 0) return "now";
  return delta > 0 ? `in ${delta} s` : `${-delta} s ago`;
}

function selectedQueue() {
  return state.queues.find((queue) => queue.url === state.selected) || null;
}

function home(queue) {
  return queue.account === state.health.account && queue.region === state.health.region;
}


let generation = 0;

async function refresh() {
  const mine = ++generation;
  try {
    // health is open: the header shows it above the page that asks for the token, too
    const [health, list] = await Promise.all([getJSON("/_emulator/health"), getJSON("/_emulator/queues").catch((e) => e)]);
    if (list instanceof Unauthorized && mine === generation) {
      state.health = health;
      renderHealth();
    }
    if (list instanceof Error) throw list;
    const queue = list.queues.find((q) => q.url === state.selected);
    const [messages, tasks] = queue ? await Promise.all([
      peek(queue).catch((error) => ({error: error.message})),
      moveTasks(queue).catch((error) => ({error: error.message})),
    ]) : [null, null];
    if (mine !== generation) return;    // a newer refresh (after a click) started: its answer wins
    Object.assign(state, {health, queues: list.queues, messages, tasks});
    showTokenPage(false);
    render();
    $("connection").textContent = "";
  } catch (error) {
    if (mine !== generation) return;
    if (error instanceof Unauthorized) showTokenPage(true);
    else $("connection").textContent = `cannot reach the emulator: ${error.message}`;
  }
}

function peek(queue) {
  const query = new URLSearchParams({
    queue: queue.url, account: queue.account, region: queue.region,
    state: $("msg-state").value, limit: $("msg-limit").value, after: state.pages[state.pages.length - 1],
  });
  return getJSON(`/_emulator/messages?${query}`);
}

async function poll() {
  if ($("auto-refresh").checked && !document.hidden && $("token-page").hidden) await refresh();
  setTimeout(poll, POLL_MS);
}

// -- drawing ----------------------------------------------------------------------

// Redraw a part only when its data changed, so open details and text selections survive polls.
function changed(part, data) {
  const key = JSON.stringify(data);
  if (state.rendered[part] === key) return false;
  state.rendered[part] = key;
  return true;
}

function render() {
  if (!state.health) return;            // nothing to draw before the first answer
  renderHealth();
  if (changed("queues", [state.queues, state.selected])) {
    renderDiagram();
    renderDetail();
    renderCreateChoices();
  }
  if (changed("queue-rows", [state.queues, state.selected, $("queue-filter").value])) renderQueues();
  if (changed("messages", [state.messages, state.selected])) renderMessages();
  if (changed("tasks", [state.tasks, state.selected])) renderTasks();
  // relative times follow the clock without redrawing their rows
  for (const node of document.querySelectorAll("[data-rel]")) node.textContent = fmtRelative(Number(node.dataset.rel));
}

function renderHealth() {
  const health = state.health;
  $("version").textContent = `v${health.version}`;
  const store = health.persistence ? `data in ${health.persistence.data_dir} (sync ${health.persistence.sync})` : "in memory";
  $("identity").textContent = `account ${health.account} · ${health.region} · ${store}`;
  $("clock-mode").textContent = health.clock;
  const now = $("clock-now");
  now.textContent = fmtTime(health.now);
  now.dataset.epoch = String(health.now);
  now.setAttribute("datetime", new Date(health.now * 1000).toISOString());
  $("advance-form").hidden = health.clock !== "manual";
}

function counter(field, value) {
  return el("td", {class: "num" + (value ? "" : " zero"), "data-field": field, text: String(value)});
}

function receives(count) {
  return `after ${count} receive${Number(count) === 1 ? "" : "s"}`;
}

// A queue's mappings in a word: how many, and whether any fails (its last invocation or its poller).
function mappingsCell(queue) {
  const mappings = queue.event_sources;
  if (!mappings.length) return counter("event_sources", 0);
  const failing = mappings.filter(mappingFails).length;
  const text = failing ? `${failing} of ${mappings.length} failing` : `${mappings.length} ${mappings.length === 1 ? "mapping" : "mappings"}`;
  return el("td", {"data-field": "event_sources"},
    el("span", {class: failing ? "badge failing" : "badge", text}));
}

function renderQueues() {
  const byArn = new Map(state.queues.map((queue) => [queue.arn, queue]));
  const filter = $("queue-filter").value.trim().toLowerCase();
  const shown = state.queues.filter((queue) => !filter || queue.name.toLowerCase().includes(filter));
  const rows = shown.map((queue) => {
    let dlq = "—";
    if (queue.dead_letter_target) {
      const target = byArn.get(queue.dead_letter_target);
      const max = redrive(queue).maxReceiveCount;
      const name = target ? target.name : arnName(queue.dead_letter_target);
      dlq = el("span", {},
        el(target ? "a" : "span", {
          href: target && hashFor(target.url), class: target ? "dlq-link" : "dlq-link missing",
          "data-testid": "dlq-link", "data-target": name, title: queue.dead_letter_target,
          text: `→ ${name}${target ? "" : " (missing)"}`,
        }),
        max ? el("span", {class: "muted", text: ` ${receives(max)}`}) : null);
    }
    return el("tr", {
      "data-testid": "queue-row", "data-name": queue.name, "data-url": queue.url,
      class: queue.url === state.selected ? "selected" : null,
      onclick: (event) => { if (!event.target.closest("a")) location.hash = hashFor(queue.url); },
    },
      el("td", {"data-field": "name"}, el("a", {href: hashFor(queue.url), title: queue.url, text: queue.name}),
        home(queue) ? null : el("div", {class: "muted", text: `${queue.account} · ${queue.region}`})),
      el("td", {"data-field": "type"}, el("span", {class: `badge ${queue.type}`, text: queue.type}),
        queue.dead_letter_sources.length ? el("span", {class: "badge dlq", "data-testid": "dlq-badge", text: "DLQ",
          title: `dead-letter queue of ${queue.dead_letter_sources.map(arnName).join(", ")}`}) : null),
      counter("visible", queue.visible), counter("inflight", queue.inflight), counter("delayed", queue.delayed),
      counter("sent", queue.totals.sent), counter("moved_in", queue.totals.moved_in),
      counter("received", queue.totals.received),
      counter("deleted", queue.totals.deleted), counter("dead_lettered", queue.totals.dead_lettered),
      counter("expired", queue.totals.expired),
      el("td", {"data-field": "dead_letter_target"}, dlq), mappingsCell(queue));
  });
  $("queues").tBodies[0].replaceChildren(...rows);
  const total = state.queues.length;
  $("queue-count").textContent = shown.length === total ? `(${total})` : `(${shown.length} of ${total})`;
  $("no-queues").hidden = total > 0;
  $("no-match").hidden = !total || shown.length > 0;
  $("no-match").textContent = `No queue name contains “${filter}”.`;
}

function renderDetail() {
  const queue = selectedQueue();
  $("detail").hidden = !queue;
  if (!queue) return;
  $("detail-name").textContent = queue.name;
  $("detail-dlq").hidden = !queue.dead_letter_sources.length;
  const byArn = new Map(state.queues.map((q) => [q.arn, q]));
  const link = (q) => el("a", {href: hashFor(q.url), text: q.name});
  const target = queue.dead_letter_target;
  // the queues whose redrive policy names this one (a queue with any is a dead-letter queue)
  const sources = queue.dead_letter_sources.map((arn) => byArn.get(arn)).filter(Boolean);
  const totals = Object.entries(queue.totals).map(([name, value]) => `${name.replace(/_/g, " ")} ${value}`).join(" · ");
  const facts = [
    ["URL", "url", queue.url],
    ["ARN", "arn", queue.arn],
    ["Type", "type", queue.type],
    ["Created", "created_at", fmtTime(queue.created_at)],
    ["Dead-letter queue", "dead_letter_target", target ? (byArn.has(target) ? link(byArn.get(target)) : target) : "none"],
    ["Dead letters from", "dead_letter_sources", sources.length ? sources.flatMap((q, i) => (i ? [", ", link(q)] : [link(q)])) : "none"],
    ["Totals", "totals", totals],
  ];
  $("detail-facts").replaceChildren(...facts.flatMap(([label, field, value]) =>
    [el("dt", {text: label}), el("dd", {"data-field": field}, ...[value].flat())]));
  // only the fields this kind of queue takes; their contents stay as typed
  $("fifo-fields").hidden = queue.type !== "fifo";
  $("standard-fields").hidden = queue.type === "fifo";
  // placeholders that say what an empty field means for this queue
  $("send-delay").placeholder = `${queue.attributes.DelaySeconds || 0} (the queue's)`;
  $("receive-visibility").placeholder = `${queue.attributes.VisibilityTimeout} (the queue's)`;
  $("send-dedup").placeholder = queue.attributes.ContentBasedDeduplication === "true"
    ? "optional: content-based" : "required";
  const pairs = (object) => Object.entries(object).sort(([a], [b]) => a.localeCompare(b))
    .map(([key, value]) => el("tr", {"data-key": key}, el("th", {text: key}), el("td", {text: readable(value)})));
  $("attributes").tBodies[0].replaceChildren(...pairs(queue.attributes));
  $("tags").tBodies[0].replaceChildren(...pairs(queue.tags));
  $("no-tags").hidden = Object.keys(queue.tags).length > 0;
  renderRedrive(queue);
  renderMappings(queue);
  renderFaults(queue);
}

function renderMessages() {
  const data = state.messages;
  const body = $("messages").tBodies[0];
  if (!data || data.error) {
    body.replaceChildren();
    $("no-messages").hidden = !data;
    $("no-messages").textContent = data ? data.error : "";
    return;
  }
  const rows = data.messages.map((m) => {
    const details = el("details", {open: state.expanded.has(m.id),
      ontoggle: (event) => { event.target.open ? state.expanded.add(m.id) : state.expanded.delete(m.id); }},
      el("summary", {text: "more"}),
      el("pre", {text: JSON.stringify({
        attributes: m.attributes, first_receive_at: fmtTime(m.first_receive_at),
        dead_letter_source: m.dead_letter_source, visible_at: fmtTime(m.visible_at),
      }, null, 2)}));
    const fifo = fifoFacts({group: m.group_id, dedup: m.dedup_id, seq: m.sequence_number});
    return el("tr", {"data-testid": "message", "data-id": m.id, "data-state": m.state},
      el("td", {class: "num muted", text: m.cursor}),
      el("td", {"data-field": "id"}, el("code", {text: m.id}), " ",
        el("button", {type: "button", "data-testid": "timeline-button", text: "timeline",
          title: "What happened to this message", onclick: () => showTimeline(m.id)})),
      el("td", {}, el("span", {class: `state ${m.state}`, "data-field": "state", text: m.state})),
      el("td", {}, bodyView(`body:${m.id}`, m.body, state.expanded)),
      el("td", {class: "num", "data-field": "receive_count", text: String(m.receive_count)}),
      el("td", {"data-field": "sent_at", text: fmtTime(m.sent_at)}),
      el("td", {"data-field": "visible_at"}, m.state === "visible" ? "now" :
        el("span", {title: fmtTime(m.visible_at), "data-rel": m.visible_at})),
      el("td", {"data-field": "fifo"}, ...fifo),
      el("td", {}, details));
  });
  body.replaceChildren(...rows);
  $("no-messages").hidden = rows.length > 0;
  $("no-messages").textContent = "No messages in this state.";
  $("msg-next").disabled = !data.next;
  $("msg-prev").disabled = $("msg-first").disabled = state.pages.length === 1;
  $("msg-page").textContent = `page ${state.pages.length}${data.next ? "" : " (last)"}`;
  $("msg-next").dataset.next = data.next || "";
}

// A JSON attribute (RedrivePolicy, Policy) one member a line, so it breaks between members
// (and still copies as JSON).
function readable(value) {
  if (!value.startsWith("{")) return value;
  try {
    return JSON.stringify(JSON.parse(value), null, 1);
  } catch {
    return value;
  }
}

// FIFO facts each on one line: they wrap between facts, never inside an id. A long id (a
// content-based deduplication id is 64 hex digits) shows its start; all of it is its title.
function fifoFacts(facts) {
  const parts = Object.entries(facts).filter(([, value]) => value);
  if (!parts.length) return ["—"];
  return parts.flatMap(([label, value], i) => [i ? " · " : null, el("span", {class: "fact",
    title: value.length > LONG_ID ? value : null,
    text: `${label} ${value.length > LONG_ID ? value.slice(0, LONG_ID - 4) + "…" : value}`})])
    .filter(Boolean);
}

// -- actions (more in actions.js) ---------------------------------------------------

function select(url) {
  if (url === state.selected) return;
  Object.assign(state, {selected: url, pages: ["0"], messages: null, tasks: null, received: []});
  renderReceived();
  state.expanded.clear();
  render();
  refresh();
}

function page(pages) {
  state.pages = pages.length ? pages : ["0"];
  refresh();
}

window.addEventListener("hashchange", () => select(fromHash()));

$("send-form").addEventListener("submit", (event) => {
  event.preventDefault();
  const queue = selectedQueue();
  if (!queue) return;
  const params = {QueueUrl: queue.url, MessageBody: $("send-body").value};
  if (queue.type === "fifo") {
    if ($("send-group").value) params.MessageGroupId = $("send-group").value;
    if ($("send-dedup").value) params.MessageDeduplicationId = $("send-dedup").value;
  } else if ($("send-delay").value !== "") {
    params.DelaySeconds = Number($("send-delay").value);
  }
  act($("send-button"), async () => {
    const sent = await sqs("SendMessage", params);
    notify(`Sent message ${sent.MessageId} to ${queue.name}`, true, sent.MessageId);
  });
});

$("purge-button").addEventListener("click", () => {
  const queue = selectedQueue();
  if (!queue || !confirm(`Purge every message from ${queue.name}?`)) return;
  act($("purge-button"), async () => {
    await sqs("PurgeQueue", {QueueUrl: queue.url});
    notify(`Purged ${queue.name}`);
  });
});

$("advance-form").addEventListener("submit", (event) => {
  event.preventDefault();
  const seconds = Number($("advance-seconds").value);
  act($("advance-button"), async () => {
    const moved = await admin("POST", "/_emulator/clock/advance", {seconds});
    notify(`Clock advanced ${seconds} s to ${fmtTime(moved.now)}`);
  });
});

$("msg-state").addEventListener("change", () => page(["0"]));
$("msg-limit").addEventListener("change", () => page(["0"]));
$("msg-first").addEventListener("click", () => page(["0"]));
$("msg-prev").addEventListener("click", () => page(state.pages.slice(0, -1)));
$("msg-next").addEventListener("click", () => {
  if (state.messages && state.messages.next) page([...state.pages, state.messages.next]);
});
$("auto-refresh").addEventListener("change", () => refresh());
$("queue-filter").addEventListener("input", () => render());

// After every script ran (they are deferred, in order): the first answer may draw any part.
document.addEventListener("DOMContentLoaded", poll);

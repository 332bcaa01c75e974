"use strict";
// What the dashboard shows and changes beyond SQS, through the admin API: the selected queue's
// event source mappings and its fault policy; and the page that asks for the admin token.

// -- event source mappings ------------------------------------------------------------

// A mapping fails when its poller ended on an error, or its last invocation failed.
function mappingFails(mapping) {
  return mapping.state.startsWith("failed") || Boolean(mapping.counters.last_error);
}

function renderMappings(queue) {
  const rows = queue.event_sources.map((m) => {
    const c = m.counters;
    const target = Array.isArray(m.target) ? m.target.join(" ") : String(m.target);
    const stateClass = m.state === "enabled" ? "visible" : m.state === "disabled" ? "delayed" : "failed";
    return el("tr", {"data-testid": "mapping", "data-id": m.id, class: mappingFails(m) ? "failing" : null},
      el("td", {"data-field": "target"}, el("code", {title: m.id, text: target})),
      el("td", {}, el("span", {class: `state ${stateClass}`, "data-field": "state", text: m.state})),
      el("td", {class: "num", "data-field": "batch_size", text: String(m.batch_size)}),
      counter("invocations", c.invocations), counter("records", c.records), counter("succeeded", c.succeeded),
      counter("partial", c.partial), counter("failures", c.failures), counter("in_flight", c.in_flight),
      el("td", {class: c.last_error ? "error-text" : "muted", "data-field": "last_error", text: c.last_error || "none"}));
  });
  $("mappings").tBodies[0].replaceChildren(...rows);
  $("mappings-box").hidden = rows.length === 0;
  $("no-mappings").hidden = rows.length > 0;
}

// -- faults -----------------------------------------------------------------------------

const FAULT_INPUTS = {
  duplicate_delivery: "fault-duplicate", lost_delete: "fault-lost",
  delayed_visibility_seconds: "fault-delay", seed: "fault-seed",
};

// The form shows the policy in force; it is redrawn when the policy (or the queue) changes,
// so what the user is typing survives the polls in between.
function renderFaults(queue) {
  if (!changed("faults", [queue.url, queue.faults])) return;
  for (const [name, id] of Object.entries(FAULT_INPUTS)) {
    const value = queue.faults ? queue.faults[name] : null;
    $(id).value = value == null || (value === 0 && name !== "seed") ? "" : String(value);
  }
  $("fault-loose").checked = Boolean(queue.faults && queue.faults.loose);
  $("fault-loose").disabled = queue.type === "fifo";  // a FIFO queue keeps its order
  $("faults-clear").disabled = !queue.faults;
}

$("faults-form").addEventListener("submit", (event) => {
  event.preventDefault();
  const queue = selectedQueue();
  if (!queue) return;
  const body = {queue: queue.url, account: queue.account, region: queue.region};
  for (const [name, id] of Object.entries(FAULT_INPUTS)) {
    if ($(id).value !== "") body[name] = Number($(id).value);
  }
  if ($("fault-loose").checked) body.loose = true;
  act($("faults-button"), async () => {
    await admin("PUT", "/_emulator/faults", body);
    notify(`Faults of ${queue.name} saved`);
  });
});

$("faults-clear").addEventListener("click", () => {
  const queue = selectedQueue();
  if (!queue) return;
  act($("faults-clear"), async () => {
    await admin("DELETE", "/_emulator/faults", {queue: queue.url, account: queue.account, region: queue.region});
    notify(`Faults of ${queue.name} cleared`);
  });
});

// -- the admin token ----------------------------------------------------------------------

function showTokenPage(asked) {
  const shown = !$("token-page").hidden;
  $("token-page").hidden = !asked;
  document.querySelector("main").hidden = asked;
  if (asked && !shown) {
    $("token-refused").hidden = !sessionStorage.getItem(TOKEN_KEY);  // a token was tried, and refused
    $("token-input").focus();
  }
}

$("token-form").addEventListener("submit", (event) => {
  event.preventDefault();
  sessionStorage.setItem(TOKEN_KEY, $("token-input").value.trim());
  $("token-input").value = "";
  $("token-page").hidden = true;        // shown again, with "refused", if the emulator refuses it
  refresh();
});

"use strict";
// A message's timeline: its story from the admin API (/_emulator/histories/<id>), one click
// from the message list, of any queue: a dead-letter queue's messages tell why they are there.

const EVENT_WORDS = {
  sent: "sent", received: "received", visibility_changed: "visibility changed",
  visibility_change_ignored: "visibility change (its visibility had ended)",
  visibility_timeout_ended: "visibility timeout ended: visible again", deleted: "deleted",
  delete_refused: "delete with a stale handle (nothing deleted)",
  delete_of_gone_message: "delete of a message already gone", expired: "expired (retention period)",
  purged: "purged", dead_lettered: "moved to its dead-letter queue",
  arrived_as_dead_letter: "arrived as a dead letter", redriven: "redriven out", arrived_by_redrive: "arrived by redrive",
  fault: "injected fault",
};

// What an event knows, beside its time and name, as "key value" facts.
function eventFacts(event) {
  const skip = new Set(["n", "at", "event", "queue"]);
  return Object.entries(event).filter(([key, value]) => !skip.has(key) && value !== null && value !== undefined)
    .map(([key, value]) => `${key.replaceAll("_", " ")} ${key === "visible_again_at" ? fmtTime(value) : value}`);
}

async function showTimeline(messageId) {
  const section = $("timeline");
  section.hidden = false;
  $("timeline-id").textContent = messageId;
  const body = $("timeline-events").tBodies[0];
  body.replaceChildren();
  $("timeline-error").hidden = true;
  try {
    const story = await getJSON(`/_emulator/histories/${encodeURIComponent(messageId)}`);
    body.replaceChildren(...story.events.map((event) => el("tr", {"data-testid": "timeline-event", "data-event": event.event},
      el("td", {"data-field": "at", text: fmtTime(event.at)}),
      el("td", {"data-field": "queue"}, el("code", {text: event.queue.split("/").pop()})),
      el("td", {"data-field": "event", class: event.event === "dead_lettered" || event.event === "fault" ? "error-text" : null,
        text: EVENT_WORDS[event.event] || event.event}),
      el("td", {"data-field": "facts", class: "muted", text: eventFacts(event).join(" · ")}))));
  } catch (error) {
    $("timeline-error").hidden = false;
    $("timeline-error").textContent = error.message;
  }
  section.scrollIntoView({block: "nearest"});
}

$("timeline-close").addEventListener("click", () => { $("timeline").hidden = true; });

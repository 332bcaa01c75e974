"use strict";
// Shared by the dashboard's scripts: building nodes, formatting, and the two ways to talk
// to the emulator (the admin JSON routes, and the SQS JSON 1.0 API as any client would).

const SVG = "http://www.w3.org/2000/svg";
const LONG_BODY = 160;                  // characters; a longer body (or one of many lines) starts collapsed
const $ = (id) => document.getElementById(id);

function el(tag, props = {}, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(props)) {
    if (value == null || value === false) continue;
    if (key === "text") node.textContent = value;
    else if (key.startsWith("on")) node.addEventListener(key.slice(2), value);
    else node.setAttribute(key, value === true ? "" : value);
  }
  node.append(...children.filter((child) => child != null));
  return node;
}

function svg(tag, attrs = {}, ...children) {
  const node = document.createElementNS(SVG, tag);
  for (const [key, value] of Object.entries(attrs)) {
    if (key === "text") node.textContent = value;
    else if (key.startsWith("on")) node.addEventListener(key.slice(2), value);
    else node.setAttribute(key, value);
  }
  node.append(...children);
  return node;
}

// Times are the emulator's (a manual clock may be years from the browser's), to the second, in UTC.
function fmtTime(epoch) {
  if (epoch == null) return "—";
  return new Date(Math.floor(epoch) * 1000).toISOString().replace("T", " ").replace(/\.\d+Z$/, " UTC");
}

function arnName(arn) {
  return arn.split(":").pop();
}

function redrive(queue) {
  try {
    return JSON.parse(queue.attributes.RedrivePolicy || "{}");
  } catch {
    return {};
  }
}

// A message body: short ones as they are; long ones collapsed to their start, opened on a
// click (`open` is the set of keys the user opened, so a redraw keeps them open).
function bodyView(key, text, open) {
  const body = el("pre", {class: "body", "data-field": "body", text});
  if (text.length <= LONG_BODY && text.split("\n").length <= 3) return body;
  const start = text.slice(0, 80).replace(/\s+/g, " ");
  return el("details", {class: "long-body", "data-testid": "long-body", open: open.has(key),
    ontoggle: (event) => { event.target.open ? open.add(key) : open.delete(key); }},
    el("summary", {}, el("span", {class: "start", text: `${start}…`}),
      el("span", {class: "muted", text: ` (${text.length} characters)`})),
    body);
}

// -- the admin token (--require-auth) --------------------------------------------------
// It comes once, in the fragment of the banner's link (#token=...), which the browser never
// sends anywhere. The page keeps it in sessionStorage, which is this scheme, host and port's
// alone (a cookie would go to every port of the host), and sends it as a Bearer header.

const TOKEN_KEY = "sqs-emulator-admin-token";

(function takeToken() {
  const given = /^#token=([^&]*)$/.exec(location.hash);
  if (!given) return;
  sessionStorage.setItem(TOKEN_KEY, decodeURIComponent(given[1]));
  history.replaceState(null, "", location.pathname + location.search);  // out of the address bar
})();

function withToken(headers = {}) {
  const token = sessionStorage.getItem(TOKEN_KEY);
  return token ? {...headers, Authorization: `Bearer ${token}`} : headers;
}

class Unauthorized extends Error {}

// -- talking to the emulator -------------------------------------------------------
// JSON content types only, same origin: the emulator refuses cross-site form posts.

// An admin route: its JSON answer, or the error it names (Unauthorized without the token).
async function admin(method, path, body) {
  const init = {method, cache: "no-store", headers: withToken()};
  if (body !== undefined) {
    init.headers["Content-Type"] = "application/json";
    init.body = JSON.stringify(body);
  }
  const response = await fetch(path, init);
  const data = await response.json().catch(() => ({}));
  if (response.status === 401) throw new Unauthorized(data.error || "the admin token is needed");
  if (!response.ok) throw new Error(data.error || `${path}: HTTP ${response.status}`);
  return data;
}

const getJSON = (path) => admin("GET", path);

// Unsigned requests act as the default account (under --require-auth, with the admin token).
// An error reads as AWS sent it: the code from __type (after its namespace) and the message.
async function sqs(action, params) {
  const response = await fetch("/", {
    method: "POST",
    headers: withToken({"Content-Type": "application/x-amz-json-1.0", "X-Amz-Target": `AmazonSQS.${action}`}),
    body: JSON.stringify(params),
  });
  const data = await response.json().catch(() => ({}));
  if (!response.ok) {
    const type = (data.__type || `HTTP ${response.status}`).split("#").pop();
    throw new Error(`${action} failed: ${type}: ${data.message || data.Message || "no message"}`);
  }
  return data;
}

// -- feedback -----------------------------------------------------------------------

function notify(text, ok = true, messageId = "") {
  const notice = $("notice");
  notice.hidden = false;
  notice.className = ok ? "ok" : "error";
  notice.textContent = text;
  notice.dataset.messageId = messageId;  // the last sent message's id, for scripts and tests
}

// Run one action with its button disabled; show its error, then show its effect.
async function act(button, action) {
  button.disabled = true;
  try {
    await action();
  } catch (error) {
    notify(error.message, false);
  } finally {
    button.disabled = false;
  }
  delete state.rendered.queues;         // redraw the detail, whose state may disable the button again
  await refresh();
}

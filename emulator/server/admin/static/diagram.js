"use strict";
// The dead-letter links: a box for each queue that sends to or takes dead letters, an arrow
// from each source to its dead-letter queue, labelled with the source's maxReceiveCount.

const MAX_BOX = 480;                    // px: the widest queue box

function renderDiagram() {
  const box = {w: 250, h: 46, gapX: 150, gapY: 14, pad: 8};
  const byArn = new Map(state.queues.map((queue) => [queue.arn, queue]));
  const edges = state.queues.filter((q) => byArn.has(q.dead_letter_target)).map((q) => [q, byArn.get(q.dead_letter_target)]);
  const nodes = state.queues.filter((q) => edges.some(([source, target]) => source === q || target === q));
  // Boxes as wide as the longest name (about 8 px a character), within bounds; longer names end in "…".
  const fits = Math.floor((MAX_BOX - 20) / 8);
  box.w = Math.max(box.w, Math.min(MAX_BOX, 20 + 8 * Math.max(0, ...nodes.map((q) => q.name.length))));
  // A queue's column is the longest redrive chain into it, so sources stand left of their DLQs
  // (bounded passes: a cycle of redrives cannot loop forever).
  const column = new Map(nodes.map((q) => [q, 0]));
  for (let pass = 0; pass < nodes.length; pass++) {
    for (const [source, target] of edges) {
      column.set(target, Math.min(nodes.length - 1, Math.max(column.get(target), column.get(source) + 1)));
    }
  }
  const rows = [];
  const at = new Map();
  for (const q of nodes) {
    const col = column.get(q);
    rows[col] = (rows[col] || 0) + 1;
    at.set(q, {x: box.pad + col * (box.w + box.gapX), y: box.pad + (rows[col] - 1) * (box.h + box.gapY)});
  }
  const width = box.pad * 2 + Math.max(1, rows.length) * (box.w + box.gapX) - box.gapX;
  const height = box.pad * 2 + Math.max(1, ...rows.filter(Boolean)) * (box.h + box.gapY) - box.gapY;

  const marker = svg("marker", {id: "arrow", viewBox: "0 0 10 10", refX: "9", refY: "5", markerWidth: "7",
    markerHeight: "7", orient: "auto-start-reverse"}, svg("path", {d: "M0 0L10 5L0 10z"}));
  const drawn = [svg("defs", {}, marker)];
  for (const [source, target] of edges) {
    const a = at.get(source), b = at.get(target);
    const x1 = a.x + box.w, y1 = a.y + box.h / 2, x2 = b.x, y2 = b.y + box.h / 2;
    const bend = Math.max(40, Math.abs(x2 - x1) / 2);
    const max = redrive(source).maxReceiveCount;
    drawn.push(svg("g", {class: "edge", "data-testid": "dlq-edge", "data-source": source.name, "data-target": target.name},
      svg("title", {text: `${source.name} → ${target.name}${max ? ` ${receives(max)}` : ""}`}),
      svg("path", {d: `M${x1} ${y1}C${x1 + bend} ${y1} ${x2 - bend} ${y2} ${x2} ${y2}`, "marker-end": "url(#arrow)"}),
      max ? svg("text", {x: (x1 + x2) / 2, y: (y1 + y2) / 2 - 6, "text-anchor": "middle",
        text: `maxReceiveCount ${max}`}) : ""));
  }
  for (const q of nodes) {
    const {x, y} = at.get(q);
    const isTarget = q.dead_letter_sources.length > 0;
    const counts = `${q.visible} visible · ${q.inflight} in flight` + (isTarget ? ` · ${q.totals.moved_in} moved in` : "");
    const name = q.name.length > fits ? q.name.slice(0, fits - 1) + "…" : q.name;
    drawn.push(svg("g", {
      class: `node${isTarget ? " dlq" : ""}${q.url === state.selected ? " selected" : ""}`,
      "data-testid": "dlq-node", "data-name": q.name, onclick: () => { location.hash = hashFor(q.url); },
    },
      svg("title", {text: q.arn}),
      svg("rect", {x, y, width: box.w, height: box.h, rx: 6}),
      svg("text", {x: x + 10, y: y + 19, class: "name", text: name}),
      svg("text", {x: x + 10, y: y + 36, class: "counts", text: counts})));
  }
  const diagram = $("dlq-diagram");
  diagram.replaceChildren(...drawn);
  diagram.setAttribute("viewBox", `0 0 ${width} ${height}`);
  diagram.setAttribute("width", width);
  diagram.setAttribute("height", height);
  diagram.toggleAttribute("hidden", edges.length === 0);  // an SVG element has no .hidden
  $("no-links").hidden = edges.length > 0;
}

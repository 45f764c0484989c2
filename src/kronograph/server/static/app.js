// kronograph's web view: plain JavaScript and SVG, no dependencies.
// It reads the REST API (/v1/...) and never writes. Text from the memory is
// only ever put in the page with textContent, never parsed as HTML.
"use strict";

const SVG = "http://www.w3.org/2000/svg";
const $ = (id) => document.getElementById(id);
const state = { group: null, entity: null, facts: [], span: null, asOf: null };

// -- talking to the API -------------------------------------------------------
function headers() {
  const key = sessionStorage.getItem("kronograph-key");
  return key ? { Authorization: "Bearer " + key } : {};
}

async function api(path, options = {}) {
  const response = await fetch(path, {
    ...options,
    headers: { "Content-Type": "application/json", ...headers(), ...(options.headers || {}) },
  });
  const body = await response.json().catch(() => null);
  if (!response.ok) {
    const message = body && body.error ? body.error.message : response.statusText;
    throw new Error(`${response.status}: ${message}`);
  }
  return body;
}

function say(text, isError = false) {
  const status = $("status");
  status.textContent = text;
  status.className = isError ? "error" : "";
}

function groupPath(suffix) {
  return `/v1/groups/${encodeURIComponent(state.group)}${suffix}`;
}

// -- small DOM helpers ------------------------------------------------------------
function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(attrs)) {
    if (name === "onclick") node.addEventListener("click", value);
    else node.setAttribute(name, value);
  }
  for (const child of children) node.append(child);
  return node;
}

function svg(tag, attrs = {}, text = null) {
  const node = document.createElementNS(SVG, tag);
  for (const [name, value] of Object.entries(attrs)) node.setAttribute(name, String(value));
  if (text !== null) node.textContent = text;
  return node;
}

function day(iso) {
  return iso ? iso.slice(0, 10) : "now";
}

function triple(fact) {
  return `${fact.subject} ${fact.relation} ${fact.object}`;
}

// -- groups and search ----------------------------------------------------------
async function loadGroups() {
  const select = $("group");
  select.replaceChildren();
  try {
    const { groups } = await api("/v1/groups");
    for (const g of groups) select.append(el("option", { value: g }, g));
    state.group = groups[0] || null;
    say(groups.length ? "" : "No group yet: add an episode first.");
  } catch (error) {
    state.group = null;
    say(`Cannot list groups (${error.message}). Enter an API key.`, true);
  }
}

async function search(event) {
  event.preventDefault();
  const query = $("query").value.trim();
  if (!state.group || !query) return;
  say("Searching…");
  try {
    const found = await api(groupPath("/search"), {
      method: "POST",
      body: JSON.stringify({ query, limit: 10, scopes: ["entities", "facts", "episodes"] }),
    });
    showResults(found);
    say(`${found.entities.length} entities, ${found.facts.length} facts, ${found.episodes.length} episodes`);
  } catch (error) {
    say(error.message, true);
  }
}

function entityLink(name, uuid) {
  return el("a", { href: "#", "data-entity": uuid, onclick: (e) => { e.preventDefault(); openEntity(uuid); } }, name);
}

function showResults(found) {
  const results = $("results");
  results.replaceChildren();
  const entities = el("ul", { class: "hits", id: "entity-hits" });
  for (const hit of found.entities) {
    entities.append(el("li", {}, entityLink(hit.item.name, hit.item.uuid), el("span", { class: "dim" }, " " + (hit.item.summary || ""))));
  }
  const facts = el("ul", { class: "hits", id: "fact-hits" });
  for (const hit of found.facts) {
    const f = hit.item;
    facts.append(el("li", {}, entityLink(f.subject, f.subject_uuid), ` ${f.relation} `, entityLink(f.object, f.object_uuid),
      el("span", { class: "dim" }, `  ${span(f)}`)));
  }
  const episodes = el("ul", { class: "hits", id: "episode-hits" });
  for (const hit of found.episodes) {
    episodes.append(el("li", {}, el("span", { class: "dim" }, day(hit.item.reference_time) + " "), (hit.item.content || hit.item.name).slice(0, 160)));
  }
  results.append(el("h3", {}, "Entities"), entities, el("h3", {}, "Facts"), facts, el("h3", {}, "Episodes"), episodes);
}

// -- an entity: its facts, the as-of slider, the graph and the timeline -------------
async function openEntity(uuid) {
  say("Loading…");
  try {
    const { entity, facts } = await api(groupPath(`/entities/${encodeURIComponent(uuid)}`));
    state.entity = entity;
    state.facts = facts.filter((f) => !f.expired_at); // superseded records are history, not intervals
    const times = state.facts.flatMap((f) => [Date.parse(f.valid_at), f.invalid_at ? Date.parse(f.invalid_at) : NaN]);
    const known = times.filter((t) => !Number.isNaN(t));
    const now = Date.now();
    const start = known.length ? Math.min(...known) : now;
    const end = Math.max(now, ...known);
    const pad = Math.max((end - start) * 0.05, 86400000);
    state.span = [start - pad, end];
    state.asOf = now;
    $("entity").hidden = false;
    $("entity-name").textContent = entity.name;
    $("entity-summary").textContent = entity.summary || "";
    $("asof").value = "1000";
    draw();
    say("");
  } catch (error) {
    say(error.message, true);
  }
}

// An event (LEFT, MET...) is a moment, not a standing fact: a point on the
// timeline, never part of what holds at a time.
function isPoint(fact) {
  return Boolean(fact.event) && !fact.invalid_at;
}

function span(fact) {
  if (isPoint(fact)) return `on ${day(fact.valid_at)}`;
  return `${day(fact.valid_at)} → ${fact.invalid_at ? day(fact.invalid_at) : "now"}`;
}

function validAt(fact, t) {
  if (fact.event) return false;
  return Date.parse(fact.valid_at) <= t && (!fact.invalid_at || t < Date.parse(fact.invalid_at));
}

function onSlider() {
  const [start, end] = state.span;
  state.asOf = start + ((end - start) * Number($("asof").value)) / 1000;
  draw();
}

function draw() {
  $("asof-label").textContent = new Date(state.asOf).toISOString().slice(0, 10);
  drawGraph();
  drawTimeline();
}

function drawGraph() {
  const graph = $("graph");
  graph.replaceChildren();
  const me = state.entity;
  const current = state.facts.filter((f) => validAt(f, state.asOf));
  const neighbours = new Map();
  for (const f of current) {
    const outgoing = f.subject_uuid === me.uuid;
    const other = outgoing ? { uuid: f.object_uuid, name: f.object } : { uuid: f.subject_uuid, name: f.subject };
    if (other.uuid === me.uuid) continue;
    if (!neighbours.has(other.uuid)) neighbours.set(other.uuid, { ...other, relations: [] });
    neighbours.get(other.uuid).relations.push(outgoing ? f.relation : `← ${f.relation}`);
  }
  $("graph-caption").textContent = `${neighbours.size} neighbours, ${current.length} facts valid then`;
  const cx = 320, cy = 210, radius = neighbours.size > 12 ? 180 : 150;
  const list = [...neighbours.values()].sort((a, b) => a.name.localeCompare(b.name));
  list.forEach((n, i) => {
    const angle = (2 * Math.PI * i) / Math.max(list.length, 1) - Math.PI / 2;
    const x = cx + radius * Math.cos(angle), y = cy + radius * Math.sin(angle);
    graph.append(svg("line", { x1: cx, y1: cy, x2: x, y2: y, class: "edge" }));
    graph.append(svg("text", { x: (cx + x) / 2, y: (cy + y) / 2 - 4, class: "edge-label", "text-anchor": "middle" }, n.relations.join(", ")));
    const node = svg("g", { class: "node neighbour", "data-entity": n.uuid, tabindex: 0 });
    node.append(svg("circle", { cx: x, cy: y, r: 9 }), svg("text", { x, y: y + 24, "text-anchor": "middle" }, n.name));
    node.addEventListener("click", () => openEntity(n.uuid));
    graph.append(node);
  });
  const centre = svg("g", { class: "node centre" });
  centre.append(svg("circle", { cx, cy, r: 14 }), svg("text", { x: cx, y: cy + 32, "text-anchor": "middle" }, me.name));
  graph.append(centre);
}

function drawTimeline() {
  const timeline = $("timeline");
  timeline.replaceChildren();
  const facts = [...state.facts].sort((a, b) => Date.parse(a.valid_at) - Date.parse(b.valid_at));
  const width = 900, left = 280, right = 20, row = 22, top = 24;
  const [start, end] = state.span;
  const x = (t) => left + ((Math.min(Math.max(t, start), end) - start) / (end - start)) * (width - left - right);
  timeline.setAttribute("viewBox", `0 0 ${width} ${top + row * facts.length + 10}`);
  timeline.setAttribute("height", String(top + row * facts.length + 10));
  timeline.append(svg("text", { x: left, y: 14, class: "axis" }, day(new Date(start).toISOString())));
  timeline.append(svg("text", { x: width - right, y: 14, class: "axis", "text-anchor": "end" }, day(new Date(end).toISOString())));
  facts.forEach((f, i) => {
    const y = top + i * row;
    if (isPoint(f)) {
      timeline.append(eventMark(f, y, row, left, x));
      return;
    }
    const retired = Boolean(f.invalid_at);
    const live = validAt(f, state.asOf);
    const bar = svg("g", { class: `fact${retired ? " retired" : " open"}${live ? " live" : ""}`, "data-fact": f.uuid });
    bar.append(svg("text", { x: left - 8, y: y + 13, "text-anchor": "end" }, triple(f)));
    const x1 = x(Date.parse(f.valid_at));
    const x2 = retired ? x(Date.parse(f.invalid_at)) : width - right;
    bar.append(svg("rect", { x: x1, y: y + 3, width: Math.max(x2 - x1, 2), height: row - 8, rx: retired ? 0 : 3 }));
    if (retired) bar.append(svg("line", { x1: x2, y1: y + 1, x2: x2, y2: y + row - 3, class: "cap" }));
    else bar.append(svg("path", { d: `M${x2 - 6},${y + 4} L${x2},${y + row / 2 - 1} L${x2 - 6},${y + row - 6}`, class: "arrow" }));
    const title = svg("title", {}, `${f.fact}\n${day(f.valid_at)} → ${retired ? day(f.invalid_at) : "now"}${retired ? " (retired)" : ""}`);
    bar.append(title);
    timeline.append(bar);
  });
  const nowX = x(state.asOf);
  timeline.append(svg("line", { x1: nowX, y1: 18, x2: nowX, y2: top + row * facts.length, class: "asof-line" }));
}

// An event's row: a diamond at the moment it happened, "happened" once the
// as-of time has passed it.
function eventMark(f, y, row, left, x) {
  const happened = Date.parse(f.valid_at) <= state.asOf;
  const mark = svg("g", { class: `fact event${happened ? " happened" : ""}`, "data-fact": f.uuid });
  mark.append(svg("text", { x: left - 8, y: y + 13, "text-anchor": "end" }, triple(f)));
  const cx = x(Date.parse(f.valid_at)), cy = y + row / 2 - 1, r = 6;
  mark.append(svg("path", { d: `M${cx},${cy - r} L${cx + r},${cy} L${cx},${cy + r} L${cx - r},${cy} Z` }));
  mark.append(svg("title", {}, `${f.fact}\non ${day(f.valid_at)} (an event: it happened then)`));
  return mark;
}

// -- wiring ----------------------------------------------------------------------------
document.addEventListener("DOMContentLoaded", () => {
  const key = $("key");
  key.value = sessionStorage.getItem("kronograph-key") || "";
  key.addEventListener("change", () => {
    sessionStorage.setItem("kronograph-key", key.value.trim());
    loadGroups();
  });
  $("group").addEventListener("change", (e) => { state.group = e.target.value; $("results").replaceChildren(); $("entity").hidden = true; });
  $("search-form").addEventListener("submit", search);
  $("asof").addEventListener("input", onSlider);
  $("asof-now").addEventListener("click", () => { $("asof").value = "1000"; state.asOf = Date.now(); draw(); });
  loadGroups();
});

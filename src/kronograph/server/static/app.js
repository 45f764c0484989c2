// kronograph's web view: plain JavaScript and SVG, no dependencies.
// It reads the REST API (/v1/...) and never writes. Text from the memory is
// only ever put in the page with textContent, never parsed as HTML.
// Every view has a hash route (#/g/{group}/...), so it can be linked,
// reloaded and reached with back and forward; the API key never is in one.
// The timeline is drawn by drawTimeline (timeline.js, loaded first).
"use strict";

const SVG = "http://www.w3.org/2000/svg";
const KEY = "kronograph-key";
const $ = (id) => document.getElementById(id);
const state = { groups: null, group: null, entity: null, facts: [], span: null, asOf: null, route: null, seq: 0 };
// A view whose answer came after the user moved on is not drawn.
const stale = (seq) => seq !== state.seq;

// -- talking to the API -------------------------------------------------------
class ApiError extends Error {
  constructor(status, message) { super(`${status}: ${message}`); this.status = status; }
}

function headers() {
  const key = sessionStorage.getItem(KEY);
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
    throw new ApiError(response.status, message);
  }
  return body;
}

function groupPath(suffix, group = state.group) {
  return `/v1/groups/${encodeURIComponent(group)}${suffix}`;
}

function say(text, isError = false) {
  const status = $("status");
  status.textContent = text;
  status.className = isError ? "error" : "";
}

// -- links: one place builds every route --------------------------------------
const enc = encodeURIComponent;
function query(params) {
  const pairs = Object.entries(params).filter(([, v]) => v !== null && v !== undefined && v !== "");
  return pairs.length ? "?" + pairs.map(([k, v]) => `${enc(k)}=${enc(v)}`).join("&") : "";
}
const link = {
  overview: (g) => `#/g/${enc(g)}`,
  entity: (g, uuid, asof = null) => `#/g/${enc(g)}/entity/${enc(uuid)}${query({ asof })}`,
  episode: (g, id) => `#/g/${enc(g)}/episode/${enc(id)}`,
  search: (g, q, asof = null) => `#/g/${enc(g)}/search${query({ q, asof })}`,
  context: (g, q = null) => `#/g/${enc(g)}/context${query({ q })}`,
};

// "#/g/team/entity/abc?asof=..." -> { group: "team", view: "entity", id: "abc", params }
function parseRoute(hash) {
  const text = hash.replace(/^#\/?/, "");
  const [path, search = ""] = text.split("?");
  const parts = path.split("/").filter(Boolean).map((p) => { try { return decodeURIComponent(p); } catch { return p; } });
  const params = new URLSearchParams(search);
  if (parts[0] !== "g" || !parts[1]) return { group: null, view: "home", id: null, params };
  return { group: parts[1], view: parts[2] || "overview", id: parts[3] || null, params };
}

// -- small DOM helpers ------------------------------------------------------------
function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(attrs)) {
    if (name === "onclick") node.addEventListener("click", value);
    else if (value !== null && value !== undefined) node.setAttribute(name, value);
  }
  for (const child of children) if (child !== null && child !== undefined) node.append(child);
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

function when(iso) {
  return iso ? iso.slice(0, 16).replace("T", " ") : "";
}

function entityLink(name, uuid) {
  return el("a", { href: link.entity(state.group, uuid), "data-entity": uuid }, name);
}

function episodeLink(id, text = null) {
  return el("a", { href: link.episode(state.group, id), "data-episode": id }, text || id.slice(0, 8));
}

function factLine(f) {
  return el("span", { class: "triple" }, entityLink(f.subject, f.subject_uuid), ` ${f.relation} `,
    entityLink(f.object, f.object_uuid));
}

function isPoint(fact) {
  return Boolean(fact.event) && !fact.invalid_at;
}

function span(fact) {
  if (isPoint(fact)) return `on ${day(fact.valid_at)}`;
  return `${day(fact.valid_at)} → ${fact.invalid_at ? day(fact.invalid_at) : "now"}`;
}

function factList(id, facts, empty) {
  if (!facts.length) return el("p", { id, class: "dim" }, empty);
  const list = el("ul", { class: "hits", id });
  for (const f of facts) list.append(el("li", {}, factLine(f), el("span", { class: "dim" }, `  ${span(f)}`)));
  return list;
}

function plural(n, one, many = one + "s") {
  return `${n} ${n === 1 ? one : many}`;
}

function card(title, ...children) {
  return el("section", { class: "card" }, el("h2", {}, title), ...children);
}

function view(title, ...children) {
  const main = $("view");
  main.replaceChildren(...children);
  document.title = title ? `${title} · kronograph` : "kronograph";
}

function snippet(text, n = 140) {
  const flat = (text || "").replace(/\s+/g, " ").trim();
  return flat.length > n ? flat.slice(0, n - 1) + "…" : flat;
}

// -- the key and the groups ---------------------------------------------------
// A keyed service answers 401 without a key: ask for one with a small form;
// a refused key says so in the form. The key is kept for the tab only.
function askForKey(refused) {
  $("key-form").hidden = false;
  document.body.classList.add("needs-key");
  $("view").replaceChildren();
  $("key-error").textContent = refused ? "That key was refused." : "";
  say("");
  $("key").focus();
}

async function loadGroups() {
  try {
    const { groups } = await api("/v1/groups");
    state.groups = groups;
    $("key-form").hidden = true;
    document.body.classList.remove("needs-key");
    const select = $("group");
    select.replaceChildren(...groups.map((g) => el("option", { value: g }, g)));
    return true;
  } catch (error) {
    state.groups = null;
    if (error.status === 401) {
      const hadKey = Boolean(sessionStorage.getItem(KEY));
      sessionStorage.removeItem(KEY);
      askForKey(hadKey);
    } else {
      say(`Cannot list groups (${error.message}).`, true);
    }
    return false;
  }
}

// -- routing ----------------------------------------------------------------------
async function route() {
  if (state.groups === null && !(await loadGroups())) return;
  const r = parseRoute(location.hash);
  if (r.view === "home" || !state.groups.includes(r.group)) {
    if (!state.groups.length) { view(""); say("No group yet: add an episode first."); return; }
    if (r.group && !state.groups.includes(r.group)) say(`No group ${r.group} here (or not this key's).`, true);
    location.replace(link.overview(state.groups[0]));
    return;
  }
  state.group = r.group;
  state.route = r;
  const seq = ++state.seq;
  $("home").href = link.overview(r.group);
  $("group").value = r.group;
  $("nav-overview").href = link.overview(r.group);
  $("nav-context").href = link.context(r.group);
  $("query").value = r.view === "search" ? r.params.get("q") || "" : $("query").value;
  if (r.view !== "search") $("search-asof").value = "";
  say("Loading…");
  try {
    if (r.view === "overview") await showOverview(seq);
    else if (r.view === "entity" && r.id) await showEntity(seq, r.id, r.params.get("asof"));
    else if (r.view === "episode" && r.id) await showEpisode(seq, r.id);
    else if (r.view === "search") await showSearch(seq, r.params.get("q") || "", r.params.get("asof"));
    else if (r.view === "context") await showContext(seq, r.params.get("q") || "");
    else { view("Not found", card("Not found", el("p", {}, "No such page."))); }
    if (!stale(seq) && $("status").textContent === "Loading…") say("");
  } catch (error) {
    if (stale(seq)) return;
    if (error.status === 401) { state.groups = null; askForKey(true); return; }
    say(error.message, true);
  }
}

// -- the group overview -------------------------------------------------------------
async function showOverview(seq) {
  const g = state.group;
  const [seen, changes] = await Promise.all([api(groupPath("/overview")), recentChanges(20)]);
  if (stale(seq)) return;
  const counts = el("dl", { class: "counts", id: "counts" });
  const count = (label, n, key) => counts.append(el("div", { "data-count": key }, el("dt", {}, label), el("dd", {}, String(n))));
  const statuses = Object.entries(seen.episodes);
  count("episodes", statuses.reduce((a, [, n]) => a + n, 0), "episodes");
  for (const [status, n] of statuses) count(`· ${status}`, n, `episodes-${status}`);
  count("entities", seen.entities, "entities");
  count("current facts", seen.current_facts, "current");
  count("retired facts", seen.retired_facts, "retired");
  count("events", seen.events, "events");
  count("open contradictions", seen.open_contradictions, "contradictions");

  const latest = el("ul", { class: "hits", id: "latest-episodes" });
  for (const e of seen.latest_episodes) {
    const what = e.content ? snippet(e.content, 120) : (e.source_description || e.name);
    const item = el("li", {}, el("span", { class: "dim" }, `${when(e.created_at)} `), episodeLink(e.uuid, what || e.uuid),
      el("span", { class: `badge ${e.status}` }, e.status));
    latest.append(item);
  }
  const connected = el("ol", { class: "hits", id: "connected" });
  for (const c of seen.connected) connected.append(el("li", {}, entityLink(c.name, c.uuid), el("span", { class: "dim" }, ` ${plural(c.facts, "fact")} now`)));
  view(g,
    el("div", { class: "overview" },
      card(`Group ${g}`, counts),
      card("Latest episodes", seen.latest_episodes.length ? latest : el("p", { class: "dim" }, "No episode yet.")),
      card("Most connected entities", seen.connected.length ? connected : el("p", { class: "dim" }, "No current fact yet.")),
      card("Recent changes", changeFeed(changes))));
  annotateEpisodes(seen.latest_episodes, latest);
}

// What each latest episode produced: its facts' count and first triple.
async function annotateEpisodes(episodes, list) {
  const items = [...list.children];
  await Promise.all(episodes.map(async (e, i) => {
    try {
      const d = await api(groupPath(`/episodes/${enc(e.uuid)}/detail`));
      const bits = [plural(d.produced.length, "fact"), plural(d.entities.length, "entity", "entities")];
      if (d.retired.length) bits.push(`${d.retired.length} retired`);
      const shown = e.content ? [] : d.produced.slice(0, 2).map((f) => f.fact);
      items[i].append(el("span", { class: "dim produced" }, ` — ${[...shown, bits.join(", ")].join("; ")}`));
    } catch { /* the count is a courtesy; the link still works */ }
  }));
}

// The newest changes: the smallest window back from now that holds enough.
async function recentChanges(wanted) {
  const hour = 3600 * 1000;
  let found = [];
  for (const back of [hour, 24 * hour, 7 * 24 * hour, 30 * 24 * hour, 365 * 24 * hour, null]) {
    const since = back === null ? "1970-01-01T00:00:00Z" : new Date(Date.now() - back).toISOString();
    found = [];
    let after = null;
    for (let page = 0; page < 10; page++) {
      const got = await api(groupPath(`/changes${query({ since, limit: 1000, after })}`));
      found = found.concat(got.changes).slice(-wanted);
      if (!got.next) break;
      after = got.next;
    }
    if (found.length >= wanted) break;
  }
  return found.reverse();
}

function changeFeed(changes) {
  if (!changes.length) return el("p", { class: "dim", id: "changes" }, "Nothing recorded yet.");
  const list = el("ul", { class: "hits", id: "changes" });
  for (const c of changes) {
    const what = c.fact ? factLine(c.fact) : el("span", {}, (c.detail && c.detail.keep && c.detail.keep.name) || c.cause);
    list.append(el("li", { "data-kind": c.kind }, el("span", { class: `kind ${c.kind}` }, c.kind), " ", what,
      el("span", { class: "dim" }, ` ${when(c.recorded_at)} `), c.episode_id ? episodeLink(c.episode_id, "episode") : null));
  }
  return list;
}

// -- an episode --------------------------------------------------------------------
async function showEpisode(seq, id) {
  const d = await api(groupPath(`/episodes/${enc(id)}/detail`));
  if (stale(seq)) return;
  const e = d.episode;
  const meta = el("dl", { class: "meta", id: "episode-meta" });
  const row = (label, value) => { if (value) meta.append(el("dt", {}, label), el("dd", {}, value)); };
  row("kind", e.kind);
  row("status", e.status);
  row("error", e.error);
  row("speaker", e.speaker);
  row("role", e.role);
  row("actor", e.actor);
  row("on behalf of", e.on_behalf_of);
  row("source", e.source_description);
  row("reference time", when(e.reference_time));
  row("received", when(e.created_at));
  row("saga", e.saga);
  const entities = el("ul", { class: "hits inline", id: "episode-entities" });
  for (const x of d.entities) entities.append(el("li", {}, entityLink(x.name, x.uuid)));
  view(`Episode ${e.name}`,
    card(`Episode ${e.name}`, meta,
      e.content ? el("pre", { class: "content prose", id: "episode-content" }, e.content) : el("p", { class: "dim" }, "No text kept (a fact added directly, or forgotten)."),
      e.notes && e.notes.length ? el("ul", { class: "notes" }, ...e.notes.map((n) => el("li", { class: "dim" }, n))) : null),
    card("Entities", d.entities.length ? entities : el("p", { class: "dim" }, "None.")),
    card("Facts it produced", factList("episode-produced", d.produced, "None.")),
    card("Facts it retired", factList("episode-retired", d.retired, "None.")));
}

// -- search ---------------------------------------------------------------------------
async function showSearch(seq, q, asof) {
  $("search-asof").value = asof ? asof.slice(0, 10) : "";
  if (!q) { view("Search", card("Search", el("p", { class: "dim" }, "Type a query above."))); return; }
  const body = { query: q, limit: 10, scopes: ["entities", "facts", "episodes"] };
  if (asof) body.as_of = asof;
  const found = await api(groupPath("/search"), { method: "POST", body: JSON.stringify(body) });
  if (stale(seq)) return;
  const entities = el("ul", { class: "hits", id: "entity-hits" });
  for (const hit of found.entities) {
    entities.append(el("li", {}, entityLink(hit.item.name, hit.item.uuid), el("span", { class: "dim" }, " " + (hit.item.summary || ""))));
  }
  const facts = el("ul", { class: "hits", id: "fact-hits" });
  for (const hit of found.facts) facts.append(el("li", {}, factLine(hit.item), el("span", { class: "dim" }, `  ${span(hit.item)}`)));
  const episodes = el("ul", { class: "hits", id: "episode-hits" });
  for (const hit of found.episodes) {
    episodes.append(el("li", {}, el("span", { class: "dim" }, day(hit.item.reference_time) + " "),
      episodeLink(hit.item.uuid, snippet(hit.item.content || hit.item.name, 160))));
  }
  view(`Search ${q}`, card(`Search: ${q}${asof ? ` (as of ${day(asof)})` : ""}`,
    el("h3", {}, "Entities"), entities, el("h3", {}, "Facts"), facts, el("h3", {}, "Episodes"), episodes,
    el("p", {}, el("a", { href: link.context(state.group, q), id: "to-context" }, "This query's context block →"))));
  say(`${found.entities.length} entities, ${found.facts.length} facts, ${found.episodes.length} episodes`);
}

// -- the context block ------------------------------------------------------------------
async function showContext(seq, q) {
  const input = el("input", { id: "context-query", type: "search", value: q, "aria-label": "Query", placeholder: "What the agent is asked" });
  const form = el("form", { id: "context-form", class: "row" }, input, el("button", { type: "submit" }, "Build"));
  form.addEventListener("submit", (e) => {
    e.preventDefault();
    location.hash = link.context(state.group, input.value.trim());
  });
  const parts = [form];
  if (q) {
    const got = await api(groupPath("/context"), { method: "POST", body: JSON.stringify({ query: q }) });
    if (stale(seq)) return;
    const text = el("pre", { id: "context-text", class: "content", tabindex: 0 }, got.text);
    const copy = el("button", { id: "copy", type: "button" }, "Copy");
    copy.addEventListener("click", () => copyText(text, got.text));
    parts.push(el("p", { class: "dim" }, `${got.tokens} of ${got.max_tokens} tokens; ${got.facts.length} facts, ${got.entities.length} entities, ${got.episodes.length} episodes`),
      el("div", { class: "row" }, copy), text);
  }
  view("Context", card("Context block, as an agent receives it", ...parts));
  if (!q) input.focus();
}

async function copyText(node, text) {
  try {
    if (!navigator.clipboard) throw new Error("no clipboard");
    await navigator.clipboard.writeText(text);
    say("Copied.");
  } catch {
    const range = document.createRange();
    range.selectNodeContents(node);
    const selection = window.getSelection();
    selection.removeAllRanges();
    selection.addRange(range);
    say("Selected: press Ctrl+C (⌘C) to copy.");
  }
}

// -- an entity: its facts, the as-of slider, the graph and the timeline -------------
async function showEntity(seq, uuid, asof) {
  const { entity, facts } = await api(groupPath(`/entities/${enc(uuid)}`));
  if (stale(seq)) return;
  state.entity = entity;
  state.facts = facts.filter((f) => !f.expired_at); // superseded records are history, not intervals
  const times = state.facts.flatMap((f) => [Date.parse(f.valid_at), f.invalid_at ? Date.parse(f.invalid_at) : NaN]);
  const known = times.filter((t) => !Number.isNaN(t));
  const now = Date.now();
  const start = known.length ? Math.min(...known) : now;
  const end = Math.max(now, ...known);
  const pad = Math.max((end - start) * 0.05, 86400000);
  state.span = [start - pad, end];
  const wanted = asof ? Date.parse(asof) : NaN;
  state.asOf = Number.isNaN(wanted) ? null : Math.min(Math.max(wanted, state.span[0]), end);

  const current = state.facts.filter((f) => validAt(f, now)).length;
  const summary = entity.summary || `No summary yet: ${current} current fact${current === 1 ? "" : "s"}, ${state.facts.length} in all.`;
  const slider = el("input", { id: "asof", type: "range", min: "0", max: "1000", value: "1000", "aria-label": "as of" });
  const nowButton = el("button", { id: "asof-now", type: "button" }, "now");
  view(entity.name,
    el("section", { class: "card", id: "entity", "aria-label": "Entity" },
      el("h2", { id: "entity-name" }, entity.name),
      entity.labels && entity.labels.length ? el("p", { class: "dim" }, entity.labels.join(", ")) : null,
      el("p", { id: "entity-summary" }, summary),
      el("div", { class: "asof" }, el("label", { for: "asof" }, "as of"), slider,
        el("output", { id: "asof-label", for: "asof" }), nowButton),
      el("h3", {}, "Neighbourhood ", el("small", { id: "graph-caption" })),
      svg("svg", { id: "graph", viewBox: "0 0 640 420", role: "img", "aria-label": "Neighbourhood graph" }),
      el("h3", {}, "Timeline"),
      el("div", { id: "timeline", class: "timeline" })));
  if (state.asOf !== null) slider.value = String(Math.round((1000 * (state.asOf - state.span[0])) / (state.span[1] - state.span[0])));
  slider.addEventListener("input", onSlider);
  nowButton.addEventListener("click", () => { slider.value = "1000"; state.asOf = null; keepAsOfInUrl(); draw(); });
  draw();
}

function validAt(fact, t) {
  if (fact.event) return false;
  return Date.parse(fact.valid_at) <= t && (!fact.invalid_at || t < Date.parse(fact.invalid_at));
}

function onSlider() {
  const [start, end] = state.span;
  const value = Number($("asof").value);
  state.asOf = value >= 1000 ? null : start + ((end - start) * value) / 1000;
  keepAsOfInUrl();
  draw();
}

// The slider's moment goes in the URL (replacing the entry: no history step per pixel).
function keepAsOfInUrl() {
  const asof = state.asOf === null ? null : new Date(state.asOf).toISOString();
  history.replaceState(null, "", link.entity(state.group, state.entity.uuid, asof));
}

function draw() {
  const t = state.asOf === null ? Date.now() : state.asOf;
  $("asof-label").textContent = state.asOf === null ? "now" : new Date(t).toISOString().slice(0, 10);
  drawGraph(t);
  drawTimeline($("timeline"), state.facts, {
    asOf: state.asOf === null ? null : new Date(state.asOf),
    onSelect: (fact) => { if (fact.episodes && fact.episodes.length) location.hash = link.episode(state.group, fact.episodes[0]); },
    sources: factSources,
    // a fact where this entity is the object reads from the other side: "← WORKS_WITH Bob Stone"
    label: (fact) => fact.subject_uuid === state.entity.uuid
      ? `${fact.relation} ${fact.object}` : `← ${fact.relation} ${fact.subject}`,
  });
}

function stated(source) {
  return `(stated ${day(source.valid_at)} → ${source.invalid_at ? day(source.invalid_at) : "open"})`;
}

// Text lines for a fact's source episodes (the timeline's hover), remembered.
const sourceCache = new Map();
function factSources(fact) {
  const key = `${state.group}/${fact.uuid}`;
  if (!sourceCache.has(key)) {
    const group = state.group;
    sourceCache.set(key, (async () => {
      const detail = await api(groupPath(`/facts/${enc(fact.uuid)}`, group));
      return Promise.all(detail.sources.slice(0, 3).map(async (s) => {
        try {
          const e = await api(groupPath(`/episodes/${enc(s.episode_id)}`, group));
          return `${day(e.reference_time)}: ${snippet(e.content || e.source_description || e.name, 100)} ${stated(s)}`;
        } catch {
          return `episode ${s.episode_id} ${stated(s)}`;
        }
      }));
    })().catch(() => []));
  }
  return sourceCache.get(key);
}

function drawGraph(t) {
  const graph = $("graph");
  graph.replaceChildren();
  const me = state.entity;
  const current = state.facts.filter((f) => validAt(f, t));
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
    // A real link: focusable, Enter follows it, and it opens in a new tab.
    const node = svg("a", { class: "node neighbour", "data-entity": n.uuid, href: link.entity(state.group, n.uuid) });
    node.append(svg("circle", { cx: x, cy: y, r: 9 }), svg("text", { x, y: y + 24, "text-anchor": "middle" }, n.name));
    graph.append(node);
  });
  const centre = svg("g", { class: "node centre" });
  centre.append(svg("circle", { cx, cy, r: 14 }), svg("text", { x: cx, y: cy + 32, "text-anchor": "middle" }, me.name));
  graph.append(centre);
}

// -- wiring ----------------------------------------------------------------------------
document.addEventListener("DOMContentLoaded", () => {
  $("key-form").addEventListener("submit", async (e) => {
    e.preventDefault();
    const key = $("key").value.trim();
    if (!key) return;
    sessionStorage.setItem(KEY, key);
    $("key").value = "";
    $("key-error").textContent = "Checking…";
    await route();
  });
  $("group").addEventListener("change", (e) => { location.hash = link.overview(e.target.value); });
  $("search-form").addEventListener("submit", (e) => {
    e.preventDefault();
    const q = $("query").value.trim();
    const asof = $("search-asof").value;
    if (state.group && q) location.hash = link.search(state.group, q, asof ? `${asof}T23:59:59Z` : null);
  });
  window.addEventListener("hashchange", route);
  route();
});

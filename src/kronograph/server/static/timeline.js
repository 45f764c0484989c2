// kronograph's timeline: facts as bars over valid time, events as points.
// A classic script (no modules) that defines one global function,
// drawTimeline(container, facts, options); app.js calls it. Plain SVG built
// with createElementNS; text from the memory goes in with textContent only.
//
//   container  an element this fills (emptied first); drawing again on the
//              same container keeps its zoom window while the facts' span is
//              the same
//   facts      REST Fact objects (uuid, subject, relation, object, fact,
//              valid_at, invalid_at, expired_at, event, ...; ISO 8601 times)
//   options    { asOf: Date|null (a marker line; null = now),
//                onSelect: fact => void (click, Enter or Space on a row),
//                sources: fact => Promise<string[]> (tooltip lines; optional),
//                label: fact => string (a row's label; default relation + object) }
"use strict";

(function () {
  const NS = "http://www.w3.org/2000/svg";
  const DAY = 86400000;
  const MONTHS = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"];
  const NARROW = 560; // below this width, labels go above the bars
  const states = new WeakMap(); // container -> its zoom window, sources cache, observer
  let serial = 0; // unique ids (gradient, clip path, tooltip) per container

  function svg(tag, attrs, text) {
    const node = document.createElementNS(NS, tag);
    for (const [name, value] of Object.entries(attrs || {})) node.setAttribute(name, String(value));
    if (text !== undefined && text !== null) node.textContent = text;
    return node;
  }

  function html(tag, attrs, text) {
    const node = document.createElement(tag);
    for (const [name, value] of Object.entries(attrs || {})) node.setAttribute(name, String(value));
    if (text !== undefined && text !== null) node.textContent = text;
    return node;
  }

  function time(iso) {
    if (!iso) return NaN;
    // A time without an offset is UTC, as the API means it (Date.parse would read it as local).
    return Date.parse(/T[\d:.]+$/.test(iso) ? `${iso}Z` : iso);
  }

  function day(t) {
    return new Date(t).toISOString().slice(0, 10);
  }

  // -- what a fact is on the timeline ------------------------------------------------
  function shape(fact) {
    const start = time(fact.valid_at) || time(fact.created_at);
    const invalid = time(fact.invalid_at);
    const expired = time(fact.expired_at);
    const point = Boolean(fact.event) && Number.isNaN(invalid);
    const retired = !Number.isNaN(invalid) || !Number.isNaN(expired);
    // A closed bar ends when its interval closed or, failing that, when its record was superseded.
    const end = !Number.isNaN(invalid) ? invalid : !Number.isNaN(expired) ? expired : NaN;
    return { fact, start, end: Number.isNaN(end) ? null : Math.max(end, start), point, retired,
             invalid: Number.isNaN(invalid) ? null : invalid, expired: Number.isNaN(expired) ? null : expired };
  }

  function interval(s) {
    if (s.point) return `on ${day(s.start)}`;
    if (s.invalid !== null) return `${day(s.start)} → ${day(s.invalid)}`;
    return `since ${day(s.start)}`;
  }

  function status(s) {
    const parts = [];
    if (s.point) parts.push("an event: it happened then");
    else if (s.invalid !== null) parts.push("retired: it no longer holds");
    else if (s.expired === null) parts.push("current: still holds");
    if (s.expired !== null) parts.push(`record superseded ${day(s.expired)} (expired)`);
    return parts.join("; ");
  }

  function defaultLabel(fact) {
    return `${fact.relation} ${fact.object}`;
  }

  // The span the facts cover, with a margin; the marker joins it only when near.
  function domain(shapes, marker) {
    const times = [];
    for (const s of shapes) {
      times.push(s.start);
      if (s.end !== null) times.push(s.end);
    }
    let lo = Math.min(...times), hi = Math.max(...times);
    const width = hi - lo;
    if (marker >= lo - Math.max(width * 0.15, 3 * DAY) && marker <= hi + Math.max(width * 0.15, 3 * DAY)) {
      lo = Math.min(lo, marker);
      hi = Math.max(hi, marker);
    }
    const margin = Math.max((hi - lo) * 0.05, DAY);
    if (hi - lo < 7 * DAY) {
      const mid = (lo + hi) / 2;
      return [mid - 5 * DAY, mid + 5 * DAY];
    }
    return [lo - margin, hi + margin];
  }

  // -- the axis: ticks by day, week, month, quarter or year -----------------------------
  function utc(y, m, d) {
    return Date.UTC(y, m, d || 1);
  }

  const UNITS = [
    { name: "day", floor: (d) => utc(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate()),
      next: (t) => t + DAY,
      label: (t, first) => { const d = new Date(t);
        const s = `${d.getUTCDate()} ${MONTHS[d.getUTCMonth()]}`;
        return first || (d.getUTCMonth() === 0 && d.getUTCDate() === 1) ? `${s} ${d.getUTCFullYear()}` : s; } },
    { name: "week", floor: (d) => utc(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate() - ((d.getUTCDay() + 6) % 7)),
      next: (t) => t + 7 * DAY,
      label: (t, first, prev) => { const d = new Date(t);
        const s = `${d.getUTCDate()} ${MONTHS[d.getUTCMonth()]}`;
        return first || (prev !== null && new Date(prev).getUTCFullYear() !== d.getUTCFullYear())
          ? `${s} ${d.getUTCFullYear()}` : s; } },
    { name: "month", floor: (d) => utc(d.getUTCFullYear(), d.getUTCMonth()),
      next: (t) => { const d = new Date(t); return utc(d.getUTCFullYear(), d.getUTCMonth() + 1); },
      label: (t, first) => { const d = new Date(t);
        return first || d.getUTCMonth() === 0 ? `${MONTHS[d.getUTCMonth()]} ${d.getUTCFullYear()}` : MONTHS[d.getUTCMonth()]; } },
    { name: "quarter", floor: (d) => utc(d.getUTCFullYear(), d.getUTCMonth() - (d.getUTCMonth() % 3)),
      next: (t) => { const d = new Date(t); return utc(d.getUTCFullYear(), d.getUTCMonth() + 3); },
      label: (t, first) => { const d = new Date(t); const q = `Q${d.getUTCMonth() / 3 + 1}`;
        return first || d.getUTCMonth() === 0 ? `${q} ${d.getUTCFullYear()}` : q; } },
  ];
  for (const n of [1, 2, 5, 10, 25, 50, 100]) {
    UNITS.push({ name: n === 1 ? "year" : `${n} years`,
      floor: (d) => utc(d.getUTCFullYear() - (((d.getUTCFullYear() % n) + n) % n), 0),
      next: (t) => utc(new Date(t).getUTCFullYear() + n, 0),
      label: (t) => String(new Date(t).getUTCFullYear()) });
  }

  const CHAR = 6.6; // a generous width of one character of an 11px axis label
  function ticksFor(unit, lo, hi) {
    const ticks = [];
    let t = unit.floor(new Date(lo));
    if (t < lo) t = unit.next(t);
    let prev = null;
    while (t <= hi && ticks.length < 400) {
      ticks.push({ t, text: unit.label(t, ticks.length === 0, prev) });
      prev = t;
      t = unit.next(t);
    }
    return ticks;
  }

  // The finest unit whose labels fit between their ticks.
  function chooseTicks(lo, hi, x) {
    for (const unit of UNITS) {
      if (unit.name === "day" && hi - lo > 400 * DAY) continue;
      const ticks = ticksFor(unit, lo, hi);
      if (ticks.length > 200) continue;
      let fits = true;
      for (let i = 1; i < ticks.length && fits; i++) {
        const room = x(ticks[i].t) - x(ticks[i - 1].t);
        fits = room >= ((ticks[i].text.length + ticks[i - 1].text.length) * CHAR) / 2 + 10;
      }
      if (fits) return { unit: unit.name, ticks };
    }
    const last = UNITS[UNITS.length - 1];
    return { unit: last.name, ticks: ticksFor(last, lo, hi) };
  }

  // -- per-container state ----------------------------------------------------------------
  function stateOf(container) {
    let st = states.get(container);
    if (!st) {
      serial += 1;
      st = { id: `tl${serial}`, window: null, domainKey: null, sources: new Map(), labels: new Map(), width: 0, observer: null };
      states.set(container, st);
    }
    return st;
  }

  function drawTimeline(container, facts, options) {
    const opts = options || {};
    const st = stateOf(container);
    st.facts = facts || [];
    st.options = opts;
    container.replaceChildren();
    container.classList.add("tl-root");
    const shapes = st.facts.map(shape).filter((s) => !Number.isNaN(s.start));
    shapes.sort((a, b) => a.start - b.start || (a.end ?? Infinity) - (b.end ?? Infinity));
    st.shapes = shapes;
    if (!shapes.length) {
      container.append(html("p", { class: "tl-empty" }, "No facts to show."));
      return;
    }
    const marker = opts.asOf instanceof Date ? opts.asOf.getTime() : Date.now();
    st.marker = marker;
    st.full = domain(shapes, marker);
    const key = st.full.join(":");
    if (st.domainKey !== key || !st.window) st.window = st.full.slice();
    st.domainKey = key;

    const controls = html("div", { class: "tl-controls" });
    const zoomOut = html("button", { type: "button", class: "tl-zoom-out", "aria-label": "Zoom out" }, "−");
    const zoomIn = html("button", { type: "button", class: "tl-zoom-in", "aria-label": "Zoom in" }, "+");
    const reset = html("button", { type: "button", class: "tl-reset" }, "Reset");
    const range = html("span", { class: "tl-range", "aria-live": "polite" });
    const hint = html("span", { class: "tl-hint" }, "drag or ← → to pan; + − or wheel (once focused) to zoom");
    const legend = html("span", { class: "tl-legend" });
    for (const [cls, text] of [["tl-key-open", "holds"], ["tl-key-retired", "retired"], ["tl-key-event", "event"]]) {
      legend.append(html("span", { class: `tl-key ${cls}` }, text));
    }
    controls.append(zoomOut, zoomIn, reset, range, legend, hint);
    const plot = html("div", { class: "tl-plot" });
    const tooltip = html("div", { class: "tl-tooltip", role: "tooltip", id: `${st.id}-tip`, hidden: "" });
    container.append(controls, plot, tooltip);
    st.plot = plot;
    st.tooltip = tooltip;
    st.range = range;

    zoomIn.addEventListener("click", () => zoom(container, 1 / 1.6));
    zoomOut.addEventListener("click", () => zoom(container, 1.6));
    reset.addEventListener("click", () => { st.window = st.full.slice(); render(container); });
    if (!st.keys) { st.keys = true; container.addEventListener("keydown", (e) => onKey(container, e)); }
    wirePlot(container, plot);
    render(container);

    if (!st.observer && typeof ResizeObserver === "function") {
      st.observer = new ResizeObserver(() => {
        const s = states.get(container);
        if (s && s.plot && s.plot.isConnected && Math.abs(container.clientWidth - s.width) > 8) render(container);
      });
      st.observer.observe(container);
    }
  }

  // Zoom the window by a factor around a time (the middle by default).
  function zoom(container, factor, around) {
    const st = states.get(container);
    const [lo, hi] = st.window;
    const centre = around === undefined ? (lo + hi) / 2 : around;
    const fullSpan = st.full[1] - st.full[0];
    const span = Math.min(Math.max((hi - lo) * factor, DAY), fullSpan * 4);
    const ratio = (centre - lo) / (hi - lo);
    st.window = [centre - span * ratio, centre - span * ratio + span];
    clampPan(st);
    render(container);
  }

  function pan(container, ms) {
    const st = states.get(container);
    st.window = [st.window[0] + ms, st.window[1] + ms];
    clampPan(st);
    render(container);
  }

  // Keep some of the facts' span in view.
  function clampPan(st) {
    const span = st.window[1] - st.window[0];
    const [lo, hi] = st.full;
    const keep = Math.min(span, hi - lo) * 0.2;
    let shift = 0;
    if (st.window[1] < lo + keep) shift = lo + keep - st.window[1];
    if (st.window[0] > hi - keep) shift = hi - keep - st.window[0];
    st.window = [st.window[0] + shift, st.window[1] + shift];
  }

  function onKey(container, e) {
    if (e.target.tagName === "BUTTON" && (e.key === "Enter" || e.key === " ")) return;
    const st = states.get(container);
    const span = st.window[1] - st.window[0];
    const focused = document.activeElement && document.activeElement.getAttribute("data-fact");
    let handled = true;
    if (e.key === "+" || e.key === "=") zoom(container, 1 / 1.6);
    else if (e.key === "-" || e.key === "_") zoom(container, 1.6);
    else if (e.key === "0") { st.window = st.full.slice(); render(container); }
    else if (e.key === "ArrowLeft") pan(container, -span * 0.15);
    else if (e.key === "ArrowRight") pan(container, span * 0.15);
    else if ((e.key === "ArrowDown" || e.key === "ArrowUp") && focused) {
      const items = [...st.plot.querySelectorAll(".tl-item")];
      const i = items.findIndex((n) => n.getAttribute("data-fact") === focused);
      const next = items[i + (e.key === "ArrowDown" ? 1 : -1)];
      if (next) next.focus();
    } else handled = false;
    if (handled) e.preventDefault();
    if (handled && focused && e.key !== "ArrowDown" && e.key !== "ArrowUp") {
      const again = [...st.plot.querySelectorAll(".tl-item")].find((n) => n.getAttribute("data-fact") === focused);
      if (again) again.focus();
    }
  }

  // -- drawing the window ---------------------------------------------------------------------
  function render(container) {
    const st = states.get(container);
    const opts = st.options;
    const plot = st.plot;
    hideTip(st);
    plot.replaceChildren();
    // The container's content width (a hidden container has none: draw at 640 until it shows).
    const css = getComputedStyle(container);
    const inner = container.clientWidth - (parseFloat(css.paddingLeft) || 0) - (parseFloat(css.paddingRight) || 0);
    const width = Math.max(inner > 0 ? inner : 640, 240);
    st.width = container.clientWidth;
    const narrow = width < NARROW;
    const labelWidth = narrow ? 0 : Math.min(260, Math.round(width * 0.3));
    const left = narrow ? 8 : labelWidth + 12;
    const right = width - 18; // room for an open bar's arrow
    const row = narrow ? 40 : 26;
    const top = 30;
    const [lo, hi] = st.window;
    const scale = (right - left) / (hi - lo);
    const x = (t) => left + (t - lo) * scale;
    const marked = st.marker >= lo && st.marker <= hi;
    const bottom = top + row * st.shapes.length;
    const height = bottom + (marked ? 20 : 8);
    st.geom = { left, right };

    const root = svg("svg", { class: "tl-svg", width, height, viewBox: `0 0 ${width} ${height}`, role: "group",
      "aria-label": `Fact timeline, ${day(lo)} to ${day(hi)}`, "data-start": new Date(lo).toISOString(),
      "data-end": new Date(hi).toISOString(), "data-px-per-day": (scale * DAY).toFixed(4) });
    const defs = svg("defs");
    const clip = svg("clipPath", { id: `${st.id}-clip` });
    clip.append(svg("rect", { x: left, y: 0, width: right - left + 18, height }));
    defs.append(clip);
    // An open bar fades into its arrow at the right edge: it still holds.
    for (const which of ["live", "idle"]) {
      const fade = svg("linearGradient", { id: `${st.id}-fade-${which}`, gradientUnits: "userSpaceOnUse",
        x1: right - 48, y1: 0, x2: right, y2: 0 });
      fade.append(svg("stop", { offset: 0, class: `tl-fade-${which}` }),
        svg("stop", { offset: 1, class: `tl-fade-${which} tl-fade-end` }));
      defs.append(fade);
    }
    root.append(defs);
    plot.append(root);

    // The axis: ticks, labels that never overlap, a grid line per tick.
    const axis = svg("g", { class: "tl-axis" });
    root.append(axis);
    const { unit, ticks } = chooseTicks(lo, hi, x);
    root.setAttribute("data-unit", unit);
    let lastEnd = -Infinity;
    for (const tick of ticks) {
      const tx = x(tick.t);
      axis.append(svg("line", { class: "tl-grid", x1: tx, x2: tx, y1: top - 6, y2: height - 4 }));
      const label = svg("text", { class: "tl-tick", x: tx, y: top - 10, "text-anchor": "middle" }, tick.text);
      axis.append(label);
      const w = label.getComputedTextLength ? label.getComputedTextLength() : tick.text.length * CHAR;
      let start = tx - w / 2;
      if (start < left - 4 && narrow) { label.setAttribute("text-anchor", "start"); start = tx; }
      if (start + w > width - 2) { label.setAttribute("text-anchor", "end"); start = tx - w; }
      if (start < lastEnd + 6) label.remove(); // a safety net: chooseTicks should have left room
      else lastEnd = start + w;
    }
    st.range.textContent = `${day(lo)} – ${day(hi)}`;

    const rows = svg("g", { class: "tl-rows" });
    root.append(rows);
    const labelOf = typeof opts.label === "function" ? opts.label : defaultLabel;
    st.shapes.forEach((s, i) => {
      const y = top + i * row;
      const full = `${s.fact.subject} ${s.fact.relation} ${s.fact.object}` + (s.fact.fact ? ` — ${s.fact.fact}` : "");
      const text = labelOf(s.fact);
      const live = s.point ? s.start <= st.marker : s.start <= st.marker && (s.end === null || st.marker < s.end);
      const kind = s.point ? "tl-event" : s.retired ? "tl-bar tl-retired" : "tl-bar tl-open";
      const item = svg("g", { class: `tl-item ${kind}${live ? " tl-live" : ""}${s.expired !== null ? " tl-expired" : ""}`,
        tabindex: 0, role: "button", "data-fact": s.fact.uuid || String(i),
        "aria-label": `${s.fact.subject} ${s.fact.relation} ${s.fact.object}, ${interval(s)}${s.retired ? ", retired" : ""}`,
        "aria-describedby": `${st.id}-tip` });
      // The label: left of the bar, or above it when narrow; truncated, full text in its title.
      const labelY = narrow ? y + 12 : y + row / 2 + 4;
      const label = svg("text", { class: "tl-label", x: narrow ? left : labelWidth, y: labelY,
        "text-anchor": narrow ? "start" : "end" }, text);
      rows.append(label);
      const room = narrow ? width - left - 8 : labelWidth - 4;
      const fitted = st.labels.get(`${room}\u0000${text}`);
      if (fitted !== undefined) label.textContent = fitted;
      else { truncate(label, text, room); if (label.getComputedTextLength() > 0) st.labels.set(`${room}\u0000${text}`, label.textContent); }
      label.remove();
      const labelGroup = svg("g", { class: "tl-labelbox" });
      labelGroup.append(label, svg("title", {}, full));
      item.append(labelGroup);
      const barTop = narrow ? y + 20 : y + 5;
      const barHeight = narrow ? row - 26 : row - 10;
      const shapeGroup = svg("g", { class: "tl-shape", "clip-path": `url(#${st.id}-clip)` });
      if (s.point) {
        const cx = x(s.start), cy = barTop + barHeight / 2, r = Math.min(barHeight / 2 + 1, 8);
        shapeGroup.append(svg("path", { class: "tl-diamond", d: `M${cx},${cy - r} L${cx + r},${cy} L${cx},${cy + r} L${cx - r},${cy} Z` }));
      } else {
        const x1 = Math.max(x(s.start), left - 2);
        if (s.end !== null) {
          const x2 = Math.min(x(s.end), right + 16);
          shapeGroup.append(svg("rect", { class: "tl-rect", x: x1, y: barTop, width: Math.max(x2 - x1, 2), height: barHeight }));
          for (const cap of [x(s.start), x(s.end)]) {
            shapeGroup.append(svg("line", { class: "tl-cap", x1: cap, x2: cap, y1: barTop - 2, y2: barTop + barHeight + 2 }));
          }
        } else {
          const x2 = Math.max(right, x1 + 2);
          shapeGroup.append(svg("rect", { class: "tl-rect", x: x1, y: barTop, width: x2 - x1, height: barHeight,
            rx: 3, fill: `url(#${st.id}-fade-${live ? "live" : "idle"})` }));
          const my = barTop + barHeight / 2;
          shapeGroup.append(svg("path", { class: "tl-arrow", d: `M${right + 2},${my - 5} L${right + 10},${my} L${right + 2},${my + 5} Z` }));
        }
      }
      shapeGroup.append(svg("title", {}, `${full}\n${interval(s)}`));
      item.append(shapeGroup);
      rows.append(item);
      wire(container, item, s);
    });

    if (marked) {
      const mx = x(st.marker);
      const asOf = svg("g", { class: "tl-asof" });
      asOf.append(svg("line", { x1: mx, x2: mx, y1: top - 4, y2: height - 4 }));
      const isNow = !(opts.asOf instanceof Date);
      const t = svg("text", { x: mx + 3, y: height - 4, "text-anchor": mx > right - 80 ? "end" : "start" },
        isNow ? "now" : `as of ${day(st.marker)}`);
      asOf.append(t);
      root.append(asOf);
    }
  }

  function truncate(node, text, room) {
    if (!node.getComputedTextLength || room <= 0) return;
    if (node.getComputedTextLength() <= room) return;
    let lo = 0, hi = text.length;
    while (lo < hi) {
      const mid = Math.ceil((lo + hi) / 2);
      node.textContent = text.slice(0, mid) + "…";
      if (node.getComputedTextLength() <= room) lo = mid; else hi = mid - 1;
    }
    node.textContent = text.slice(0, lo) + "…";
  }

  // -- interaction: select, tooltip, drag, wheel ------------------------------------------------
  function wire(container, item, s) {
    const st = states.get(container);
    item.addEventListener("click", () => {
      if (st.dragged) return;
      if (typeof st.options.onSelect === "function") st.options.onSelect(s.fact);
    });
    item.addEventListener("keydown", (e) => {
      if (e.key === "Enter" || e.key === " ") {
        e.preventDefault();
        if (typeof st.options.onSelect === "function") st.options.onSelect(s.fact);
      }
    });
    item.addEventListener("pointerenter", () => showTip(container, item, s));
    item.addEventListener("pointerleave", () => hideTip(st));
    item.addEventListener("focus", () => showTip(container, item, s));
    item.addEventListener("blur", () => hideTip(st));
  }

  function hideTip(st) {
    if (st.tooltip) st.tooltip.hidden = true;
    st.tipFor = null;
  }

  function showTip(container, item, s) {
    const st = states.get(container);
    const tip = st.tooltip;
    st.tipFor = s.fact;
    tip.replaceChildren();
    tip.append(html("strong", {}, `${s.fact.subject} ${s.fact.relation} ${s.fact.object}`));
    if (s.fact.fact) tip.append(html("div", { class: "tl-tip-fact" }, s.fact.fact));
    tip.append(html("div", { class: "tl-tip-interval" }, interval(s)));
    tip.append(html("div", { class: `tl-tip-status${s.retired ? " tl-tip-retired" : ""}` }, status(s)));
    const slot = Object.entries(s.fact.qualifiers || {}).map(([k, v]) => `${k} ${v}`).join(", ");
    if (slot) tip.append(html("div", { class: "tl-tip-status" }, slot));
    if ((s.fact.conflicting || []).length) {
      tip.append(html("div", { class: "tl-tip-status tl-tip-retired" }, `conflicts (same time) with ${s.fact.conflicting.length} other fact(s)`));
    }
    const list = html("ul", { class: "tl-tip-sources" });
    tip.append(list);
    tip.hidden = false;
    place(container, item, tip);
    if (typeof st.options.sources !== "function") return;
    const key = s.fact.uuid;
    let pending = st.sources.get(key);
    if (!pending) {
      pending = Promise.resolve().then(() => st.options.sources(s.fact));
      st.sources.set(key, pending);
      pending.catch(() => st.sources.delete(key));
    }
    list.append(html("li", { class: "tl-tip-loading" }, "sources…"));
    pending.then((lines) => {
      if (st.tipFor !== s.fact) return;
      list.replaceChildren();
      const shown = (lines || []).slice(0, 6);
      for (const line of shown) list.append(html("li", {}, String(line)));
      if ((lines || []).length > shown.length) list.append(html("li", { class: "tl-tip-more" }, `and ${lines.length - shown.length} more`));
      if (!shown.length) list.append(html("li", { class: "tl-tip-more" }, "no source episodes"));
      place(container, item, tip);
    }, () => {
      if (st.tipFor !== s.fact) return;
      list.replaceChildren(html("li", { class: "tl-tip-more" }, "sources unavailable"));
    });
  }

  // The tooltip goes under the row (above it near the bottom), inside the container.
  function place(container, item, tip) {
    const box = container.getBoundingClientRect();
    const shapeNode = item.querySelector(".tl-shape") || item;
    const r = shapeNode.getBoundingClientRect();
    const w = tip.offsetWidth, h = tip.offsetHeight;
    let leftPx = r.left - box.left + container.scrollLeft;
    leftPx = Math.max(4, Math.min(leftPx, container.clientWidth - w - 4));
    let topPx = r.bottom - box.top + 6;
    if (topPx + h > container.scrollHeight && r.top - box.top - h - 6 > 0) topPx = r.top - box.top - h - 6;
    tip.style.left = `${Math.round(leftPx)}px`;
    tip.style.top = `${Math.round(topPx)}px`;
  }

  // Wheel and drag listen on the plot (it outlives each render's SVG).
  function wirePlot(container, plot) {
    const st = states.get(container);
    const timeAt = (clientX) => {
      const g = st.geom, rect = plot.getBoundingClientRect();
      const px = Math.min(Math.max(clientX - rect.left, g.left), g.right);
      return st.window[0] + ((px - g.left) / (g.right - g.left)) * (st.window[1] - st.window[0]);
    };
    plot.addEventListener("wheel", (e) => {
      // Only once the timeline has focus (or with Ctrl): a page scrolled past it keeps scrolling.
      if (!e.deltaY || !(e.ctrlKey || container.contains(document.activeElement))) return;
      e.preventDefault();
      zoom(container, e.deltaY < 0 ? 1 / 1.25 : 1.25, timeAt(e.clientX));
    }, { passive: false });
    plot.addEventListener("pointerdown", (e) => {
      if (e.button !== 0) return;
      st.drag = { x: e.clientX, window: st.window.slice(), id: e.pointerId };
      st.dragged = false;
    });
    plot.addEventListener("pointermove", (e) => {
      const d = st.drag;
      if (!d || d.id !== e.pointerId) return;
      const dx = e.clientX - d.x;
      if (!st.dragged && Math.abs(dx) < 4) return;
      if (!st.dragged) { st.dragged = true; plot.setPointerCapture(e.pointerId); plot.classList.add("tl-dragging"); }
      const g = st.geom;
      const ms = (-dx / (g.right - g.left)) * (d.window[1] - d.window[0]);
      st.window = [d.window[0] + ms, d.window[1] + ms];
      clampPan(st);
      render(container);
    });
    const end = () => {
      st.drag = null;
      plot.classList.remove("tl-dragging");
      setTimeout(() => { st.dragged = false; }, 0); // the click that ends a drag selects nothing
    };
    plot.addEventListener("pointerup", end);
    plot.addEventListener("pointercancel", end);
  }

  window.drawTimeline = drawTimeline;
})();

// STUB (i21-pages): a placeholder of drawTimeline's signature so the pages
// run and their tests pass; the real timeline comes from the other helper's
// branch and replaces this file.
"use strict";

function drawTimeline(container, facts, options) {
  container.replaceChildren();
  const list = document.createElement("ul");
  list.className = "timeline-stub";
  for (const fact of facts) {
    const item = document.createElement("li");
    const button = document.createElement("button");
    button.type = "button";
    button.className = "fact";
    button.dataset.fact = fact.uuid;
    button.textContent = `${fact.fact} (${(fact.valid_at || "").slice(0, 10)} → ${fact.invalid_at ? fact.invalid_at.slice(0, 10) : "now"})`;
    button.addEventListener("click", () => options && options.onSelect && options.onSelect(fact));
    item.append(button);
    list.append(item);
  }
  container.append(list);
}

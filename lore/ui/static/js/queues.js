// Queues: what waits for a person (the inbox, decisions pending review, and any queue the
// server lists), each item with the same actions as the CLI, run by the same code there.

import { page, post, READ_ONLY } from "./api.js";
import { badge, errorBox, h, kindOf, plural, recordLink, route, status, time, title } from "./dom.js";

const PAGE = 20;

export async function render(ctx) {
  const { info } = ctx;
  const wanted = ctx.arg ? info.queues.filter((q) => q.name === ctx.arg) : info.queues;
  // Each queue fills in as its listing arrives: a slow one (the consolidation proposals
  // of a big store take seconds) never holds back the others.
  const sections = wanted.map((q) => queue(q, ctx));
  return h("div", { class: "view-queues" },
    h("h1", {}, "Queues"),
    h("p", { class: "quiet" }, "Records waiting for a person. Each action does what its CLI command does, through the same code (point at a button to see the command)."),
    READ_ONLY ? h("p", { class: "notice" }, "lore ui runs --read-only: the actions are off.") : null,
    h("nav", { class: "tabs", "aria-label": "Queues" }, info.queues.map((q) =>
      h("a", { href: route("queues", q.name), "aria-current": ctx.arg === q.name ? "page" : null }, q.title))),
    sections);
}

function queue(spec, ctx) {
  const days = ctx.params.get("days") || "3";
  const list = h("ol", { class: "items" });
  const count = h("span", { class: "count" });
  const more = h("button", { type: "button", class: "more", hidden: true }, "Show more");
  const box = h("section", { class: "card queue", id: `queue-${spec.name}`, "data-queue": spec.name },
    h("h2", {}, spec.title, " ", count),
    h("p", { class: "quiet" }, spec.about, " ", h("code", { class: "cli" }, spec.command)),
    spec.name === "review" ? daysForm(days) : null,
    list, more);
  let offset = 0;
  const load = async () => {
    const { doc, total } = await page(`/api/queue/${encodeURIComponent(spec.name)}`,
      { limit: PAGE, offset, days: spec.name === "review" ? days : null });
    const items = spec.items ? doc[spec.items] : doc;
    if (!offset) list.replaceChildren();
    items.forEach((record) => list.append(item(spec, record, ctx.info, count)));
    offset += items.length;
    count.textContent = `(${total.toLocaleString("en")})`;
    count.dataset.total = String(total);
    more.hidden = offset >= total;
    if (!total) list.replaceChildren(h("li", { class: "quiet" }, "Nothing waiting."));
  };
  const failed = (error) => box.append(errorBox(error));
  more.addEventListener("click", () => load().catch(failed));
  const start = () => {
    list.replaceChildren(h("li", { class: "quiet loading" }, "Loading…"));
    load().catch((error) => { list.replaceChildren(); failed(error); });
  };
  if (spec.on_demand && ctx.arg !== spec.name) {
    // Slow on a big store (seconds): looked for when a person asks, not on every visit.
    const ask = h("button", { type: "button", class: "look" }, `Look for ${spec.title.toLowerCase()}`);
    ask.addEventListener("click", start);
    list.append(h("li", { class: "quiet" }, ask));
  } else start();
  return box;
}

function daysForm(days) {
  const input = h("input", { name: "days", type: "number", min: "0", value: days, class: "narrow" });
  const form = h("form", { class: "inline-filters" },
    h("label", { class: "field" }, h("span", {}, "Pending for at least N days (0: all)"), input),
    h("button", { type: "submit" }, "Apply"));
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    location.hash = `${route("queues", "review")}?days=${encodeURIComponent(input.value || "0")}`;
  });
  return form;
}

function item(spec, record, info, count) {
  const result = h("div", { class: "result", "aria-live": "polite" });
  const li = Array.isArray(record.records) ? proposal(record, info, result) : h("li", { class: "item", "data-id": record.id },
    h("div", { class: "line" }, badge(kindOf(record.id, info), info.colors), " ",
      recordLink(record.id, title(record, info.kindSpec, kindOf(record.id, info)))),
    h("div", { class: "meta" }, time(record.timestamp), record.project ? h("span", {}, record.project) : null,
      status(record).map((s) => h("span", { class: "chip" }, s)), h("span", { class: "id" }, record.id)),
    result);
  const actions = h("div", { class: "actions" });
  spec.actions.forEach((action) => actions.append(form(spec, action, record, result, li, count)));
  li.insertBefore(actions, result);
  return li;
}

// A consolidation proposal (not a record): what it would do, and the records it touches.
function proposal(p, info, result) {
  return h("li", { class: "item proposal", "data-id": p.id },
    h("div", { class: "line" }, h("span", { class: "chip" }, `${p.kind}: ${p.action}`), " ", p.summary),
    h("ul", { class: "members" }, p.records.map((r) => h("li", {},
      badge(kindOf(r.id, info), info.colors), " ", recordLink(r.id, title(r, info.kindSpec, kindOf(r.id, info))),
      " ", time(r.timestamp), r.status && r.status !== "active" ? h("span", { class: "chip" }, r.status) : null))),
    h("div", { class: "meta" }, h("span", { class: "id" }, p.id)),
    result);
}

function form(spec, action, record, result, li, count) {
  const inputs = action.fields.map((f) => {
    const name = `${action.name}-${f.name}-${record.id}`;
    if (f.type === "choice") {
      // A choice without fixed options takes the item's own (a settlement's choices).
      const choices = f.choices.length ? f.choices : (record.choices || []).map(String);
      if (!choices.length) return null;
      const picked = record.default == null ? null : String(record.default);
      return h("label", { class: "field" }, h("span", {}, f.label),
        h("select", { name: f.name, id: name, required: f.required },
          choices.map((c) => h("option", { value: c, selected: c === picked ? true : null }, c))));
    }
    if (f.type === "flag") {
      return h("label", { class: "check" }, h("input", { type: "checkbox", name: f.name, id: name }), " ", f.label);
    }
    return h("label", { class: "field" }, h("span", {}, f.label),
      h("input", { name: f.name, id: name, required: f.required, autocomplete: "off" }));
  });
  const button = h("button", { type: "submit", disabled: READ_ONLY, title: action.command }, action.label);
  const el = h("form", { class: `action action-${action.name}`, "aria-label": `${action.label} ${record.id}` }, inputs, button);
  el.addEventListener("submit", async (event) => {
    event.preventDefault();
    const body = { id: record.id };
    for (const f of action.fields) {
      const input = el.elements[f.name];
      if (!input) continue;
      if (f.type === "flag") body[f.name] = input.checked;
      else if (input.value.trim()) body[f.name] = input.value.trim();
    }
    button.disabled = true;
    try {
      const doc = await post(`/api/queue/${encodeURIComponent(spec.name)}/${encodeURIComponent(action.name)}`, body);
      li.classList.add("done");
      li.querySelectorAll("form").forEach((f) => f.remove());
      result.replaceChildren(done(action, doc));
      const total = Number(count.dataset.total || 0) - 1;
      count.dataset.total = String(total);
      count.textContent = `(${total.toLocaleString("en")})`;
    } catch (error) {
      result.replaceChildren(errorBox(error));
      button.disabled = false;
    }
  });
  return el;
}

function done(action, doc) {
  const out = h("p", { class: "ok", role: "status" }, `✓ ${action.label}: `);
  if (doc.promoted_to) out.append("now ", recordLink(doc.promoted_to), doc.target ? ` (${doc.target.id.split("-")[0]})` : "");
  else if (doc.outcome) out.append(`outcome ${doc.outcome}`, doc.failure_id ? [", failure ", recordLink(doc.failure_id)] : "");
  else out.append(plural(1, "record"), " changed: ", recordLink(doc.id));
  return out;
}

// Search: lore recall's ranking and filters; each result's score parts on demand.

import { get } from "./api.js";
import { add, badge, errorBox, h, plural, recordLink, status, time, title, withQuery } from "./dom.js";

const FILTERS = ["kind", "project", "tag", "since", "until", "all", "limit"];
const EXAMPLES = ["why did we pick postgres", "deploy failures last week", "cache invalidation"];

function field(label, input, hint) {
  return h("label", { class: "field" }, h("span", {}, label), input, hint ? h("small", {}, hint) : null);
}

export async function render(ctx, state) {
  const { info, params } = ctx;
  const q = h("input", {
    id: "q", type: "search", name: "q", value: params.get("q") || "", "data-autofocus": true,
    autocomplete: "off", placeholder: "a few words or a whole question", "aria-label": "Search the memory",
  });
  const kinds = h("fieldset", { class: "kinds" }, h("legend", {}, "Kinds"),
    info.kinds.map((k) => h("label", { class: "check" },
      h("input", { type: "checkbox", name: "kind", value: k.name,
        checked: params.getAll("kind").includes(k.name) }), " ", k.name)));
  const input = (name, hint, placeholder) =>
    h("input", { name, value: params.get(name) || "", placeholder: placeholder || "", autocomplete: "off" });
  const scope = h("select", { name: "all" },
    h("option", { value: "" }, "current records"),
    h("option", { value: "1", selected: params.get("all") === "1" }, "also retracted and superseded"));
  const limit = h("select", { name: "limit" },
    ["20", "50", "100"].map((n) => h("option", { value: n, selected: (params.get("limit") || "20") === n }, n)));
  const filtered = FILTERS.some((name) => params.get(name));
  const form = h("form", { role: "search", class: "search", onsubmit: (e) => { e.preventDefault(); go(form); } },
    h("div", { class: "bar" }, q, h("button", { type: "submit" }, "Search")),
    h("details", { class: "filters", open: filtered },
      h("summary", {}, "Filters"),
      h("div", { class: "grid" },
        kinds,
        field("Project", input("project", "", "name")),
        field("Tags", input("tag", "", "tag, another")),
        field("Since", input("since", "", "2026-05, 7d, last week")),
        field("Until", input("until", "", "2026-W21, yesterday")),
        field("Status", scope),
        field("At most", limit))));
  form.addEventListener("change", () => go(form));
  let timer = null;
  q.addEventListener("input", () => {
    clearTimeout(timer);
    timer = setTimeout(() => go(form, true), 250);
  });
  state.results = h("section", { class: "results", "aria-live": "polite", "aria-label": "Results" });
  state.form = form;
  const page = h("div", { class: "view-search" }, h("h1", { class: "sr-only" }, "Search"), form, state.results);
  await results(ctx, state);
  return page;
}

function go(form, typing) {
  const data = new FormData(form);
  const params = {};
  for (const [key, value] of data.entries()) {
    if (!String(value).trim() || (key === "limit" && value === "20")) continue;
    (params[key] = params[key] || []).push(String(value).trim());
  }
  const target = withQuery("#/search", params);
  if (target === location.hash) return;
  if (typing) {
    history.replaceState(null, "", target);
    window.dispatchEvent(new HashChangeEvent("hashchange"));
  } else location.hash = target;
}

export async function update(ctx, state) {
  // The form shows the search the address holds (Back, Forward, a link), never one
  // search over another's results. A box being typed in is left alone when it already
  // says it (the address holds it trimmed: a rewrite would eat a space just typed).
  for (const el of state.form.elements) {
    if (!el.name) continue;
    const wanted = ctx.params.get(el.name) || "";
    if (el.type === "checkbox") el.checked = ctx.params.getAll(el.name).includes(el.value);
    else if (el.tagName === "SELECT") el.value = wanted || el.options[0].value;
    else if (el.value.trim() !== wanted.trim()) el.value = wanted;
  }
  await results(ctx, state);
}

async function results(ctx, state) {
  const { info, params } = ctx;
  const text = (params.get("q") || "").trim();
  const box = state.results;
  const mine = (state.sequence = (state.sequence || 0) + 1);
  if (!text) {
    box.replaceChildren(h("div", { class: "welcome" },
      h("p", {}, "Search every decision, pattern, failure, observation, evidence, goal and session, ranked as ",
        h("code", {}, "lore recall"), " ranks them (text, recency, importance, project, past recalls)."),
      h("p", {}, "Try: ", EXAMPLES.map((e, i) => [i ? ", " : "", h("a", { href: withQuery("#/search", { q: e }) }, e)])),
      h("p", {}, "Or walk the ", h("a", { href: "#/timeline" }, "timeline"), ", see what waits in the ",
        h("a", { href: "#/queues" }, "queues"), ", or browse the ", h("a", { href: "#/sessions" }, "sessions"), ".")));
    box.removeAttribute("data-ms");
    return;
  }
  const started = performance.now();
  box.setAttribute("aria-busy", "true");
  let doc;
  try {
    doc = await get("/api/recall", {
      q: text, kind: params.getAll("kind"), project: params.get("project"), tag: params.get("tag"),
      since: params.get("since"), until: params.get("until"), all: params.get("all"), limit: params.get("limit"),
    });
  } catch (error) {
    if (mine === state.sequence) box.replaceChildren(errorBox(error));
    box.removeAttribute("aria-busy");
    return;
  }
  if (mine !== state.sequence) return;
  const list = h("ol", { class: "hits" }, doc.results.map((hit) => item(hit, info)));
  const window_ = doc.window ? h("span", { class: "quiet" }, ` · records of ${doc.window.text} rank higher`) : null;
  box.replaceChildren(
    h("p", { class: "summary" }, doc.results.length ? plural(doc.results.length, "result") : "Nothing matches",
      " for ", h("q", {}, doc.query), window_),
    list);
  box.removeAttribute("aria-busy");
  box.setAttribute("data-ms", String(Math.round(performance.now() - started)));
  box.setAttribute("data-query", text);
}

function item(hit, info) {
  const parts = hit.explain || {};
  const why = h("details", { class: "why" },
    h("summary", {}, `score ${Number(hit.score).toFixed(2)}`, h("span", { class: "sr-only" }, ": its parts")),
    h("dl", { class: "parts" }, Object.entries(parts).map(([name, value]) =>
      h("div", {}, h("dt", {}, name), h("dd", {}, Array.isArray(value) ? value.join(" → ") : String(value))))));
  const chips = status(hit).map((s) => h("span", { class: "chip" }, s));
  return h("li", { class: "hit" },
    h("div", { class: "line" }, badge(hit.type, info.colors), " ", recordLink(hit.id, title(hit, info.kindSpec))),
    add(h("div", { class: "meta" }), [
      time(hit.timestamp), hit.project ? h("span", {}, hit.project) : null, chips,
      h("span", { class: "id" }, hit.id), why]));
}

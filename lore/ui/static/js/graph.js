// The graph: a neighbourhood grown click by click from a record, a search or a concept
// (lore/graph/view.js, the same view `lore graph export --format html` inlines).

import { get } from "./api.js";
import { add, badge, errorBox, h, recordLink, route } from "./dom.js";

export async function render(ctx, state) {
  const { info } = ctx;
  const input = h("input", { name: "start", type: "search", autocomplete: "off", "aria-label": "Start from",
    placeholder: "a record id, or words to search", "data-autofocus": !ctx.arg });
  const picks = h("ul", { class: "plain picks", "aria-live": "polite" });
  const start = h("form", { class: "start", role: "search", onsubmit: (e) => { e.preventDefault(); pick(input.value, picks); } },
    h("label", { class: "field grow" }, h("span", {}, "Start from"), input), h("button", { type: "submit" }, "Find"));
  const concepts = h("p", { class: "concepts" });
  get("/api/graph/concepts").then((doc) => {
    if (!doc.concepts.length) return;
    concepts.append("Concepts: ", doc.concepts.slice(0, 30).map((c, i) =>
      [i ? " · " : "", h("a", { href: route("graph", c.id) }, c.label || c.id)]));
  }).catch(() => null);
  const checks = (name, values, label) => h("fieldset", { class: "kinds" }, h("legend", {}, label),
    values.map((v) => h("label", { class: "check" }, h("input", { type: "checkbox", name, value: v, checked: true }), " ", v)));
  const filters = h("details", { class: "filters" }, h("summary", {}, "Filter kinds and relations"),
    h("form", { class: "grid" }, checks("kind", info.node_types, "Node kinds"),
      checks("relation", Object.keys(info.relations), "Relations")));
  filters.addEventListener("change", () => {
    const data = new FormData(filters.querySelector("form"));
    state.view.setFilter(data.getAll("kind"), data.getAll("relation"));
  });
  const canvas = h("div", { id: "graph-canvas", role: "group",
    "aria-label": "Graph neighbourhood: Tab to a node, Enter expands or collapses it, arrow keys move between nodes" });
  const side = h("aside", { class: "card side", "aria-live": "polite", "aria-label": "Selected node" },
    h("p", { class: "quiet" }, "Pick a start above, then click a node to grow its neighbourhood."));
  state.side = side;
  state.picks = picks;
  state.canvas = canvas;
  const level = h("span", { class: "quiet", "aria-live": "polite" }, "100%");
  const zoom = (how, label) => h("button", { type: "button", "aria-label": label, title: label,
    onclick: () => { level.textContent = `${Math.round(state.view.zoom(how) * 100)}%`; } },
  how === "fit" ? "Fit" : how === 1 ? "100%" : how > 1 ? "+" : "−");
  const tools = h("div", { class: "graph-tools", role: "toolbar", "aria-label": "Zoom" },
    zoom(0.8, "Zoom out"), zoom(1.25, "Zoom in"), zoom("fit", "Fit the whole neighbourhood"),
    zoom(1, "Actual size"), level);
  return h("div", { class: "view-graph" }, h("h1", {}, "Graph"), start, picks, concepts, filters,
    h("div", { class: "graph-layout" }, h("div", {}, tools, canvas), side));
}

export async function mounted(ctx, state) {
  state.view = window.LoreGraphView.create(state.canvas, {
    colors: ctx.info.colors,
    neighbors: (key) => get("/api/graph/neighbors", { id: key }),
    onSelect: (node, list) => details(state, node, list, ctx.info),
  });
  await focus(ctx, state);
}

export async function update(ctx, state) {
  await focus(ctx, state);
}

async function focus(ctx, state) {
  if (!ctx.arg) return;
  try {
    const doc = await get("/api/graph/show", { id: ctx.arg });
    await state.view.focus(doc.node.id, doc.node);
  } catch (error) {
    state.side.replaceChildren(errorBox(error));
  }
}

async function pick(text, box) {
  const words = text.trim();
  if (!words) return;
  box.replaceChildren(h("li", { class: "quiet" }, "Looking…"));
  try {
    const [hits, nodes] = await Promise.all([
      get("/api/recall", { q: words, limit: 8 }),
      get("/api/graph/query", { text: words, limit: 8 }),
    ]);
    const seen = new Set();
    const rows = [];
    for (const n of [...nodes.nodes.filter((n) => n.id === words), ...hits.results, ...nodes.nodes]) {
      if (seen.has(n.id)) continue;
      seen.add(n.id);
      const label = n.label || n.decision || n.name || n.content || n.summary || n.error_message || n.id;
      rows.push(h("li", {}, h("a", { href: route("graph", n.id) }, badge(n.type, null), " ", String(label).slice(0, 120))));
    }
    box.replaceChildren(...(rows.length ? rows : [h("li", { class: "quiet" }, "No record or node matches.")]));
  } catch (error) {
    box.replaceChildren(h("li", {}, errorBox(error)));
  }
}

function details(state, node, list, info) {
  const isRecord = info.idPattern.test(node.id);
  const open = state.view.focused === node.id;
  state.side.replaceChildren();
  add(state.side, [
    h("h2", {}, badge(node.type, info.colors), " ", h("span", { dir: "auto" }, node.label || node.id)),
    h("p", { class: "id" }, node.id),
    h("p", { class: "actions" },
      isRecord ? h("a", { class: "button", href: route("record", node.id) }, "Open record") : null,
      open ? null : h("a", { class: "button", href: route("graph", node.id) }, "Make it the focus")),
    list ? [h("h3", {}, `${list.length} neighbour${list.length === 1 ? "" : "s"}`),
      h("ul", { class: "plain neighbours" }, list.map((n) => h("li", {},
        n.direction === "out" ? "→ " : "← ", h("span", { class: "rel" }, n.relation), " ",
        info.idPattern.test(n.id) ? recordLink(n.id, n.label || n.id) : h("a", { href: route("graph", n.id) }, n.label || n.id))))]
      : null]);
}

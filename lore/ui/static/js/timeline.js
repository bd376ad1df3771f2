// The timeline: all time -> year -> month -> ISO week -> day, counts per kind and each
// period's digest (lore timeline --json), every digest line a link to its record.

import { get } from "./api.js";
import { badge, h, plural, recordLink, route, time, withQuery } from "./dom.js";

const pad = (n) => String(n).padStart(2, "0");

function isoWeek(date) {
  const d = new Date(Date.UTC(date.getUTCFullYear(), date.getUTCMonth(), date.getUTCDate()));
  const day = d.getUTCDay() || 7;
  d.setUTCDate(d.getUTCDate() + 4 - day);
  const year = d.getUTCFullYear();
  const week = Math.ceil(((d - Date.UTC(year, 0, 1)) / 86400000 + 1) / 7);
  return `${year}-W${pad(week)}`;
}

// The periods above this one, from its level and start: all time, its year, its month
// (a week's: the month it starts in), and a day's ISO week.
function crumbs(doc) {
  if (doc.level === "all") return [];
  const out = [["All time", null]];
  const start = new Date(doc.since);
  const year = String(start.getUTCFullYear());
  if (doc.level === "year") return out;
  out.push([year, year]);
  if (doc.level === "month") return out;
  const month = `${year}-${pad(start.getUTCMonth() + 1)}`;
  out.push([month, month]);
  if (doc.level === "day") out.push([isoWeek(start), isoWeek(start)]);
  return out;
}

function filters(params) {
  const out = { project: params.get("project"), kind: params.getAll("kind"), limit: params.get("limit") };
  return Object.fromEntries(Object.entries(out).filter(([, v]) => v && v.length));
}

// The same filters, with a day's whole list (limit 0).
function everything(params) {
  const all = new URLSearchParams(params);
  all.set("limit", "0");
  return all;
}

function link(period, params, label) {
  const base = period ? route("timeline", period) : "#/timeline";
  return h("a", { href: withQuery(base, filters(params)) }, label || period || "All time");
}

function bar(counts, max, colors) {
  const box = h("span", { class: "kbar", "aria-hidden": "true" });
  for (const [kind, n] of Object.entries(counts)) {
    const seg = h("span", { class: "seg", title: `${kind} ${n}` });
    seg.style.width = `${(100 * n) / Math.max(max, 1)}%`;
    seg.style.background = colors[kind] || "#888";
    box.append(seg);
  }
  return box;
}

// "decision 19 · failure 15 ...", each kind with the colour of its part of the bar.
function counts(item, colors) {
  return Object.entries(item.counts).map(([kind, n], i) => {
    const swatch = h("span", { class: "swatch", "aria-hidden": "true" });
    swatch.style.background = colors[kind] || "#888";
    return [i ? " · " : "", swatch, `${kind} ${n.toLocaleString("en")}`];
  });
}

function digest(d, compact) {
  const names = (list) => list.map((x) => `${x.name} (${x.count})`).join(", ");
  const lines = compact ? d.highlights.slice(0, 3) : d.highlights;
  return h("div", { class: "digest" },
    !compact && d.entities.length ? h("p", { class: "quiet" }, "entities: ", names(d.entities)) : null,
    !compact && d.tags.length ? h("p", { class: "quiet" }, "tags: ", names(d.tags)) : null,
    lines.length ? h("ul", { class: "plain highlights" }, lines.map((x) => h("li", {},
      h("span", { class: "why" }, x.why), " ", recordLink(x.id, x.title || x.id),
      x.outcome ? [" ", h("span", { class: "chip" }, x.outcome)] : null,
      x.error_type ? [" ", h("span", { class: "chip" }, `${x.error_type}${x.count ? ` ×${x.count}` : ""}`)] : null))) : null);
}

function filterForm(ctx) {
  const { info, params, arg } = ctx;
  const form = h("form", { class: "inline-filters", "aria-label": "Timeline filters" },
    h("label", { class: "field" }, h("span", {}, "Project"),
      h("input", { name: "project", value: params.get("project") || "", autocomplete: "off" })),
    h("fieldset", { class: "kinds" }, h("legend", {}, "Kinds"), info.kinds.map((k) => h("label", { class: "check" },
      h("input", { type: "checkbox", name: "kind", value: k.name, checked: params.getAll("kind").includes(k.name) }),
      " ", k.name))),
    h("button", { type: "submit" }, "Apply"));
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    const data = new FormData(form);
    const wanted = { project: (data.get("project") || "").trim(), kind: data.getAll("kind") };
    location.hash = withQuery(arg ? route("timeline", arg) : "#/timeline", wanted);
  });
  return form;
}

export async function render(ctx) {
  const { info, params, arg } = ctx;
  const doc = await get("/api/timeline", { period: arg, ...filters(params) });
  const trail = crumbs(doc);
  const nav = h("nav", { class: "crumbs", "aria-label": "Timeline levels" },
    h("ol", {}, trail.map(([label, period]) => h("li", {}, link(period, params, label))),
      h("li", { "aria-current": "page" }, doc.period || "All time")));
  const up = trail[trail.length - 1];
  const headline = doc.period || "All time";
  const top = h("header", {},
    nav,
    h("h1", {}, headline, h("span", { class: "count" }, ` ${plural(doc.total, "record")}`)),
    up ? h("p", {}, link(up[1], params, `↑ up to ${up[0]}`)) : null,
    h("p", { class: "quiet" }, doc.total ? counts(doc, info.colors) : "No records."),
    bar(doc.counts, doc.total, info.colors),
    digest(doc.digest, false));
  let body;
  if (doc.records) {
    body = h("section", { class: "card" }, h("h2", {}, "Records"),
      doc.records.length ? h("ol", { class: "day" }, doc.records.map((r) => h("li", {},
        time(r.timestamp), " ", badge(r.type, info.colors), " ", recordLink(r.id, r.title || r.id),
        r.outcome ? [" ", h("span", { class: "chip" }, r.outcome)] : null,
        r.error_type ? [" ", h("span", { class: "chip" }, r.error_type)] : null)))
        : h("p", { class: "quiet" }, "Nothing recorded that day."),
      doc.records.length < doc.total
        ? h("p", { class: "quiet more-records" }, `The first ${doc.records.length.toLocaleString("en")} of ${plural(doc.total, "record")}; `,
          link(doc.period, everything(params), "list them all"), ".")
        : null);
  } else {
    const max = Math.max(1, ...doc.periods.map((p) => p.total));
    body = h("section", { class: "card" }, h("h2", {}, doc.lists[0].toUpperCase() + doc.lists.slice(1)),
      h("ol", { class: "periods", "data-level": doc.lists }, doc.periods.map((p) => h("li", { class: p.total ? "" : "empty" },
        h("div", { class: "period-head" }, link(p.period, params), " ",
          h("span", { class: "count" }, plural(p.total, "record"))),
        p.total ? bar(p.counts, max, info.colors) : null,
        p.total ? h("p", { class: "quiet small" }, counts(p, info.colors)) : null,
        p.total ? digest(p.digest, true) : null))));
  }
  return h("div", { class: "view-timeline" }, top, filterForm(ctx), body);
}

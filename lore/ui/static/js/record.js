// A record: every field, where it came from (provenance, session), its links in and out,
// the evidence behind it and its revisions; a session also shows its handoff and captures.

import { get } from "./api.js";
import { badge, errorBox, h, kindOf, recordLink, route, status, time, title, when } from "./dom.js";

const ARROW = { out: "→", in: "←" };
const SOURCE_IN_PLACE = 40; // transcript lines shown with the page; more wait for a click

export async function render(ctx) {
  const id = ctx.arg;
  const info = ctx.info;
  const [shown, links] = await Promise.all([
    get("/api/show", { id }),
    get("/api/graph/neighbors", { id }).catch(() => null),
  ]);
  const rec = shown.record;
  const kind = kindOf(rec.id, info);
  const sections = [
    head(rec, kind, info),
    kind === "session" ? session(rec, links, info) : null,
    section("Fields", fields(rec, info)),
    provenance(rec, info),
    rec.session_id ? h("section", { class: "card", id: "from-session" }, h("h2", {}, "Session"),
      sessionLine(rec.session_id)) : null,
    shown.evidence && shown.evidence.length ? section("Evidence", evidence(shown.evidence, info)) : null,
    section("Links", neighbours(links, info)),
    section("History", history(shown.history)),
  ];
  return h("article", { class: "view-record" }, sections);
}

function section(name, body) {
  return h("section", { class: "card", id: name.toLowerCase() }, h("h2", {}, name), body);
}

function head(rec, kind, info) {
  const day = rec.timestamp ? String(rec.timestamp).slice(0, 10) : null;
  return h("header", { class: "record-head" },
    h("p", { class: "crumbs" }, badge(kind, info.colors), " ", h("span", { class: "id" }, rec.id)),
    h("h1", { dir: "auto" }, title(rec, info.kindSpec, kind)),
    h("p", { class: "meta" }, rec.timestamp ? time(rec.timestamp) : null,
      rec.project ? h("span", {}, `project ${rec.project}`) : null,
      status(rec).map((s) => h("span", { class: "chip" }, s))),
    h("p", { class: "actions" },
      h("a", { href: route("graph", rec.id), class: "button" }, "Graph from here"),
      day ? h("a", { href: route("timeline", day), class: "button" }, `Its day: ${day}`) : null,
      h("code", { class: "cli", title: "the same record from the command line" }, `lore show ${rec.id}`)));
}

const empty = (v) => v == null || v === "" || (Array.isArray(v) && !v.length) ||
  (typeof v === "object" && !Array.isArray(v) && !Object.keys(v).length);

export function value(v, info) {
  if (empty(v)) return h("span", { class: "none" }, "—");
  if (Array.isArray(v)) return h("ul", { class: "values" }, v.map((item) => h("li", {}, value(item, info))));
  if (typeof v === "object") {
    return h("dl", { class: "nested" }, Object.entries(v).map(([k, x]) => [h("dt", {}, k), h("dd", {}, value(x, info))]));
  }
  if (typeof v === "string") {
    if (info.idPattern.test(v)) return recordLink(v, v);
    if (/^https?:\/\/\S+$/.test(v)) return h("a", { href: v, rel: "noopener noreferrer", target: "_blank" }, v);
    return h("span", { class: "text", dir: "auto" }, v);
  }
  return String(v);
}

// Every field as stored, in its order; the empty ones named together on one line.
function fields(rec, info) {
  const blank = Object.keys(rec).filter((key) => empty(rec[key]));
  return h("div", {},
    h("dl", { class: "fields" }, Object.entries(rec).filter(([, v]) => !empty(v)).map(([key, v]) => [
      h("dt", {}, key), h("dd", {}, value(v, info))])),
    blank.length ? h("p", { class: "quiet small" }, "Empty: ", blank.join(", ")) : null);
}

// Ingested records carry {"transcript", "session", "lines": [a, b]}: the grip on the
// transcript they were extracted from. With `lore show --source` in this lore, the lines
// themselves ("source_lines": {..., "entries": [{"line", "who", "text"}]}), shown in place.
function provenance(rec, info) {
  const p = rec.provenance;
  if (!p || typeof p !== "object" || Array.isArray(p)) return null;
  const lines = Array.isArray(p.lines) ? p.lines : null;
  const body = h("div", {},
    h("p", {}, "Extracted from ",
      p.transcript ? h("code", { class: "path" }, p.transcript) : "a transcript",
      lines ? `, lines ${lines[0]}–${lines[lines.length - 1]}` : "",
      p.session ? [", session ", value(p.session, info)] : ""));
  const box = h("section", { class: "card", id: "provenance" }, h("h2", {}, "Provenance"), body);
  if (info.source) {
    const slot = h("div", { class: "source", "aria-live": "polite" }, h("p", { class: "quiet" }, "Reading the transcript…"));
    const load = () => get("/api/show", { id: rec.id, source: 1 })
      .then((doc) => slot.replaceChildren(transcript(doc.source_lines)))
      .catch((error) => slot.replaceChildren(errorBox(error)));
    const count = lines ? lines[lines.length - 1] - lines[0] + 1 : 0;
    if (count > SOURCE_IN_PLACE) {
      // A session's grip is its whole transcript (thousands of lines, megabytes): read
      // and drawn only when asked for, so the page stays a page.
      const more = h("details", { class: "source-all" },
        h("summary", {}, `Show the ${count} transcript lines`), slot);
      let asked = false;
      more.addEventListener("toggle", () => { if (more.open && !asked) { asked = true; load(); } });
      body.append(more);
    } else {
      body.append(slot);
      load();
    }
  }
  return box;
}

function transcript(source) {
  const entries = source && Array.isArray(source.entries) ? source.entries : [];
  if (!entries.length) return h("p", { class: "quiet" }, "No readable lines.");
  return h("ol", { class: "transcript plain" }, entries.map((e) => h("li", {},
    h("span", { class: "line-no" }, `${e.line}`), " ", h("strong", {}, e.who || ""), " ",
    h("span", { class: "text", dir: "auto" }, e.text || ""))));
}

function sessionLine(sessionId) {
  const line = h("p", {}, recordLink(sessionId, sessionId));
  get("/api/show", { id: sessionId }).then((doc) => {
    const s = doc.record || doc;
    line.append(" · ", s.summary || s.status || "", s.ended_at ? [" · ", time(s.ended_at)] : "");
  }).catch(() => line.append(" (not in this data root)"));
  return line;
}

function evidence(items, info) {
  return h("ul", { class: "plain" }, items.map((e) => h("li", {},
    h("span", { class: "chip" }, e.confidence || ""), " ", recordLink(e.id, title(e, info.kindSpec, "evidence")),
    e.provenance ? [" · ", value(e.provenance, info)] : null)));
}

function neighbours(doc, info) {
  if (!doc || !doc.neighbors.length) return h("p", { class: "quiet" }, "No links to or from this record.");
  return h("table", { class: "links" },
    h("thead", {}, h("tr", {}, h("th", { scope: "col" }, "way"), h("th", { scope: "col" }, "relation"),
      h("th", { scope: "col" }, "kind"), h("th", { scope: "col" }, "record or node"))),
    h("tbody", {}, doc.neighbors.map((n) => h("tr", {},
      h("td", { title: n.direction === "out" ? "this record points to it" : "it points to this record" }, ARROW[n.direction]),
      h("td", {}, n.relation),
      h("td", {}, badge(n.type, info.colors)),
      h("td", {}, info.idPattern.test(n.id) ? recordLink(n.id, n.label || n.id)
        : h("a", { href: route("graph", n.id) }, n.label || n.id))))));
}

function history(lines) {
  if (!lines || !lines.length) return h("p", { class: "quiet" }, "No revisions (documents keep their history in git).");
  return h("ol", { class: "history" }, lines.map((line, i) => {
    const revise = line._op === "revise";
    const changes = revise ? line.set || {} : {};
    return h("li", {},
      h("strong", {}, revise ? "revised" : i === 0 ? "created" : "line"), " ", time(line.timestamp),
      line.reason ? [" · ", h("span", { class: "text" }, line.reason)] : null,
      revise ? h("dl", { class: "nested" }, Object.entries(changes).map(([k, v]) =>
        [h("dt", {}, k), h("dd", {}, typeof v === "string" ? v : JSON.stringify(v))])) : null);
  }));
}

// A session: its handoff, what it captured (failures first), the files it left changed.
function session(rec, links, info) {
  const labels = new Map((links ? links.neighbors : []).map((n) => [n.id, n]));
  const captured = rec.captured || {};
  const order = ["failure", "decision", "pattern", "observation"];
  const rank = (kind) => (order.includes(kind) ? order.indexOf(kind) : order.length);
  const kinds = Object.keys(captured).sort((a, b) => rank(a) - rank(b) || a.localeCompare(b));
  const lists = (name, items) => items && items.length
    ? [h("h3", {}, name), h("ul", { class: "plain" }, items.map((x) => h("li", { dir: "auto" }, x)))] : null;
  const git = rec.git || {};
  return h("section", { class: "card session", id: "session" }, h("h2", {}, "Handoff"),
    rec.message ? h("p", { class: "text message", dir: "auto" }, rec.message) : h("p", { class: "quiet" }, "Not handed off yet."),
    lists("Next steps", rec.next_steps), lists("Blockers", rec.blockers),
    lists("Questions", rec.questions), lists("Open threads", rec.threads),
    h("h3", {}, "Captured"),
    kinds.length ? kinds.map((kind) => h("div", { class: `captured captured-${kind}` },
      h("h4", {}, `${kind} (${captured[kind].length})`),
      h("ul", { class: "plain" }, captured[kind].map((cid) => h("li", {},
        recordLink(cid, (labels.get(cid) || {}).label || cid)))))) : h("p", { class: "quiet" }, "Nothing captured."),
    git.branch || (git.uncommitted || []).length ? [h("h3", {}, "Edits"),
      h("p", {}, git.repo ? `${git.repo} ` : "", git.branch ? `on ${git.branch} ` : "", git.head ? h("code", {}, String(git.head).slice(0, 12)) : ""),
      (git.uncommitted || []).length ? h("ul", { class: "plain files" }, git.uncommitted.map((f) => h("li", {}, h("code", {}, f)))) : null,
      (git.last_commits || []).length ? h("ul", { class: "plain" }, git.last_commits.map((c) =>
        h("li", {}, h("code", {}, c.sha), " ", when(c.date), " ", c.subject))) : null] : null,
    rec.parent ? h("p", {}, "Forked from ", recordLink(rec.parent)) : null);
}

// Building the page. Record text reaches the DOM only as text nodes (never as markup),
// links only to this app's own routes or to http(s) addresses, and invisible direction
// controls (an RTL override, say) are shown as visible marks so they cannot reorder a line.

const BIDI = /[\u061C\u200E\u200F\u202A-\u202E\u2066-\u2069]/;
const BIDI_ALL = /[\u061C\u200E\u200F\u202A-\u202E\u2066-\u2069]/g;

export function text(value) {
  const s = value == null ? "" : String(value);
  if (!BIDI.test(s)) return document.createTextNode(s);
  const out = document.createDocumentFragment();
  let last = 0;
  for (const match of s.matchAll(BIDI_ALL)) {
    out.append(s.slice(last, match.index));
    const code = match[0].codePointAt(0).toString(16).toUpperCase().padStart(4, "0");
    const mark = document.createElement("span");
    mark.className = "bidi";
    mark.title = "an invisible text-direction control character";
    mark.textContent = `[U+${code}]`;
    out.append(mark);
    last = match.index + match[0].length;
  }
  out.append(s.slice(last));
  return out;
}

export function safeHref(href) {
  const s = String(href);
  if (s.startsWith("#/")) return s;
  try {
    const url = new URL(s);
    if (url.protocol === "http:" || url.protocol === "https:") return url.href;
  } catch (_) {
    // not an address
  }
  return null;
}

// h("a", {href: "#/x", class: "c", onclick: fn}, "text", child, [more])
export function h(tag, attrs, ...children) {
  const el = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs || {})) {
    if (value == null || value === false) continue;
    if (key === "class") el.className = value;
    else if (key.startsWith("on")) el.addEventListener(key.slice(2), value);
    else if (key === "href") {
      const safe = safeHref(value);
      if (safe) el.setAttribute("href", safe);
    } else el.setAttribute(key, value === true ? "" : String(value));
  }
  add(el, children);
  return el;
}

export function add(el, children) {
  for (const child of [children].flat(Infinity)) {
    if (child == null || child === false) continue;
    el.append(child instanceof Node ? child : text(child));
  }
  return el;
}

export const route = (...parts) => "#/" + parts.map((p) => encodeURIComponent(p)).join("/");

export function withQuery(base, params) {
  const q = new URLSearchParams();
  for (const [key, value] of Object.entries(params)) {
    for (const v of [value].flat()) if (v != null && v !== "" && v !== false) q.append(key, v);
  }
  const s = q.toString();
  return s ? `${base}?${s}` : base;
}

export function recordLink(id, label) {
  return h("a", { href: route("record", id), class: "rec" }, label == null ? id : label);
}

// "2026-05-12T14:03:11.123Z" -> "2026-05-12 14:03" (UTC, as lore stores it)
export function when(stamp) {
  if (!stamp) return "";
  return String(stamp).slice(0, 16).replace("T", " ");
}

export function ago(stamp) {
  const t = Date.parse(stamp);
  if (Number.isNaN(t)) return "";
  const days = (Date.now() - t) / 86400000;
  if (days < 1) return "today";
  if (days < 2) return "yesterday";
  if (days < 60) return `${Math.floor(days)} days ago`;
  if (days < 730) return `${Math.floor(days / 30.4)} months ago`;
  return `${Math.floor(days / 365.25)} years ago`;
}

export function time(stamp) {
  return h("time", { datetime: stamp, title: `${stamp} (${ago(stamp)})` }, when(stamp));
}

export function badge(kind, colors) {
  const el = h("span", { class: "kind" }, kind);
  if (colors && colors[kind]) el.style.setProperty("--kind", colors[kind]);
  return el;
}

export function plural(n, word) {
  return `${n.toLocaleString("en")} ${word}${n === 1 ? "" : "s"}`;
}

export function errorBox(error) {
  const doc = error && error.doc;
  const message = doc ? doc.error : String((error && error.message) || error);
  const box = h("div", { class: "error", role: "alert" }, h("strong", {}, "Error: "), message);
  if (doc && doc.existing_id) box.append(" (", recordLink(doc.existing_id, doc.existing_id), ")");
  return box;
}

// A record's kind from its id (a stored record's own "type" field is a decision's type).
export function kindOf(id, info) {
  const prefix = String(id).split("-")[0];
  const spec = info.kinds.find((k) => k.prefix === prefix);
  return spec ? spec.name : "";
}

// The record's title field as one line; `kind` when the record does not say it (show).
export function title(record, kinds, kind) {
  const spec = kinds && kinds[kind || record.type];
  const value = spec && record[spec.title] != null ? record[spec.title] : record.title;
  const s = value == null ? "" : String(value);
  return s.trim() ? s.replace(/\s+/g, " ").trim() : record.id;
}

// The record's state in one word or two: retracted, superseded, an outcome, a status.
export function status(record) {
  const out = [];
  if (record.retracted_at || record.status === "retracted") out.push("retracted");
  else if (record.status === "superseded" || record.superseded_by) out.push("superseded");
  else if (record.status && record.status !== "active") out.push(record.status);
  if (record.outcome) out.push(record.outcome);
  if (record.confidence != null && typeof record.confidence !== "object") out.push(`confidence ${record.confidence}`);
  if (record.stale || record.staleness) out.push(`stale${record.staleness ? `: ${record.staleness}` : ""}`);
  return out;
}

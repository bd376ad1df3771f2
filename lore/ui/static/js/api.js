// The server's JSON API: every answer is the --json document of the matching lore command.
// Writes carry the token this page was served with; nothing else can make them.

const meta = (name) => document.querySelector(`meta[name="${name}"]`).content;
export const TOKEN = meta("lore-token");
export const READ_ONLY = meta("lore-read-only") === "1";

export class ApiError extends Error {
  constructor(doc, status) {
    super((doc && doc.error) || `HTTP ${status}`);
    this.doc = doc;
    this.status = status;
  }
}

async function answer(response) {
  let doc = null;
  try {
    doc = await response.json();
  } catch (_) {
    doc = { ok: false, error: `the server answered ${response.status} without JSON`, code: "error" };
  }
  if (!response.ok) throw new ApiError(doc, response.status);
  const total = response.headers.get("X-Total-Count");
  return { doc, total: total == null ? null : Number(total) };
}

export function query(params) {
  const q = new URLSearchParams();
  for (const [key, value] of Object.entries(params || {})) {
    for (const v of [value].flat()) if (v != null && v !== "" && v !== false) q.append(key, v === true ? "1" : v);
  }
  return q.toString();
}

// get("/api/recall", {q: "redis"}) -> the document; page(...) -> {doc, total}
export async function page(path, params) {
  const q = query(params);
  const response = await fetch(q ? `${path}?${q}` : path, { headers: { Accept: "application/json" } });
  return answer(response);
}

export async function get(path, params) {
  return (await page(path, params)).doc;
}

export async function post(path, body) {
  const response = await fetch(path, {
    method: "POST",
    headers: { "Content-Type": "application/json", "X-Lore-Token": TOKEN },
    body: JSON.stringify(body),
  });
  return (await answer(response)).doc;
}

let infoPromise = null;
export function info() {
  if (!infoPromise) {
    infoPromise = get("/api/info").then((doc) => {
      doc.kindSpec = Object.fromEntries(doc.kinds.map((k) => [k.name, k]));
      const prefixes = doc.kinds.map((k) => k.prefix).filter(Boolean);
      doc.idPattern = new RegExp(`^(?:${prefixes.join("|")})-[0-9A-Za-z][0-9A-Za-z-]*$`);
      return doc;
    });
  }
  return infoPromise;
}

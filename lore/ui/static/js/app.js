// The app: a hash router (#/view/arg?params), so the browser's back and forward buttons,
// bookmarks and reloads all work, and a view per section.

import { info } from "./api.js";
import { errorBox, h } from "./dom.js";
import * as graph from "./graph.js";
import * as queues from "./queues.js";
import * as record from "./record.js";
import * as search from "./search.js";
import * as sessions from "./sessions.js";
import * as timeline from "./timeline.js";

const VIEWS = { search, record, timeline, graph, queues, sessions };
const main = document.getElementById("main");
let mounted = null; // {name, view, state}
let sequence = 0;

export function parse(hash) {
  const raw = (hash || "").replace(/^#\/?/, "");
  const cut = raw.indexOf("?");
  const [path, qs] = cut < 0 ? [raw, ""] : [raw.slice(0, cut), raw.slice(cut + 1)];
  const parts = path.split("/").filter(Boolean).map(decodeURIComponent);
  const name = VIEWS[parts[0]] ? parts[0] : "search";
  return { name, arg: parts.slice(1).join("/") || null, params: new URLSearchParams(qs || "") };
}

async function show() {
  const at = parse(location.hash);
  const mine = ++sequence;
  const ctx = { ...at, info: await info(), main };
  document.querySelectorAll("nav a").forEach((a) => {
    if (a.dataset.view === (at.name === "record" ? "" : at.name)) a.setAttribute("aria-current", "page");
    else a.removeAttribute("aria-current");
  });
  if (mounted && mounted.name === at.name && mounted.view.update) {
    await mounted.view.update(ctx, mounted.state);
    if (mine === sequence) main.dataset.route = location.hash;
    return;
  }
  main.setAttribute("aria-busy", "true");
  try {
    const state = {};
    const node = await VIEWS[at.name].render(ctx, state);
    if (mine !== sequence) return; // the reader moved on meanwhile
    main.replaceChildren(node);
    mounted = { name: at.name, view: VIEWS[at.name], state };
    if (VIEWS[at.name].mounted) await VIEWS[at.name].mounted(ctx, state);
    // Move the keyboard and screen-reader focus to the new view (its search box, or its title).
    const target = main.querySelector("[data-autofocus]") || main.querySelector("h1");
    if (target) {
      if (target.tagName === "H1") target.tabIndex = -1;
      target.focus({ preventScroll: true });
    }
  } catch (error) {
    if (mine !== sequence) return;
    main.replaceChildren(h("h1", {}, "Something went wrong"), errorBox(error));
    mounted = null;
  } finally {
    if (mine === sequence) main.removeAttribute("aria-busy");
  }
  if (mine === sequence) main.dataset.route = location.hash; // drawn: what tests wait for
  const heading = main.querySelector("h1");
  document.title = `${heading ? heading.textContent : "lore"} · lore`;
}

async function start() {
  const about = await info();
  const where = document.getElementById("where");
  where.textContent = `${about.root}${about.read_only ? " · read-only" : ""}`;
  where.title = `lore ${about.version}, data root ${about.root}`;
  window.addEventListener("hashchange", show);
  await show();
  document.body.setAttribute("data-ready", "1");
  document.body.setAttribute("data-ready-ms", String(Math.round(performance.now())));
}

start().catch((error) => {
  main.replaceChildren(h("h1", {}, "lore ui could not start"), errorBox(error));
});

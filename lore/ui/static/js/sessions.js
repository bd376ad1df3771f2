// Sessions, newest first (lore sessions list --json): what each captured and its handoff;
// a session's own page is its record page, with the handoff, captures and edits.

import { page } from "./api.js";
import { h, plural, recordLink, time, withQuery } from "./dom.js";

const PAGE = 30;

export async function render(ctx) {
  const { params } = ctx;
  const project = params.get("project") || "";
  const all = params.get("all") === "1";
  const list = h("ol", { class: "sessions" });
  const count = h("p", { class: "quiet" });
  const more = h("button", { type: "button", class: "more", hidden: true }, "Show more");
  let offset = 0;
  const load = async () => {
    const { doc, total } = await page("/api/sessions", { project, all: all ? 1 : null, limit: PAGE, offset });
    doc.forEach((s) => list.append(row(s)));
    offset += doc.length;
    count.textContent = `${plural(total, "session")}${project ? ` of ${project}` : ""}`;
    more.hidden = offset >= total;
  };
  more.addEventListener("click", () => load());
  const form = h("form", { class: "inline-filters", "aria-label": "Session filters" },
    h("label", { class: "field" }, h("span", {}, "Project"), h("input", { name: "project", value: project, autocomplete: "off" })),
    h("label", { class: "check" }, h("input", { type: "checkbox", name: "all", value: "1", checked: all }), " include archived"),
    h("button", { type: "submit" }, "Apply"));
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    const data = new FormData(form);
    location.hash = withQuery("#/sessions", { project: (data.get("project") || "").trim(), all: data.get("all") });
  });
  await load();
  return h("div", { class: "view-sessions" }, h("h1", {}, "Sessions"), form, count, list, more);
}

function row(s) {
  const captured = Object.entries(s.captured || {}).filter(([, ids]) => Array.isArray(ids) && ids.length)
    .map(([kind, ids]) => `${kind} ${ids.length}`).join(" · ");
  const failures = ((s.captured || {}).failure || []).length;
  return h("li", { class: "session-row" },
    h("div", { class: "line" }, recordLink(s.id, s.summary || (s.status === "open" ? "(not handed off yet)" : s.id))),
    h("div", { class: "meta" }, time(s.ended_at || s.timestamp), h("span", { class: "chip" }, s.status),
      s.project ? h("span", {}, s.project) : null,
      h("span", {}, captured || "nothing captured"),
      failures ? h("span", { class: "chip warn" }, plural(failures, "failure")) : null,
      (s.next_steps || []).length ? h("span", {}, plural(s.next_steps.length, "next step")) : null,
      h("span", { class: "id" }, s.id)));
}

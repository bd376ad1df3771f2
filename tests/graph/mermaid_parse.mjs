// Parse Mermaid text (stdin) with Mermaid's own parser and print, as JSON, what it understood:
// {"ok", "type", "vertices": [{"id", "text", "labelType"}], "edges": [...]} or {"ok": false, "error"}.
// Usage: node mermaid_parse.mjs NODE_MODULES (a folder holding the mermaid and jsdom packages).
import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';
const modules = process.argv[2];
const require = createRequire(modules + '/');
const { JSDOM } = require('jsdom');
const dom = new JSDOM('<!doctype html><html><body></body></html>');
globalThis.window = dom.window;
globalThis.document = dom.window.document;
const { default: mermaid } = await import(pathToFileURL(require.resolve('mermaid')).href);
let text = '';
for await (const chunk of process.stdin) text += chunk;
try {
  await mermaid.parse(text);
  const diagram = await mermaid.mermaidAPI.getDiagramFromText(text);
  const db = diagram.db;
  const vertices = [...db.getVertices().values()].map((v) => ({ id: v.id, text: v.text, labelType: v.labelType }));
  const edges = db.getEdges().map((e) => ({ start: e.start, end: e.end, text: e.text, labelType: e.labelType }));
  console.log(JSON.stringify({ ok: true, type: diagram.type, vertices, edges }));
} catch (error) {
  console.log(JSON.stringify({ ok: false, error: String(error.message || error) }));
}

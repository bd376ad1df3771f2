/* lore's graph view: a neighbourhood that grows click by click, never the whole store.
   Used by `lore ui` (data from its API) and inlined by `lore graph export --format html`
   (data from the page). No library, no network; text only through text nodes.

   Layout: the focus in the middle, its neighbours in columns to the right and left, each
   expanded node's neighbours in the next column out (a tidy tree: every node has its own
   row in its column, so boxes and relation labels never overprint). Edges between nodes
   already shown that are not the tree's are drawn dashed. */
(function (global) {
  "use strict";
  var W = 210, H = 46, ROW = 58, GAP = 120, COL = W + GAP, PAD = 24, PAGE = 12;
  var SVG = "http://www.w3.org/2000/svg";

  function create(container, options) {
    var doc = container.ownerDocument;
    var colors = options.colors || {};
    var state = {
      focus: null, info: new Map(), cache: new Map(), expanded: new Set(),
      limits: new Map(), kinds: null, relations: null, selected: null, placed: new Map(),
      zoom: 1, wide: 0, tall: 0
    };
    container.classList.add("lg");
    var canvas = doc.createElement("div");
    canvas.className = "lg-canvas";
    var svg = doc.createElementNS(SVG, "svg");
    svg.setAttribute("class", "lg-edges");
    svg.setAttribute("aria-hidden", "true");
    canvas.appendChild(svg);
    container.appendChild(canvas);
    container.addEventListener("keydown", onKey);

    // The visible area in the canvas's own units (CSS zoom scales the canvas, not these).
    function view() {
      return {
        left: container.scrollLeft / state.zoom, top: container.scrollTop / state.zoom,
        width: container.clientWidth / state.zoom, height: container.clientHeight / state.zoom
      };
    }

    function scrollTo(left, top) {
      container.scrollLeft = Math.max(0, left) * state.zoom;
      container.scrollTop = Math.max(0, top) * state.zoom;
    }

    function info(key) {
      return state.info.get(key) || { id: key, type: "", label: key };
    }

    function neighbours(key) {
      if (state.cache.has(key)) { return Promise.resolve(state.cache.get(key)); }
      return Promise.resolve(options.neighbors(key)).then(function (doc) {
        var list = (doc && doc.neighbors) || [];
        list.forEach(function (n) {
          if (!state.info.has(n.id)) { state.info.set(n.id, { id: n.id, type: n.type, label: n.label }); }
        });
        state.cache.set(key, list);
        return list;
      });
    }

    function passes(n) {
      return (!state.kinds || state.kinds.has(n.type)) &&
        (!state.relations || state.relations.has(n.relation));
    }

    // --- the tree: breadth first from the focus, so a node sits nearest the focus ----
    function tree() {
      var placed = new Map();
      var root = { id: state.focus, parent: null, depth: 0, side: 0, children: [] };
      placed.set(root.id, root);
      var queue = [root];
      while (queue.length) {
        var t = queue.shift();
        if (t.more || !state.expanded.has(t.id) || !state.cache.has(t.id)) { continue; }
        var fresh = [];
        var seen = new Set();
        state.cache.get(t.id).forEach(function (n) {
          if (passes(n) && !placed.has(n.id) && !seen.has(n.id)) { seen.add(n.id); fresh.push(n); }
        });
        var limit = state.limits.get(t.id) || PAGE;
        fresh.slice(0, limit).forEach(function (n, i) {
          var side = t.side || (i < Math.ceil(Math.min(fresh.length, limit) / 2) ? 1 : -1);
          var child = { id: n.id, parent: t, relation: n.relation, direction: n.direction,
            depth: t.depth + 1, side: side, children: [] };
          placed.set(n.id, child);
          t.children.push(child);
          queue.push(child);
        });
        if (fresh.length > limit) {
          var right = t.side || (t.children.length && t.children[0].side) || 1;
          t.children.push({ id: "more:" + t.id, more: fresh.length - limit, owner: t.id,
            parent: t, depth: t.depth + 1, side: t.side || -right, children: [] });
        }
      }
      return { root: root, placed: placed };
    }

    function layout(root) {
      var slots = { "1": 0, "-1": 0 };
      function place(t, side) {
        var kids = t.children.filter(function (k) { return k.side === side; });
        if (!kids.length) { t.y = slots[side]++; return; }
        kids.forEach(function (k) { place(k, side); });
        t.y = (kids[0].y + kids[kids.length - 1].y) / 2;
      }
      var spans = {};
      [1, -1].forEach(function (side) {
        var kids = root.children.filter(function (k) { return k.side === side; });
        kids.forEach(function (k) { place(k, side); });
        spans[side] = kids.length ? [kids[0].y, kids[kids.length - 1].y, slots[side]] : null;
      });
      var height = Math.max(slots["1"], slots["-1"], 1);
      var shift = {};
      [1, -1].forEach(function (side) {
        var used = slots[side] || 0;
        shift[side] = (height - used) / 2;
      });
      var nodes = [];
      (function walk(t) {
        nodes.push(t);
        t.children.forEach(walk);
      })(root);
      var deepest = { "1": 0, "-1": 0 };
      nodes.forEach(function (t) {
        if (t.side) {
          t.y += shift[t.side];
          deepest[t.side] = Math.max(deepest[t.side], t.depth);
        }
      });
      var mids = [1, -1].filter(function (s) { return spans[s]; }).map(function (s) {
        return (spans[s][0] + spans[s][1]) / 2 + shift[s];
      });
      root.y = mids.length ? mids.reduce(function (a, b) { return a + b; }, 0) / mids.length
        : (height - 1) / 2;
      // Centred in the container while it fits; scrolled when it does not.
      var wide = (deepest["-1"] + deepest["1"]) * COL + W;
      var tall = (height - 1) * ROW + H;
      var box = view();
      state.wide = wide + 2 * PAD;
      state.tall = tall + 2 * PAD;
      var left = Math.max(PAD, (box.width - wide) / 2) + deepest["-1"] * COL;
      var top = Math.max(PAD, (box.height - tall) / 2);
      nodes.forEach(function (t) {
        t.x = Math.round(left + t.side * t.depth * COL);
        t.top = Math.round(top + t.y * ROW);
      });
      return {
        nodes: nodes,
        width: Math.max(PAD * 2 + wide, box.width - 2),
        height: Math.max(PAD * 2 + tall, box.height - 2)
      };
    }

    // --- drawing ------------------------------------------------------------------------
    function render() {
      if (state.focus === null) { return; }
      var built = tree();
      state.placed = built.placed;
      var drawn = layout(built.root);
      canvas.style.width = drawn.width + "px";
      canvas.style.height = drawn.height + "px";
      svg.setAttribute("width", drawn.width);
      svg.setAttribute("height", drawn.height);
      while (svg.lastChild) { svg.removeChild(svg.lastChild); }
      svg.appendChild(markers());
      Array.prototype.slice.call(canvas.querySelectorAll(".lg-node, .lg-rel")).forEach(
        function (el) { el.remove(); });
      var edges = 0;
      drawn.nodes.forEach(function (t) {
        canvas.appendChild(box(t));
        if (t.parent) {
          treeEdge(t);
          if (!t.more) { edges++; }
        }
      });
      edges += crossEdges(built.placed);
      var count = drawn.nodes.filter(function (t) { return !t.more; }).length;
      container.setAttribute("data-nodes-drawn", String(count));
      container.setAttribute("data-edges-drawn", String(edges));
      container.setAttribute("data-focus", state.focus);
      if (options.onRender) { options.onRender({ nodes: count, edges: edges }); }
    }

    function markers() {
      var defs = doc.createElementNS(SVG, "defs");
      var marker = doc.createElementNS(SVG, "marker");
      marker.setAttribute("id", "lg-arrow");
      marker.setAttribute("viewBox", "0 0 10 10");
      marker.setAttribute("refX", "10");
      marker.setAttribute("refY", "5");
      marker.setAttribute("markerWidth", "7");
      marker.setAttribute("markerHeight", "7");
      marker.setAttribute("orient", "auto-start-reverse");
      var tip = doc.createElementNS(SVG, "path");
      tip.setAttribute("d", "M0,0 L10,5 L0,10 z");
      tip.setAttribute("class", "lg-tip");
      marker.appendChild(tip);
      defs.appendChild(marker);
      return defs;
    }

    function box(t) {
      var b = doc.createElement("button");
      b.type = "button";
      b.className = "lg-node" + (t.more ? " lg-more" : "");
      b.style.left = t.x + "px";
      b.style.top = t.top + "px";
      b.setAttribute("data-key", t.id);
      if (t.more) {
        b.textContent = "+" + t.more + " more";
        b.setAttribute("aria-label", "show " + Math.min(t.more, PAGE) + " more neighbours");
        b.addEventListener("click", function () {
          state.limits.set(t.owner, (state.limits.get(t.owner) || PAGE) + PAGE);
          render();
          refocus(t.owner);
        });
        return b;
      }
      var node = info(t.id);
      var open = state.expanded.has(t.id);
      if (t.depth === 0) { b.classList.add("lg-focus"); b.setAttribute("aria-current", "true"); }
      if (state.selected === t.id) { b.classList.add("lg-selected"); }
      b.setAttribute("aria-expanded", open ? "true" : "false");
      b.style.setProperty("--lg-kind", colors[node.type] || "#888");
      var head = doc.createElement("span");
      head.className = "lg-type";
      head.textContent = (node.type || "node") + (t.depth === 0 ? " · focus" : "");
      var label = doc.createElement("span");
      label.className = "lg-label";
      label.textContent = node.label || node.id;
      var sign = doc.createElement("span");
      sign.className = "lg-sign";
      sign.setAttribute("aria-hidden", "true");
      sign.textContent = open ? "−" : "+";
      b.appendChild(head);
      b.appendChild(label);
      b.appendChild(sign);
      var how = t.parent ? " (" + t.relation + (t.direction === "out" ? " from " : " to ") +
        info(t.parent.id).label + ")" : " (focus)";
      b.title = (node.type || "") + " " + node.id + ": " + (node.label || "") + how;
      b.setAttribute("aria-label", (node.type || "node") + ": " + (node.label || node.id) + how +
        (open ? ", expanded" : ", collapsed"));
      b.addEventListener("click", function () { toggle(t.id); });
      return b;
    }

    function ends(from, to) {
      // from the side of `from` facing `to`, to the side of `to` facing `from`
      var fx = to.x >= from.x ? from.x + W : from.x;
      var tx = to.x >= from.x ? to.x : to.x + W;
      if (to.x === from.x) { fx = from.x + W; tx = to.x + W; }
      return [fx, from.top + H / 2, tx, to.top + H / 2];
    }

    function curve(p, bend) {
      var dx = Math.max(30, Math.abs(p[2] - p[0]) / 2) * (bend || 1);
      var s1 = p[2] >= p[0] ? 1 : -1;
      if (p[2] === p[0]) { s1 = 1; }
      return "M" + p[0] + "," + p[1] + " C" + (p[0] + s1 * dx) + "," + p[1] + " " +
        (p[2] - (p[2] === p[0] ? -dx : s1 * dx)) + "," + p[3] + " " + p[2] + "," + p[3];
    }

    function treeEdge(t) {
      var parent = t.parent;
      var p = ends(parent, t);
      var path = doc.createElementNS(SVG, "path");
      path.setAttribute("d", curve(p));
      path.setAttribute("class", "lg-edge" + (t.more ? " lg-edge-more" : ""));
      if (!t.more) {
        path.setAttribute(t.direction === "out" ? "marker-end" : "marker-start", "url(#lg-arrow)");
      }
      svg.appendChild(path);
      if (t.more) { return; }
      var rel = doc.createElement("span");
      rel.className = "lg-rel";
      rel.textContent = t.relation;
      rel.style.top = (t.top + H / 2 - 18) + "px";  // just above the edge
      if (t.side > 0) {
        rel.style.left = (t.x - GAP + 14) + "px";
      } else {
        rel.style.left = (t.x + W + 14) + "px";
      }
      rel.style.width = (GAP - 28) + "px";
      rel.classList.add(t.side > 0 ? "lg-rel-right" : "lg-rel-left");
      canvas.appendChild(rel);
    }

    function crossEdges(placed) {
      var count = 0;
      var done = new Set();
      state.expanded.forEach(function (key) {
        var from = placed.get(key);
        if (!from || !state.cache.has(key)) { return; }
        state.cache.get(key).forEach(function (n) {
          var to = placed.get(n.id);
          if (!to || !passes(n)) { return; }
          if ((to.parent === from && to.relation === n.relation && to.direction === n.direction) ||
              (from.parent === to && from.relation === n.relation &&
               from.direction !== n.direction)) { return; }
          var a = n.direction === "out" ? key : n.id;
          var b = n.direction === "out" ? n.id : key;
          var id = a + "\u0000" + n.relation + "\u0000" + b;
          if (done.has(id)) { return; }
          done.add(id);
          var p = ends(placed.get(a), placed.get(b));
          var path = doc.createElementNS(SVG, "path");
          path.setAttribute("d", curve(p, 1.4));
          path.setAttribute("class", "lg-edge lg-cross");
          path.setAttribute("marker-end", "url(#lg-arrow)");
          var title = doc.createElementNS(SVG, "title");
          title.textContent = a + " " + n.relation + " " + b;
          path.appendChild(title);
          svg.appendChild(path);
          count++;
        });
      });
      return count;
    }

    // --- interaction --------------------------------------------------------------------
    function refocus(key) {
      var el = canvas.querySelector('.lg-node[data-key="' + cssEscape(key) + '"]');
      if (el) { el.focus({ preventScroll: true }); }
    }

    function select(key) {
      state.selected = key;
      Array.prototype.forEach.call(canvas.querySelectorAll(".lg-node"), function (el) {
        el.classList.toggle("lg-selected", el.getAttribute("data-key") === key);
      });
      if (options.onSelect) { options.onSelect(info(key), state.cache.get(key) || null); }
    }

    function toggle(key) {
      if (state.expanded.has(key) && key !== state.focus) {
        state.expanded.delete(key);
        render();
        select(key);
        refocus(key);
        return Promise.resolve();
      }
      return expand(key).then(function () { select(key); reveal(key); refocus(key); });
    }

    // Scroll so a grown node and its new neighbours are in sight (when they are not).
    function reveal(key) {
      var t = state.placed.get(key);
      if (!t || !t.children.length) { return; }
      var all = [t].concat(t.children);
      var x0 = Math.min.apply(null, all.map(function (c) { return c.x; }));
      var x1 = Math.max.apply(null, all.map(function (c) { return c.x + W; }));
      var y0 = Math.min.apply(null, all.map(function (c) { return c.top; }));
      var y1 = Math.max.apply(null, all.map(function (c) { return c.top + H; }));
      var seen = view();
      var left = seen.left, top = seen.top, width = seen.width, height = seen.height;
      // the least scrolling that shows them (the node itself first when they cannot all fit)
      if (x1 > left + width) { left = Math.min(x1 + PAD - width, t.x - PAD); }
      if (x0 < left) { left = Math.max(x0 - PAD, t.x + W + PAD - width); }
      if (y1 > top + height) { top = Math.min(y1 + PAD - height, t.top - PAD); }
      if (y0 < top) { top = Math.max(y0 - PAD, t.top + H + PAD - height); }
      scrollTo(left, top);
    }

    function expand(key) {
      return neighbours(key).then(function () {
        state.expanded.add(key);
        render();
      });
    }

    function focus(key, node) {
      if (node) { state.info.set(key, { id: key, type: node.type, label: node.label }); }
      state.focus = key;
      state.expanded = new Set();
      state.limits = new Map();
      return expand(key).then(function () {
        select(key);
        center(key);
      });
    }

    function center(key) {
      var t = state.placed.get(key);
      if (!t) { return; }
      var seen = view();
      scrollTo(t.x + W / 2 - seen.width / 2, t.top + H / 2 - seen.height / 2);
    }

    function onKey(event) {
      var current = event.target.closest ? event.target.closest(".lg-node") : null;
      var moves = { ArrowRight: [1, 0], ArrowLeft: [-1, 0], ArrowDown: [0, 1], ArrowUp: [0, -1] };
      var move = moves[event.key];
      if (!current || !move) { return; }
      var x = parseFloat(current.style.left), y = parseFloat(current.style.top);
      var best = null, bestScore = Infinity;
      Array.prototype.forEach.call(canvas.querySelectorAll(".lg-node"), function (el) {
        if (el === current) { return; }
        var dx = parseFloat(el.style.left) - x, dy = parseFloat(el.style.top) - y;
        var along = dx * move[0] + dy * move[1];
        if (along <= 0) { return; }
        var score = along + 2 * Math.abs(move[0] ? dy : dx);
        if (score < bestScore) { best = el; bestScore = score; }
      });
      if (best) { event.preventDefault(); best.focus(); }
    }

    // Zoom: a factor (1.25 closer, 0.8 farther), or "fit" (the whole tree in sight, down
    // to 40%), or 1. Text stays text: the canvas is scaled, then laid out again.
    function zoom(how) {
      var size = { width: container.clientWidth, height: container.clientHeight };
      var next = how === "fit"
        ? Math.min(1, size.width / Math.max(state.wide, 1), size.height / Math.max(state.tall, 1))
        : how === 1 ? 1 : state.zoom * how;
      state.zoom = Math.max(0.4, Math.min(1.6, next));
      canvas.style.zoom = String(state.zoom);
      render();
      if (state.focus !== null) { center(state.selected || state.focus); }
      return state.zoom;
    }

    return {
      focus: focus,
      zoom: zoom,
      expand: function (key) { return expand(key).then(function () { select(key); }); },
      toggle: toggle,
      select: select,
      setFilter: function (kinds, relations) {
        state.kinds = kinds ? new Set(kinds) : null;
        state.relations = relations ? new Set(relations) : null;
        render();
      },
      shown: function () { return Array.from(state.placed.keys()); },
      info: info,
      get focused() { return state.focus; }
    };
  }

  function cssEscape(text) {
    return String(text).replace(/["\\]/g, "\\$&");
  }

  global.LoreGraphView = { create: create };
})(typeof window !== "undefined" ? window : this);

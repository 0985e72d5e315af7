// hearth flamegraph script: hover details, click to zoom, regex search, URL state, thread
// legend, keyboard navigation, a table of functions, a colour-blind-safe palette. Embedded in every flamegraph SVG inside a CDATA section, so it
// must never contain the CDATA terminator. It relies on templates/FLAME_DOM.md and on nothing
// else; the SVG is a picture without it (of every frame, or of those at least `lazy` px wide).
//
// Performance contract: every frame is read at start-up from the frame data (`#frames-data`,
// one JSON text) into typed arrays, never from the DOM. Only frames that are drawn have
// elements: those the SVG wrote (all of them, or those at least `lazy` px wide) and those the
// script creates when a zoom makes a frame that wide or a search matches it; an element is
// hidden (class "hide"), never removed, when its frame stops being drawn. A zoom or a search
// writes the DOM only where a value changes, never reads layout and never measures text. The
// elements stay in pre-order in #frames (created ones are inserted at their place). With the
// data's `paint` (graphs made in a browser, FLAME_DOM.md), the drawn frames narrower than that
// which have no element are painted on one canvas behind #frames instead; hovering one, giving
// it the focus or a search match makes its element.
(function () {
  "use strict";

  const SVG_NS = "http://www.w3.org/2000/svg";
  const SEARCH_FILL = "rgb(230,0,230)";
  // The colour-blind-safe palette (Okabe & Ito's, without black and dark blue, which hide the
  // black labels), ordered so that neighbours differ most. Under simulated deuteranopia (Machado
  // 2009) every two entries are at least 17 CIELAB units apart, neighbours at least 60; the
  // search colour 45 from each (tests/browser/a11y.lib.mjs computes it). A frame's colour is its
  // name's hash, so a function has one colour everywhere.
  const SAFE_FILLS = ["#e69f00", "#56b4e9", "#d55e00", "#cc79a7", "#f0e442", "#009e73"];
  const SAFE_SEARCH_FILL = "rgb(120,90,255)";
  // Rows of the table of functions drawn at most (the rest: narrowed by a search).
  const TABLE_ROWS = 2000;
  const SURROGATE = /[\uD800-\uDFFF]/;

  // Rounded corners make every rect a path for the browser: with more frames than this the
  // script turns them off (class "many" on #frames) to keep a zoom fast.
  const MANY_FRAMES = 3000;

  // State values per frame, mirroring the frame's own class in the DOM.
  const SHOWN = 0;
  const HIDDEN = 1;   // class "hide", or no element
  const PARENT = 2;   // class "parent": an ancestor of the zoomed frame, dimmed, full width
  const PAINTED = 3;  // drawn on the canvas, no element (yet)

  let svg, framesG, details, unzoomBtn, searchBtn, icBtn, matchedEl, tableBtn, paletteBtn;
  let inverted = false;
  let xpad, fullWidth, charWidth, nameType;
  let n = 0;
  let lazy = 0;                       // px; narrower frames have no element unless matched
  let paintBelow = 0;                 // px; narrower drawn frames without an element: painted
  let painter = null, canvas = null;  // <foreignObject> behind #frames, its <canvas>
  let frameH = 15;                    // rect height, px
  let els, rects, texts;              // per frame: <g>, <rect>, <text>, or null
  let names, suffixes, fills;         // per frame: strings (title = name + suffix)
  let classes, strokes;               // per frame: class attribute, [stroke, width]; sparse
  let ox, ow, oy, count;              // per frame: original geometry (px) and sample count
  let depth, parent, end, prevSame, nextSame;  // tree, in pre-order; end = one past subtree
  let written;                        // per frame: 1 when the SVG wrote its element
  let origLabel, curLabel, forms;     // label text as written / as shown; shortened names
  let curX, curW, state;              // what the DOM shows now
  let matched, filled;                // search: frame matches / its element has SEARCH_FILL
  let textDy = 12;                    // label baseline below the rect's top, px
  let zoomed = 0;                     // index of the zoomed frame; 0 = not zoomed
  let focused = -1;                   // keyboard focus
  let tabStop = -1;                   // the frame whose element has tabindex 0 (roving)
  let safePalette = false;            // SAFE_FILLS instead of the written fills
  let safeIndex = null;               // per frame: index into SAFE_FILLS, built on first use
  let searchRe = null;                // the search's RegExp, or null
  let table = null;                   // the table of functions when shown: {g, sort, desc, ...}
  let searchTerm = "";
  let ignoreCase = false;
  let threadEntries = [];             // [{el, frame}]
  let frameIndex = null;              // Map <g> -> frame index, built on first use
  let isAncestor = null;              // scratch flags for applyZoom, all zero between zooms

  function num(el, name, fallback) {
    const v = parseFloat(el.getAttribute(name));
    return isFinite(v) ? v : fallback;
  }

  // Rounds to 0.01 px, the precision of every coordinate we write.
  function round(v) {
    return Math.round(v * 100) / 100;
  }

  // ---- labels (FLAME_DOM.md, "Shortening C++ names") ----

  // Replaces each outermost OPEN...CLOSE group: empty -> OPEN CLOSE, else OPEN U+2026 CLOSE (or kept
  // when KEEP matches the content). Unbalanced input is returned unchanged.
  function collapse(s, open, close, keep) {
    if (s.indexOf(open) < 0 && s.indexOf(close) < 0) return s;
    let out = "";
    let level = 0;
    let start = 0;
    for (let i = 0; i < s.length; i++) {
      const c = s[i];
      if (c === open) {
        if (level === 0) start = i;
        level++;
      } else if (c === close) {
        if (level === 0) return s;
        level--;
        if (level === 0) {
          const content = s.slice(start + 1, i);
          if (content === "") out += open + close;
          else if (content === keep) out += open + content + close;
          else out += open + "\u2026" + close;
        }
      } else if (level === 0) {
        out += c;
      }
    }
    return level === 0 ? out : s;
  }

  function cpLength(s) {
    return SURROGATE.test(s) ? Array.from(s).length : s.length;
  }

  function cutTo(s, cps) {
    return SURROGATE.test(s) ? Array.from(s).slice(0, cps).join("") : s.slice(0, cps);
  }

  function shortForms(name) {
    const p = collapse(name, "(", ")", "anonymous namespace");
    const t = collapse(p, "<", ">", null);
    return [name, cpLength(name), p, cpLength(p), t, cpLength(t)];
  }

  // The label of frame I at WIDTH px; "" when none fits.
  function labelFor(i, width) {
    const chars = Math.floor(width / charWidth);
    if (chars < 3) return "";
    const f = forms[i] || (forms[i] = shortForms(names[i]));
    if (f[1] <= chars) return f[0];
    if (f[3] <= chars) return f[2];
    if (f[5] <= chars) return f[4];
    return cutTo(f[4], chars - 2) + "..";
  }

  // ---- start-up ----

  function init() {
    svg = document.querySelector("svg.hearth") || document.documentElement;
    framesG = document.getElementById("frames");
    const dataEl = document.getElementById("frames-data");
    if (!framesG || !dataEl) return;
    let data;
    try {
      data = JSON.parse(dataEl.textContent);
    } catch (e) {
      return;  // a damaged file: the static picture stays
    }
    details = document.getElementById("details");
    unzoomBtn = document.getElementById("unzoom");
    searchBtn = document.getElementById("search");
    icBtn = document.getElementById("ignorecase");
    matchedEl = document.getElementById("matched");

    xpad = num(svg, "data-xpad", 10);
    const fontSize = num(svg, "data-fontsize", 12);
    charWidth = fontSize * num(svg, "data-fontwidth", 0.59);
    const frameHeight = num(svg, "data-frameheight", 16);
    inverted = svg.getAttribute("data-inverted") === "1";
    nameType = svg.getAttribute("data-nametype") || "Function:";
    let svgWidth = num(svg, "width", NaN);
    const vb = (svg.getAttribute("viewBox") || "").trim().split(/[\s,]+/);
    if (vb.length === 4 && isFinite(parseFloat(vb[2]))) svgWidth = parseFloat(vb[2]);
    if (!isFinite(svgWidth)) svgWidth = 1200;
    fullWidth = svgWidth - 2 * xpad;

    n = data.x.length;
    if (n === 0) return;
    lazy = data.lazy > 0 ? data.lazy : 0;
    paintBelow = lazy > 0 && data.paint > lazy ? data.paint : 0;
    const written_min = Math.max(lazy, paintBelow);  // the SVG wrote the frames this wide
    frameH = data.h;
    els = new Array(n).fill(null);
    rects = new Array(n).fill(null);
    texts = new Array(n).fill(null);
    names = new Array(n);
    suffixes = new Array(n);
    fills = new Array(n);
    classes = new Array(n).fill("");
    strokes = new Array(n).fill(null);
    origLabel = new Array(n).fill("");
    curLabel = new Array(n).fill("");
    forms = new Array(n);
    ox = new Float64Array(n);
    ow = new Float64Array(n);
    oy = new Float64Array(n);
    count = new Float64Array(n);
    curX = new Float64Array(n);
    curW = new Float64Array(n);
    depth = new Int32Array(n);
    parent = new Int32Array(n);
    end = new Int32Array(n);
    prevSame = new Int32Array(n);
    nextSame = new Int32Array(n);
    state = new Uint8Array(n);
    matched = new Uint8Array(n);
    filled = new Uint8Array(n);
    written = new Uint8Array(n);

    const strings = data.strings;
    const countOf = new Map();  // suffix index -> count
    for (let i = 0; i < n; i++) {
      names[i] = strings[data.name[i]];
      const si = data.suffix[i];
      suffixes[i] = strings[si];
      let c = countOf.get(si);
      if (c === undefined) {
        const t = strings[si];
        c = t.startsWith(" (") ? parseFloat(t.slice(2).replace(/,/g, "")) : NaN;
        countOf.set(si, c);
      }
      count[i] = c;
      fills[i] = data.fills[data.fill[i]];
      ox[i] = curX[i] = data.x[i];
      ow[i] = curW[i] = data.w[i];
      oy[i] = data.y[i];
    }
    for (let k = 0; k + 1 < data.class.length; k += 2) classes[data.class[k]] = data.class[k + 1];
    for (let k = 0; k + 2 < data.stroke.length; k += 3) {
      strokes[data.stroke[k]] = [data.stroke[k + 1], String(data.stroke[k + 2])];
    }

    // The elements as written: the frames at least `lazy` px wide (all when lazy is 0), in order.
    // A #frames written empty (a graph made in a browser, FLAME_DOM.md): every element is
    // created from the data below, as a zoom creates them.
    let g = framesG.firstElementChild;
    const build = g === null;
    let textDyKnown = false;
    const toPaint = [];  // drawn at first, without an element (paintBelow > 0)
    for (let i = 0; i < n; i++) {
      if (build || (lazy > 0 && !(ow[i] >= written_min))) {
        if (!build && paintBelow > 0 && ow[i] >= lazy) {
          state[i] = PAINTED;
          toPaint.push(i);
        } else {
          state[i] = HIDDEN;
        }
        continue;
      }
      while (g && g.localName !== "g") g = g.nextElementSibling;
      if (!g) return;  // the elements do not match the data: leave the static picture alone
      els[i] = g;
      written[i] = 1;
      for (let c = g.firstElementChild; c; c = c.nextElementSibling) {
        if (c.localName === "rect") rects[i] = c;
        else if (c.localName === "text") texts[i] = c;
      }
      if (texts[i]) {
        origLabel[i] = curLabel[i] = texts[i].textContent;
        if (!textDyKnown) {
          const ty = parseFloat(texts[i].getAttribute("y"));
          if (isFinite(ty)) {
            textDy = ty - oy[i];
            textDyKnown = true;
          }
        }
      }
      g = g.nextElementSibling;
    }
    if (!textDyKnown) textDy = frameH / 2 + 3;

    // Depth from y; parent, subtree end and same-depth neighbours from the pre-order.
    let maxDepth = 0;
    for (let i = 0; i < n; i++) {
      const d = Math.round((inverted ? oy[i] - oy[0] : oy[0] - oy[i]) / frameHeight);
      depth[i] = d < 0 ? 0 : d;
      if (depth[i] > maxDepth) maxDepth = depth[i];
    }
    const stack = [];
    const last = new Int32Array(maxDepth + 1).fill(-1);
    for (let i = 0; i < n; i++) {
      while (stack.length && depth[stack[stack.length - 1]] >= depth[i]) end[stack.pop()] = i;
      parent[i] = stack.length ? stack[stack.length - 1] : -1;
      stack.push(i);
      const d = depth[i];
      prevSame[i] = last[d];
      nextSame[i] = -1;
      if (last[d] >= 0) nextSame[last[d]] = i;
      last[d] = i;
    }
    while (stack.length) end[stack.pop()] = n;
    // Counts feed the search percentage; fall back to widths if any title lacks one.
    for (let i = 0; i < n; i++) {
      if (!isFinite(count[i])) {
        for (let j = 0; j < n; j++) count[j] = ow[j];
        break;
      }
    }

    if (n > MANY_FRAMES) framesG.classList.add("many");
    if (paintBelow > 0) {
      painter = document.createElementNS(SVG_NS, "foreignObject");
      painter.setAttribute("x", "0");
      painter.setAttribute("y", "0");
      painter.setAttribute("width", String(svgWidth));
      painter.setAttribute("height", String(num(svg, "height", 0)));
      painter.setAttribute("style", "pointer-events:none");
      canvas = document.createElementNS("http://www.w3.org/1999/xhtml", "canvas");
      painter.appendChild(canvas);
      framesG.parentNode.insertBefore(painter, framesG);
      if (!build) paint(toPaint);
    }
    if (build) {
      // Out of the document while thousands of elements go in: one insertion, not one each.
      const home = framesG.parentNode, after = framesG.nextSibling;
      home.removeChild(framesG);
      applyZoom(0);
      home.insertBefore(framesG, after);
    }
    initThreads();
    initButtons();
    bindEvents();
    setTabStop(0);
    restoreFromUrl();
  }

  // Whether frame I is drawn now (it has an element, not hidden).
  function isShown(i) {
    return state[i] !== HIDDEN;
  }

  function initThreads() {
    const legend = document.getElementById("threads");
    if (!legend) return;
    // Depth-1 frames by x in tenths of a px (the precision written): one pass, not one per entry.
    const byTenth = new Map();
    for (let i = 1; i < n; i++) {
      if (depth[i] !== 1) continue;
      const key = Math.round(ox[i] * 10);
      const list = byTenth.get(key);
      if (list) list.push(i);
      else byTenth.set(key, [i]);
    }
    for (let c = legend.firstElementChild; c; c = c.nextElementSibling) {
      if (c.localName !== "g") continue;
      const x = parseFloat(c.getAttribute("data-x"));
      let frame = -1;
      // The first depth-1 frame within 0.05 px of x: its key is x's, or a neighbour's.
      for (const key of [Math.round(x * 10) - 1, Math.round(x * 10), Math.round(x * 10) + 1]) {
        for (const i of byTenth.get(key) || []) {
          if (Math.abs(ox[i] - x) < 0.05 && (frame < 0 || i < frame)) frame = i;
        }
      }
      threadEntries.push({ el: c, frame: frame });
    }
  }

  // ---- details line and keyboard focus ----

  function setDetails(s) {
    if (details) details.textContent = s || " ";
  }

  function frameDetails(i) {
    return nameType + " " + names[i] + suffixes[i];
  }

  function restingDetails() {
    setDetails(focused >= 0 ? frameDetails(focused) : " ");
  }

  // The keyboard focus on frame I (-1: none): its outline, the details line and, with MOVE,
  // the document's focus (a roving tabindex: only the focused frame's element, or the root's,
  // is in the tab order, so no frame costs an attribute at start-up).
  function setFocus(i, move) {
    if (focused !== i) {
      if (i >= 0 && !els[i]) materialize(i);
      if (focused >= 0 && els[focused]) els[focused].classList.remove("focus");
      focused = i;
      if (i >= 0) {
        els[i].classList.add("focus");
        setDetails(frameDetails(i));
      } else {
        setDetails(" ");
      }
    }
    if (i >= 0) {
      setTabStop(i);
      if (move && els[i].focus) els[i].focus();
    }
  }

  // Frame I's element takes the tab stop: tabindex 0, a button role (Enter zooms) and a name
  // that says the function, its samples and its share, as the title does.
  function setTabStop(i) {
    if (tabStop === i || !els[i]) return;
    if (tabStop >= 0 && els[tabStop]) els[tabStop].setAttribute("tabindex", "-1");
    tabStop = i;
    const g = els[i];
    g.setAttribute("tabindex", "0");
    if (!g.hasAttribute("role")) {
      g.setAttribute("role", "button");
      g.setAttribute("aria-label", accessibleName(i));
    }
  }

  // "NAME, 1,234 samples, 12.50%" (the title's parts; diff titles keep their change).
  function accessibleName(i) {
    const s = suffixes[i];
    const inner = s.startsWith(" (") && s.endsWith(")") ? s.slice(2, -1) : s;
    return names[i] + (inner ? ", " + inner.replace(/; /g, ", ") : "");
  }

  function hasDomFocus(el) {
    return !!(el && el.matches && el.matches(":focus"));
  }

  // ---- buttons ----

  // The writer's text buttons (Reset Zoom, Search, ic) take the keyboard focus and a button
  // role; "Table" and "Colour-blind" are added on their row, right of Reset Zoom (left of the
  // centred title, which leaves room there down to --width 600; no palette toggle in
  // differential graphs, whose colours are the change).
  function initButtons() {
    for (const b of [unzoomBtn, searchBtn, icBtn]) {
      if (!b) continue;
      b.setAttribute("tabindex", "0");
      b.setAttribute("role", "button");
    }
    pressed(icBtn, false);
    const anchor = unzoomBtn || searchBtn;
    if (!anchor) return;
    const x = num(anchor, "x", NaN), y = num(anchor, "y", NaN);
    if (!isFinite(x) || !isFinite(y)) return;
    const make = function (id, label, dx, title) {
      const t = document.createElementNS(SVG_NS, "text");
      t.setAttribute("id", id);
      t.setAttribute("x", String(round(x + dx)));
      t.setAttribute("y", String(y));
      t.setAttribute("tabindex", "0");
      t.setAttribute("role", "button");
      t.setAttribute("aria-label", title);
      t.textContent = label;
      const tip = document.createElementNS(SVG_NS, "title");
      tip.textContent = title;
      t.insertBefore(tip, t.firstChild);
      anchor.parentNode.insertBefore(t, anchor.nextSibling);
      pressed(t, false);
      return t;
    };
    const w = charWidth + 1;
    if (!svg.hasAttribute("data-diff")) {
      paletteBtn = make("palette", "Colour-blind", 17 * w, "Colour-blind-safe palette");
      paletteBtn.hearthFills = SAFE_FILLS.slice();  // for tests (tests/browser/a11y.lib.mjs)
      paletteBtn.hearthSearchFill = SAFE_SEARCH_FILL;
    }
    tableBtn = make("tablebtn", "Table", 11 * w, "Table of functions (self and total samples)");
  }

  function pressed(el, on) {
    if (!el) return;
    el.setAttribute("aria-pressed", on ? "true" : "false");
    if (on) el.classList.add("show");
    else el.classList.remove("show");
  }

  // Click, Enter and Space run FN.
  function button(el, fn) {
    if (!el) return;
    el.addEventListener("click", fn);
    el.addEventListener("keydown", function (e) {
      if (e.key !== "Enter" && e.key !== " ") return;
      e.preventDefault();
      fn();
    });
  }

  // ---- table of functions ----

  // One row per function name of the zoomed frame Z's subtree (Z included, but not the root
  // `all`): self samples (its frames' counts less their children's), total samples (its frames'
  // counts, a frame nested in a frame of the same name counted once: recursion does not count
  // twice), both as % of the root's count.
  function functionRows(z) {
    const rows = new Map();
    const active = new Map();  // name -> open frames of that name on the current path
    const open = [];
    for (let i = z > 0 ? z : 1; i < end[z]; i++) {
      while (open.length && end[open[open.length - 1]] <= i) {
        const nm = names[open.pop()];
        active.set(nm, active.get(nm) - 1);
      }
      const nm = names[i];
      let r = rows.get(nm);
      if (!r) rows.set(nm, r = { name: nm, self: 0, total: 0 });
      let kids = 0;
      for (let c = i + 1; c < end[i]; c = end[c]) kids += count[c];
      r.self += count[i] - kids;
      const a = active.get(nm) || 0;
      if (a === 0) r.total += count[i];
      active.set(nm, a + 1);
      open.push(i);
    }
    return Array.from(rows.values());
  }

  const COLUMNS = [
    { key: "name", label: "Function" },
    { key: "self", label: "Self" },
    { key: "selfPct", label: "Self %" },
    { key: "total", label: "Total" },
    { key: "totalPct", label: "Total %" },
  ];

  // Shows (ON) or hides the table of the zoomed frame's functions in place of the graph: an SVG table with ARIA roles (table,
  // row, columnheader, cell), so a screen reader reads it in a standalone SVG from file:// and
  // in the report's <object> alike. The header cells sort (click, Enter, Space); a search narrows
  // the rows to the matching functions. The SVG grows to hold the rows and shrinks back.
  function showTable(on) {
    if (!!table === on) return;
    const hideEls = [framesG, document.getElementById("threads"), painter];
    if (on) {
      const g = document.createElementNS(SVG_NS, "g");
      g.setAttribute("id", "table");
      g.setAttribute("role", "table");
      table = { g: g, sort: "total", desc: true, rows: functionRows(zoomed), height: num(svg, "height", 0),
                viewBox: svg.getAttribute("viewBox"), bgH: null };
      for (const e of hideEls) if (e) e.classList.add("hide");
      framesG.parentNode.insertBefore(g, framesG);
      fillTable();
    } else {
      const hadFocus = !!table.g.querySelector(":focus");
      table.g.parentNode.removeChild(table.g);
      for (const e of hideEls) if (e) e.classList.remove("hide");
      resize(table.height, table);
      table = null;
      if (hadFocus && tableBtn.focus) tableBtn.focus();  // not lost with the removed header
    }
    pressed(tableBtn, on);
    updateUrl();
  }

  function resize(h, t) {
    svg.setAttribute("height", String(h));
    const vb = (t.viewBox || "").trim().split(/[\s,]+/);
    if (vb.length === 4) svg.setAttribute("viewBox", vb[0] + " " + vb[1] + " " + vb[2] + " " + h);
    const bg = document.getElementById("bg");
    if (bg) bg.setAttribute("height", String(h));
    const shift = h - t.height;
    for (const id of ["details", "matched"]) {
      const e = document.getElementById(id);
      if (!e) continue;
      if (shift) e.setAttribute("transform", "translate(0," + shift + ")");
      else e.removeAttribute("transform");
    }
  }

  // (Re)draws the table's rows in its sort order, narrowed by the search.
  function fillTable() {
    const t = table;
    const g = t.g;
    while (g.firstChild) g.removeChild(g.firstChild);
    const total = count[0] > 0 ? count[0] : 1;
    let rows = t.rows;
    if (searchRe) rows = rows.filter(function (r) { return searchRe.test(r.name); });
    const key = t.sort === "selfPct" ? "self" : t.sort === "totalPct" ? "total" : t.sort;
    const sign = t.desc ? -1 : 1;
    rows = rows.slice().sort(function (a, b) {
      const va = a[key], vb = b[key];
      if (va < vb) return -sign;
      if (va > vb) return sign;
      return a.name < b.name ? -1 : a.name > b.name ? 1 : 0;
    });
    const shown = Math.min(rows.length, TABLE_ROWS);
    const rowH = frameH + 3;
    const top = firstRowY();
    // Right edges of the number columns (their text is end-anchored), room for a bold header.
    const right = xpad + fullWidth;
    const numW = 15 * (charWidth + 1);
    const colEnd = [0, right - 3 * numW, right - 2 * numW, right - numW, right];
    g.setAttribute("aria-rowcount", String(shown + 1));
    let clip = document.getElementById("table-clip");
    if (!clip) {
      clip = document.createElementNS(SVG_NS, "clipPath");
      clip.setAttribute("id", "table-clip");
      const r = document.createElementNS(SVG_NS, "rect");
      clip.appendChild(r);
      g.parentNode.insertBefore(clip, g);
    }
    const cr = clip.firstElementChild;
    cr.setAttribute("x", String(xpad));
    cr.setAttribute("y", "0");
    cr.setAttribute("width", String(round(right - 4 * numW - xpad - 12)));
    cr.setAttribute("height", "100000");
    const cell = function (row, role, text, col, y) {
      const e = document.createElementNS(SVG_NS, "text");
      e.setAttribute("role", role);
      e.setAttribute("y", String(round(y)));
      if (col === 0) {
        e.setAttribute("x", String(xpad));
        e.setAttribute("clip-path", "url(#table-clip)");
      } else {
        e.setAttribute("x", String(round(colEnd[col])));
        e.setAttribute("text-anchor", "end");
      }
      e.textContent = text;
      row.appendChild(e);
      return e;
    };
    const head = document.createElementNS(SVG_NS, "g");
    head.setAttribute("role", "row");
    head.setAttribute("class", "head");
    COLUMNS.forEach(function (c, k) {
      const label = c.label + (k > 0 && c.key.indexOf("Pct") < 0 ? " " + countName() : "");
      const h = cell(head, "columnheader", label, k, top);
      h.setAttribute("tabindex", "0");
      h.setAttribute("aria-sort", t.sort === c.key ? (t.desc ? "descending" : "ascending") : "none");
      button(h, function () {
        if (t.sort === c.key) t.desc = !t.desc;
        else {
          t.sort = c.key;
          t.desc = c.key !== "name";
        }
        fillTable();
        const again = g.querySelectorAll("[role=columnheader]")[k];
        if (again && again.focus) again.focus();
      });
    });
    g.appendChild(head);
    for (let k = 0; k < shown; k++) {
      const r = rows[k];
      const row = document.createElementNS(SVG_NS, "g");
      row.setAttribute("role", "row");
      const y = top + (k + 1) * rowH;
      cell(row, "cell", r.name, 0, y);
      cell(row, "cell", fmt(r.self), 1, y);
      cell(row, "cell", pct(r.self, total), 2, y);
      cell(row, "cell", fmt(r.total), 3, y);
      cell(row, "cell", pct(r.total, total), 4, y);
      g.appendChild(row);
    }
    let y = top + (shown + 1) * rowH;
    const note = document.createElementNS(SVG_NS, "text");
    note.setAttribute("x", String(xpad));
    note.setAttribute("y", String(round(y)));
    note.setAttribute("class", "note");
    note.textContent = rows.length + " of " + t.rows.length + " functions" +
      (zoomed > 0 ? " under the zoomed frame " + names[zoomed] : "") +
      (searchRe ? " (matching the search)" : "") +
      (shown < rows.length ? "; the first " + shown + " shown: search to narrow" : "") +
      ". Escape returns to the graph.";
    g.appendChild(note);
    y += 2 * rowH;
    resize(Math.max(t.height, Math.ceil(y)), t);
  }

  function firstRowY() {
    const title = document.getElementById("title");
    const ty = title ? num(title, "y", 24) : 24;
    return ty + 2 * (frameH + 3);
  }

  function countName() {
    return svg.getAttribute("data-countname") || "samples";
  }

  function fmt(v) {
    return Math.round(v).toString().replace(/\B(?=(\d{3})+(?!\d))/g, ",");
  }

  function pct(v, total) {
    return (100 * v / total).toFixed(2) + "%";
  }

  // ---- zoom ----

  // Creates frame I's element, <g><title/><rect/></g> as the SVG writes it, before BEFORE (the
  // element of the next frame in pre-order that has one, or null), so #frames stays in
  // pre-order. Geometry and label are set by place().
  function create(i, before) {
    const g = document.createElementNS(SVG_NS, "g");
    if (classes[i]) g.setAttribute("class", classes[i]);
    g.setAttribute("data-i", String(i));
    const title = document.createElementNS(SVG_NS, "title");
    title.textContent = names[i] + suffixes[i];
    g.appendChild(title);
    const rect = document.createElementNS(SVG_NS, "rect");
    rect.setAttribute("x", String(curX[i]));
    rect.setAttribute("y", String(oy[i]));
    rect.setAttribute("width", String(curW[i]));
    rect.setAttribute("height", String(frameH));
    rect.setAttribute("fill", fillOf(i));
    filled[i] = matched[i];
    if (strokes[i]) {
      rect.setAttribute("stroke", strokes[i][0]);
      rect.setAttribute("stroke-width", strokes[i][1]);
    }
    g.appendChild(rect);
    framesG.insertBefore(g, before);
    els[i] = g;
    rects[i] = rect;
    if (frameIndex) frameIndex.set(g, i);
  }

  // Writes frame I's geometry and label if they changed. ORIGINAL: back to the written label.
  function place(i, x, w, original) {
    const rect = rects[i];
    if (!rect) return;
    let text = texts[i];
    if (x !== curX[i]) {
      rect.setAttribute("x", String(x));
      if (text) text.setAttribute("x", String(round(x + 3)));
      curX[i] = x;
    }
    if (w !== curW[i]) {
      rect.setAttribute("width", String(w));
      curW[i] = w;
    }
    const label = original && written[i] ? origLabel[i] : labelFor(i, w);
    if (label !== curLabel[i]) {
      if (!text) {
        text = document.createElementNS(SVG_NS, "text");
        text.setAttribute("x", String(round(x + 3)));
        text.setAttribute("y", String(round(oy[i] + textDy)));
        els[i].appendChild(text);
        texts[i] = text;
      }
      text.textContent = label;
      curLabel[i] = label;
    }
  }

  function zoomTo(z) {
    if (!(z > 0 && z < n)) z = 0;
    applyZoom(z);
    if (unzoomBtn) {
      if (z > 0) unzoomBtn.classList.remove("hide");
      else unzoomBtn.classList.add("hide");
    }
    let thread = z;
    while (thread > 0 && depth[thread] > 1) thread = parent[thread];
    for (const e of threadEntries) {
      if (z > 0 && e.frame === thread) e.el.classList.add("active");
      else e.el.classList.remove("active");
    }
    if (focused >= 0 && !isShown(focused)) setFocus(z, hasDomFocus(els[focused]));
    if (tabStop >= 0 && !isShown(tabStop)) setTabStop(z);
    updateUrl();
  }

  // The subtree [z, end[z]) is rescaled to the full width, ancestors are dimmed at full width,
  // every other frame is hidden. In the subtree, a frame is drawn when it is at least `lazy` px
  // wide at the new scale or matches the search; an element is created for a frame drawn for
  // the first time. Also called after a search, to draw matches that had no element.
  function applyZoom(z) {
    zoomed = z;
    if (!isAncestor) isAncestor = new Uint8Array(n);
    const zEnd = end[z];
    for (let a = parent[z]; a >= 0; a = parent[a]) isAncestor[a] = 1;
    const zx = ox[z];
    const scale = z === 0 ? 1 : fullWidth / ow[z];
    const fullX = round(xpad);
    const fullW = round(fullWidth);
    let next = null;  // the element of the nearest frame after i that has one
    const paintList = [];
    for (let i = n - 1; i >= 0; i--) {
      let st;
      let x = 0, w = 0;
      if (i >= z && i < zEnd) {
        if (z === 0) {
          x = ox[i];
          w = ow[i];
        } else {
          x = round(xpad + (ox[i] - zx) * scale);
          w = round(ow[i] * scale);
        }
        st = lazy === 0 || w >= lazy || matched[i] ? SHOWN : HIDDEN;
        if (st === SHOWN && w < paintBelow && !els[i] && !matched[i]) st = PAINTED;
      } else if (isAncestor[i]) {
        st = PARENT;
        x = fullX;
        w = fullW;
      } else {
        st = HIDDEN;
      }
      if (st === PAINTED || (st === HIDDEN && !els[i])) {
        state[i] = st;
        curX[i] = x;
        curW[i] = w;
        if (st === PAINTED) paintList.push(i);
        continue;
      }
      if (st !== HIDDEN && !els[i]) {
        curX[i] = x;
        curW[i] = w;
        create(i, next);
        state[i] = SHOWN;  // no class yet: "parent" is added below
      }
      if (!els[i]) continue;
      next = els[i];
      const old = state[i];
      if (st !== old) {
        const cl = els[i].classList;
        if (old === HIDDEN) cl.remove("hide");
        else if (old === PARENT) cl.remove("parent");
        if (st === HIDDEN) cl.add("hide");
        else if (st === PARENT) cl.add("parent");
        state[i] = st;
      }
      if (st !== HIDDEN) place(i, x, w, z === 0);
    }
    for (let a = parent[z]; a >= 0; a = parent[a]) isAncestor[a] = 0;
    if (canvas) paint(paintList.reverse());
  }

  // Paints frames LIST (indices, in pre-order) on the canvas, in place of what it showed: their
  // rects, as the elements would draw them (fill, stroke; square corners: graphs this big are
  // "many"). For tests: the painter's `hearthPainted` holds the frames and the x and width used.
  function paint(list) {
    const ratio = window.devicePixelRatio || 1;
    const w = Math.ceil(svgPx(painter, "width")), h = Math.ceil(svgPx(painter, "height"));
    if (canvas.width !== Math.round(w * ratio) || canvas.height !== Math.round(h * ratio)) {
      canvas.width = Math.round(w * ratio);
      canvas.height = Math.round(h * ratio);
      canvas.setAttribute("style", "display:block;width:" + w + "px;height:" + h + "px");
    }
    const ctx = canvas.getContext("2d");
    ctx.setTransform(ratio, 0, 0, ratio, 0, 0);
    ctx.clearRect(0, 0, w, h);
    const xs = new Float64Array(list.length), ws = new Float64Array(list.length);
    let fill = "";
    for (let k = 0; k < list.length; k++) {
      const i = list[k];
      xs[k] = curX[i];
      ws[k] = curW[i];
      const f = fillOf(i);
      if (f !== fill) ctx.fillStyle = fill = f;
      ctx.fillRect(curX[i], oy[i], curW[i], frameH);
      if (strokes[i]) {
        ctx.strokeStyle = strokes[i][0];
        ctx.lineWidth = parseFloat(strokes[i][1]);
        ctx.strokeRect(curX[i], oy[i], curW[i], frameH);
      }
    }
    painter.hearthPainted = { frames: Int32Array.from(list), x: xs, w: ws };
  }

  function svgPx(el, name) {
    const v = parseFloat(el.getAttribute(name));
    return isFinite(v) ? v : 0;
  }

  // Gives painted frame I its element (at its place in pre-order), as a zoom would.
  function materialize(i) {
    let j = i + 1;
    while (j < n && !els[j]) j++;
    create(i, j < n ? els[j] : null);
    state[i] = SHOWN;
    place(i, curX[i], curW[i], false);
  }

  // The painted frame under a mouse event, or -1.
  function paintedAt(e) {
    if (!canvas || !svg.getScreenCTM) return -1;
    const m = svg.getScreenCTM();
    if (!m) return -1;
    const pt = svg.createSVGPoint();
    pt.x = e.clientX;
    pt.y = e.clientY;
    const p = pt.matrixTransform(m.inverse());
    for (let i = zoomed; i < end[zoomed]; i++) {
      if (state[i] === PAINTED && p.y >= oy[i] && p.y < oy[i] + frameH && p.x >= curX[i] && p.x < curX[i] + curW[i]) return i;
    }
    return -1;
  }

  // ---- search ----

  // Gives every element the fill its match state asks for; ALL: every element (a new palette).
  function paintMatches(all) {
    for (let i = 0; i < n; i++) {
      if (!rects[i] || (filled[i] === matched[i] && !all)) continue;
      rects[i].setAttribute("fill", fillOf(i));
      filled[i] = matched[i];
    }
  }

  // Frame I's fill: the search's, the safe palette's or the written one.
  function fillOf(i) {
    if (matched[i]) return safePalette ? SAFE_SEARCH_FILL : SEARCH_FILL;
    if (!safePalette) return fills[i];
    if (!safeIndex) {
      safeIndex = new Uint8Array(n);
      const byName = new Map();
      for (let j = 0; j < n; j++) {
        let k = byName.get(names[j]);
        if (k === undefined) {
          k = nameHash(names[j]) % SAFE_FILLS.length;
          byName.set(names[j], k);
        }
        safeIndex[j] = k;
      }
    }
    return SAFE_FILLS[safeIndex[i]];
  }

  // FNV-1a over the UTF-16 code units: a name's colour is the same in every graph.
  function nameHash(s) {
    let h = 0x811c9dc5;
    for (let k = 0; k < s.length; k++) {
      h ^= s.charCodeAt(k);
      h = Math.imul(h, 0x01000193) >>> 0;
    }
    return h;
  }

  function setPalette(safe) {
    if (safe === safePalette) return;
    safePalette = safe;
    pressed(paletteBtn, safe);
    paintMatches(true);
    if (canvas) applyZoom(zoomed);  // repaints the painted frames
    // The thread legend's swatches follow their threads' frames.
    for (const e of threadEntries) {
      const r = e.frame >= 0 ? e.el.querySelector("rect") : null;
      if (!r) continue;
      if (e.fill === undefined) e.fill = r.getAttribute("fill");
      r.setAttribute("fill", safe ? SAFE_FILLS[safeIndex[e.frame]] : e.fill);
    }
    updateUrl();
  }

  function search(term) {
    searchTerm = term || "";
    let re = null;
    if (searchTerm) {
      try {
        re = new RegExp(searchTerm, ignoreCase ? "i" : "");
      } catch (e) {
        re = null;
      }
    }
    searchRe = re;
    let sum = 0;
    let coveredUntil = 0;  // matches nested in an earlier match's subtree count once
    let changed = false;
    for (let i = 0; i < n; i++) {
      const m = re && re.test(names[i]) ? 1 : 0;
      if (m !== matched[i]) {
        matched[i] = m;
        changed = true;
      }
      if (m && i >= coveredUntil) {
        sum += count[i];
        coveredUntil = end[i];
      }
    }
    // Matches narrower than `lazy` px are drawn too, and stop being drawn when they no longer
    // match.
    if (changed && lazy > 0) {
      applyZoom(zoomed);
      if (focused >= 0 && !isShown(focused)) setFocus(zoomed, hasDomFocus(els[focused]));
    }
    paintMatches();
    if (searchBtn) {
      searchBtn.textContent = searchTerm ? "Reset Search" : "Search";
      if (searchTerm) searchBtn.classList.add("show");
      else searchBtn.classList.remove("show");
    }
    if (matchedEl) {
      let s = " ";
      if (searchTerm && !re) s = "Invalid regular expression";
      else if (re) s = "Matched: " + (count[0] > 0 ? (100 * sum / count[0]) : 0).toFixed(1) + "%";
      matchedEl.textContent = s;
      if (re) matchedEl.classList.add("show");
      else matchedEl.classList.remove("show");
    }
    if (table) fillTable();
    updateUrl();
  }

  function promptSearch() {
    const term = window.prompt(
      "Search for a regular expression" + (ignoreCase ? " (ignoring case)" : "") +
      ", e.g. ^ext4_", searchTerm);
    if (term !== null) search(term);
  }

  function setIgnoreCase(on) {
    ignoreCase = on;
    if (icBtn) {
      if (on) icBtn.classList.add("show");
      else icBtn.classList.remove("show");
    }
    pressed(icBtn, on);
  }

  // ---- URL state: ?x=&y= (zoomed frame's written x and y), s= (search), i=1 (ignore case),
  // p=safe (the colour-blind-safe palette), t=1 (the table of functions) ----

  let restoring = false;

  function updateUrl() {
    if (restoring || !window.history || !window.URLSearchParams) return;
    try {
      const p = new URLSearchParams(window.location.search);
      for (const k of ["x", "y", "s", "i", "p", "t"]) p.delete(k);
      if (zoomed > 0) {
        p.set("x", String(ox[zoomed]));  // as written: the data's numbers
        p.set("y", String(oy[zoomed]));
      }
      if (searchTerm) p.set("s", searchTerm);
      if (ignoreCase) p.set("i", "1");
      if (safePalette) p.set("p", "safe");
      if (table) p.set("t", "1");
      const q = p.toString();
      const url = window.location.pathname + (q ? "?" + q : "") + window.location.hash;
      window.history.replaceState(window.history.state, "", url);
    } catch (e) {
      // Some embeddings (e.g. sandboxed frames) refuse to rewrite the URL; state stays local.
    }
  }

  function restoreFromUrl() {
    if (!window.URLSearchParams) return;
    const p = new URLSearchParams(window.location.search);
    restoring = true;
    try {
      if (p.get("i") === "1") setIgnoreCase(true);
      const x = parseFloat(p.get("x"));
      const y = parseFloat(p.get("y"));
      if (isFinite(x) && isFinite(y)) {
        for (let i = 1; i < n; i++) {
          if (Math.abs(ox[i] - x) < 0.05 && Math.abs(oy[i] - y) < 0.05) {
            zoomTo(i);
            break;
          }
        }
      }
      const s = p.get("s");
      if (s) search(s);
      if (p.get("p") === "safe" && paletteBtn) setPalette(true);
      if (p.get("t") === "1" && tableBtn) showTable(true);
    } finally {
      restoring = false;
    }
  }

  // ---- events ----

  function frameOf(node) {
    if (!frameIndex) {
      frameIndex = new Map();
      for (let i = 0; i < n; i++) if (els[i]) frameIndex.set(els[i], i);
    }
    for (; node && node !== framesG; node = node.parentNode) {
      const i = frameIndex.get(node);
      if (i !== undefined) return i;
    }
    return -1;
  }

  function threadOf(node) {
    for (const e of threadEntries) {
      if (e.el === node || e.el.contains(node)) return e;
    }
    return null;
  }

  // Escape undoes one thing, the latest kind first: the table, the zoom, the search, the focus.
  function escape() {
    if (table) {
      showTable(false);
    } else if (zoomed > 0) {
      zoomTo(0);
    } else if (searchTerm) {
      search("");
    } else {
      setFocus(-1);
    }
  }

  // Arrows move as the picture reads: towards the root is down in a flame graph and up in an
  // icicle (--inverted); left and right go to the nearest drawn frame on the same row (the
  // sibling, else the cousin). Frames not drawn (outside the zoom, narrower than `lazy` px and
  // not matched, FLAME_DOM.md) are skipped: the keys reach what the eye sees.
  function moveFocus(key) {
    const f = focused;
    if (f < 0 || !isShown(f)) {
      setFocus(zoomed, true);
      return;
    }
    let t = -1;
    const toParent = inverted ? "ArrowUp" : "ArrowDown";
    if (key === "Home") {
      t = zoomed;
    } else if (key === toParent) {
      t = parent[f];
    } else if (key === "ArrowUp" || key === "ArrowDown") {
      for (let c = f + 1; c < end[f]; c = end[c]) {
        if (isShown(c)) {
          t = c;
          break;
        }
      }
    } else if (key === "ArrowRight") {
      for (t = nextSame[f]; t >= 0 && !isShown(t); t = nextSame[t]);
    } else if (key === "ArrowLeft") {
      for (t = prevSame[f]; t >= 0 && !isShown(t); t = prevSame[t]);
    }
    if (t >= 0) setFocus(t, true);
  }

  function bindEvents() {
    framesG.addEventListener("click", function (e) {
      const i = frameOf(e.target);
      if (i < 0) return;
      zoomTo(i);
      setDetails(frameDetails(i));
    });
    framesG.addEventListener("mouseover", function (e) {
      const i = frameOf(e.target);
      if (i >= 0) setDetails(frameDetails(i));
    });
    framesG.addEventListener("mouseout", restingDetails);
    // Tab into the graph: the frame with the tab stop takes the keyboard focus.
    framesG.addEventListener("focusin", function (e) {
      const i = frameOf(e.target);
      if (i >= 0 && i !== focused) setFocus(i, false);
    });
    if (canvas) {
      // Over a painted frame: its element, made now, takes the hover (title, outline), the click.
      svg.addEventListener("mousemove", function (e) {
        if (frameOf(e.target) >= 0) return;
        const i = paintedAt(e);
        if (i < 0) return;
        materialize(i);
        setDetails(frameDetails(i));
      });
      svg.addEventListener("click", function (e) {
        if (frameOf(e.target) >= 0) return;
        const i = paintedAt(e);
        if (i < 0) return;
        materialize(i);
        zoomTo(i);
        setDetails(frameDetails(i));
      });
    }

    button(unzoomBtn, function () { zoomTo(0); });
    button(searchBtn, function () {
      if (searchTerm) search("");
      else promptSearch();
    });
    button(icBtn, function () {
      setIgnoreCase(!ignoreCase);
      if (searchTerm) search(searchTerm);
      else updateUrl();
    });
    button(tableBtn, function () { showTable(!table); });
    button(paletteBtn, function () { setPalette(!safePalette); });

    const legend = document.getElementById("threads");
    if (legend) {
      legend.addEventListener("click", function (e) {
        const t = threadOf(e.target);
        if (t && t.frame > 0) zoomTo(t.frame);
      });
      legend.addEventListener("mouseover", function (e) {
        const t = threadOf(e.target);
        if (!t) return;
        const title = t.el.querySelector("title");
        setDetails("Thread: " + (title ? title.textContent : ""));
      });
      legend.addEventListener("mouseout", restingDetails);
    }

    window.addEventListener("keydown", function (e) {
      if (e.defaultPrevented) return;
      const key = e.key;
      if (((e.ctrlKey || e.metaKey) && (key === "f" || key === "F")) || key === "F3" ||
          (key === "/" && !e.ctrlKey && !e.metaKey && !e.altKey)) {
        e.preventDefault();
        promptSearch();
        return;
      }
      if (e.ctrlKey || e.metaKey || e.altKey) return;
      if (key === "Escape" || key === "Esc") {
        escape();
      } else if (table) {
        return;  // the table's own keys: Tab, Enter and Space on its column headers
      } else if (key === "Enter") {
        if (focused >= 0) {
          e.preventDefault();
          zoomTo(focused);
          if (els[focused] && els[focused].focus) els[focused].focus();
        }
      } else if (key === "ArrowUp" || key === "ArrowDown" || key === "ArrowLeft" ||
                 key === "ArrowRight" || key === "Home") {
        e.preventDefault();
        moveFocus(key);
      }
    });
  }

  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", init);
  else init();
})();

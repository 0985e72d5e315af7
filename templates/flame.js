// hearth flamegraph script: hover details, click to zoom, regex search, URL state, thread
// legend, keyboard navigation. Embedded in every flamegraph SVG inside a CDATA section, so it
// must never contain the CDATA terminator. It relies on templates/FLAME_DOM.md and on nothing
// else; the SVG is a complete picture without it.
//
// Performance contract: everything per frame is read once at start-up into typed arrays; a
// zoom or a search only writes the DOM (never reads layout, never measures text) and only
// where a value actually changes. At start-up the frames (in pre-order) are regrouped into
// blocks of BLOCK consecutive frames, `#frames > g.blk > g` (nothing drawn changes): a zoom
// hides each block that holds neither the zoomed subtree (one contiguous run) nor one of its
// ancestors with a single class change, and only the few blocks at the edges are handled frame
// by frame. With 25,000 frames that roughly halves what a zoom costs the browser.
(function () {
  "use strict";

  const SVG_NS = "http://www.w3.org/2000/svg";
  const SEARCH_FILL = "rgb(230,0,230)";
  const SURROGATE = /[\uD800-\uDFFF]/;

  const BLOCK = 64;
  // Rounded corners make every rect a path for the browser: with more frames than this the
  // script turns them off (class "many" on #frames) to keep a zoom fast.
  const MANY_FRAMES = 3000;

  // State values per frame, mirroring the frame's own class in the DOM.
  const SHOWN = 0;
  const HIDDEN = 1;   // class "hide"
  const PARENT = 2;   // class "parent": an ancestor of the zoomed frame, dimmed, full width

  let svg, framesG, details, unzoomBtn, searchBtn, icBtn, matchedEl;
  let xpad, fullWidth, charWidth, nameType;
  let n = 0;
  let els, rects, texts;              // per frame: <g>, <rect>, <text> or null
  let names, titles, xAttr, yAttr;    // per frame: strings
  let ox, ow, oy, count;              // per frame: original geometry (px) and sample count
  let depth, parent, end, prevSame, nextSame;  // tree, in pre-order; end = one past subtree
  let origLabel, curLabel, forms;     // label text as written / as shown; shortened names
  let curX, curW, state;              // what the DOM shows now
  let blocks = [], blockShown, blockWant;  // per block: <g class="blk">, shown now, wanted
  let origFill, matched;              // search highlight
  let textDy = 12;                    // label baseline below the rect's top, px
  let zoomed = 0;                     // index of the zoomed frame; 0 = not zoomed
  let focused = -1;                   // keyboard focus
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

  // Replaces each outermost OPEN…CLOSE group: empty -> OPEN CLOSE, else OPEN … CLOSE (or kept
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
    if (!framesG) return;
    details = document.getElementById("details");
    unzoomBtn = document.getElementById("unzoom");
    searchBtn = document.getElementById("search");
    icBtn = document.getElementById("ignorecase");
    matchedEl = document.getElementById("matched");

    xpad = num(svg, "data-xpad", 10);
    const fontSize = num(svg, "data-fontsize", 12);
    charWidth = fontSize * num(svg, "data-fontwidth", 0.59);
    const frameHeight = num(svg, "data-frameheight", 16);
    const inverted = svg.getAttribute("data-inverted") === "1";
    nameType = svg.getAttribute("data-nametype") || "Function:";
    let svgWidth = num(svg, "width", NaN);
    const vb = (svg.getAttribute("viewBox") || "").trim().split(/[\s,]+/);
    if (vb.length === 4 && isFinite(parseFloat(vb[2]))) svgWidth = parseFloat(vb[2]);
    if (!isFinite(svgWidth)) svgWidth = 1200;
    fullWidth = svgWidth - 2 * xpad;

    els = [];
    for (let c = framesG.firstElementChild; c; c = c.nextElementSibling) {
      if (c.localName === "g") els.push(c);
    }
    n = els.length;
    if (n === 0) return;
    rects = new Array(n);
    texts = new Array(n);
    names = new Array(n);
    titles = new Array(n);
    xAttr = new Array(n);
    yAttr = new Array(n);
    origLabel = new Array(n);
    curLabel = new Array(n);
    forms = new Array(n);
    origFill = new Array(n);
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

    let textDyKnown = false;
    for (let i = 0; i < n; i++) {
      const g = els[i];
      let title = null, rect = null, text = null;
      for (let c = g.firstElementChild; c; c = c.nextElementSibling) {
        const tag = c.localName;
        if (tag === "title") title = c;
        else if (tag === "rect") rect = c;
        else if (tag === "text") text = c;
      }
      const t = title ? title.textContent : "";
      const open = t.lastIndexOf(" (");
      titles[i] = t;
      names[i] = open >= 0 ? t.slice(0, open) : t;
      count[i] = open >= 0 ? parseFloat(t.slice(open + 2).replace(/,/g, "")) : NaN;
      rects[i] = rect;
      texts[i] = text;
      xAttr[i] = rect ? rect.getAttribute("x") : "0";
      yAttr[i] = rect ? rect.getAttribute("y") : "0";
      ox[i] = curX[i] = round(parseFloat(xAttr[i]) || 0);
      ow[i] = curW[i] = round(rect ? num(rect, "width", 0) : 0);
      oy[i] = parseFloat(yAttr[i]) || 0;
      origLabel[i] = curLabel[i] = text ? text.textContent : "";
      if (text && !textDyKnown) {
        const ty = parseFloat(text.getAttribute("y"));
        if (isFinite(ty)) {
          textDy = ty - oy[i];
          textDyKnown = true;
        }
      }
    }
    if (!textDyKnown) textDy = frameHeight * 0.66;

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

    makeBlocks();
    if (n > MANY_FRAMES) framesG.classList.add("many");
    initThreads();
    bindEvents();
    restoreFromUrl();
  }

  // Before the first render, so moving the frames costs no extra style or layout work.
  function makeBlocks() {
    const nb = Math.ceil(n / BLOCK);
    blockShown = new Uint8Array(nb).fill(1);
    blockWant = new Uint8Array(nb);
    for (let b = 0; b < nb; b++) {
      const blk = document.createElementNS(SVG_NS, "g");
      blk.setAttribute("class", "blk");
      framesG.insertBefore(blk, els[b * BLOCK]);
      const last = Math.min(n, (b + 1) * BLOCK);
      for (let i = b * BLOCK; i < last; i++) blk.appendChild(els[i]);
      blocks.push(blk);
    }
  }

  function isHidden(i) {
    return state[i] === HIDDEN || !blockShown[(i / BLOCK) | 0];
  }

  function initThreads() {
    const legend = document.getElementById("threads");
    if (!legend) return;
    for (let c = legend.firstElementChild; c; c = c.nextElementSibling) {
      if (c.localName !== "g") continue;
      const x = parseFloat(c.getAttribute("data-x"));
      let frame = -1;
      for (let i = 1; i < n; i++) {
        if (depth[i] === 1 && Math.abs(ox[i] - x) < 0.05) {
          frame = i;
          break;
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
    return nameType + " " + titles[i];
  }

  function restingDetails() {
    setDetails(focused >= 0 ? frameDetails(focused) : " ");
  }

  function setFocus(i) {
    if (focused === i) return;
    if (focused >= 0) els[focused].classList.remove("focus");
    focused = i;
    if (i >= 0) {
      els[i].classList.add("focus");
      setDetails(frameDetails(i));
    } else {
      setDetails(" ");
    }
  }

  // ---- zoom ----

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
    const label = original ? origLabel[i] : labelFor(i, w);
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
    if (focused >= 0 && isHidden(focused)) setFocus(z);
    updateUrl();
  }

  // The subtree [z, end[z]) is rescaled to the full width, ancestors are dimmed at full width,
  // every other frame is hidden: by its block when the whole block goes, else by its own class.
  // Frames in hidden blocks are not touched; their state is brought up to date when their
  // block is shown again.
  function applyZoom(z) {
    zoomed = z;
    if (!isAncestor) isAncestor = new Uint8Array(n);
    const zEnd = end[z];
    blockWant.fill(0);
    for (let b = (z / BLOCK) | 0; b <= ((zEnd - 1) / BLOCK | 0); b++) blockWant[b] = 1;
    for (let a = parent[z]; a >= 0; a = parent[a]) {
      isAncestor[a] = 1;
      blockWant[(a / BLOCK) | 0] = 1;
    }
    for (let b = 0; b < blocks.length; b++) {
      if (blockWant[b] === blockShown[b]) continue;
      if (blockWant[b]) blocks[b].classList.remove("hide");
      else blocks[b].classList.add("hide");
      blockShown[b] = blockWant[b];
    }
    const zx = ox[z];
    const scale = z === 0 ? 1 : fullWidth / ow[z];
    const fullX = round(xpad);
    const fullW = round(fullWidth);
    for (let i = 0; i < n; i++) {
      if (!blockShown[(i / BLOCK) | 0]) {
        i += BLOCK - 1 - (i % BLOCK);
        continue;
      }
      let st;
      let x = 0, w = 0;
      if (i >= z && i < zEnd) {
        st = SHOWN;
        if (z === 0) {
          x = ox[i];
          w = ow[i];
        } else {
          x = round(xpad + (ox[i] - zx) * scale);
          w = round(ow[i] * scale);
        }
      } else if (isAncestor[i]) {
        st = PARENT;
        x = fullX;
        w = fullW;
      } else {
        st = HIDDEN;
      }
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
  }

  // ---- search ----

  function clearHighlight() {
    for (let i = 0; i < n; i++) {
      if (matched[i]) {
        const f = origFill[i];
        if (f === null) rects[i].removeAttribute("fill");
        else rects[i].setAttribute("fill", f);
        matched[i] = 0;
      }
    }
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
    clearHighlight();
    let sum = 0;
    let coveredUntil = 0;  // matches nested in an earlier match's subtree count once
    if (re) {
      for (let i = 0; i < n; i++) {
        if (!rects[i] || !re.test(names[i])) continue;
        if (origFill[i] === undefined) origFill[i] = rects[i].getAttribute("fill");
        rects[i].setAttribute("fill", SEARCH_FILL);
        matched[i] = 1;
        if (i >= coveredUntil) {
          sum += count[i];
          coveredUntil = end[i];
        }
      }
    }
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
  }

  // ---- URL state: ?x=&y= (zoomed frame's written x and y), s= (search), i=1 (ignore case) ----

  let restoring = false;

  function updateUrl() {
    if (restoring || !window.history || !window.URLSearchParams) return;
    try {
      const p = new URLSearchParams(window.location.search);
      for (const k of ["x", "y", "s", "i"]) p.delete(k);
      if (zoomed > 0) {
        p.set("x", xAttr[zoomed]);
        p.set("y", yAttr[zoomed]);
      }
      if (searchTerm) p.set("s", searchTerm);
      if (ignoreCase) p.set("i", "1");
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
    } finally {
      restoring = false;
    }
  }

  // ---- events ----

  function frameOf(node) {
    if (!frameIndex) {
      frameIndex = new Map();
      for (let i = 0; i < n; i++) frameIndex.set(els[i], i);
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

  function resetAll() {
    if (searchTerm) search("");
    if (zoomed > 0) zoomTo(0);
  }

  function moveFocus(key) {
    const f = focused;
    if (f < 0 || isHidden(f)) {
      setFocus(zoomed);
      return;
    }
    let t = -1;
    if (key === "ArrowUp") {
      t = parent[f];
    } else if (key === "ArrowDown") {
      for (let c = f + 1; c < end[f]; c = end[c]) {
        if (!isHidden(c)) {
          t = c;
          break;
        }
      }
    } else if (key === "ArrowRight") {
      for (t = nextSame[f]; t >= 0 && isHidden(t); t = nextSame[t]);
    } else if (key === "ArrowLeft") {
      for (t = prevSame[f]; t >= 0 && isHidden(t); t = prevSame[t]);
    }
    if (t >= 0) setFocus(t);
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

    if (unzoomBtn) unzoomBtn.addEventListener("click", function () { zoomTo(0); });
    if (searchBtn) {
      searchBtn.addEventListener("click", function () {
        if (searchTerm) search("");
        else promptSearch();
      });
    }
    if (icBtn) {
      icBtn.addEventListener("click", function () {
        setIgnoreCase(!ignoreCase);
        if (searchTerm) search(searchTerm);
        else updateUrl();
      });
    }

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
      if (((e.ctrlKey || e.metaKey) && (key === "f" || key === "F")) || key === "F3") {
        e.preventDefault();
        promptSearch();
        return;
      }
      if (e.ctrlKey || e.metaKey || e.altKey) return;
      if (key === "Escape" || key === "Esc") {
        resetAll();
        setFocus(-1);
      } else if (key === "Enter") {
        if (focused >= 0) {
          e.preventDefault();
          zoomTo(focused);
        }
      } else if (key === "ArrowUp" || key === "ArrowDown" || key === "ArrowLeft" ||
                 key === "ArrowRight") {
        e.preventDefault();
        moveFocus(key);
      }
    });
  }

  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", init);
  else init();
})();

// hearth heatmap page script (templates/heatmap.js, embedded in the page `hearth heatmap -o
// heat.html` writes, render/time/heat_page.h). Reads the embedded samples (the dictionary and
// the changes, render/time/heat_data.h) into runs: a run is one thread in one state and stack
// from one sample (round) to the round before its next change. Everything the page shows is
// counted from the runs:
// - the subsecond-offset heatmap (a canvas): cells of row_ns, `rows` to a column, counts by
//   state class as render/time/heat_grid.h counts them, for the threads the filter keeps;
// - the flamegraph of a time range [from, to) (or the differential flamegraph of a range
//   against a baseline range), laid out as render/flame/layout.cpp lays out `hearth flame`'s
//   (same geometry, titles, colours, pruning) and drawn by templates/flame.js in an iframe,
//   with the data layout of templates/FLAME_DOM.md;
// - the moment view: every thread of the sample nearest an instant, grouped by state and stack.
// State in the URL (replaceState): r=FROM-TO and b=FROM-TO (seconds since time 0: the range and
// the baseline), m=SECONDS (the moment's sample), c=all|R|D|S|other (the colour), t=REGEX (the
// thread filter, searched in each thread's root frames); c is absent for the default, R.
(function () {
  "use strict";

  const NS = 1e9;
  const GONE = 127;
  const MAX_FRAMES = 30000;   // as `hearth flame --max-frames`
  const MIN_WIDTH_PX = 0.1;   // as `hearth flame --minwidth`
  const LAZY_AFTER = 3000;    // frames; then only frames >= 1 px wide get elements at first
  const CLASS_OF = { R: 0, D: 1, S: 2 };  // else 3: other
  const MODES = ["all", "R", "D", "S", "other"];
  // Every thread is sampled every time, sleeping or not, so "all" is flat unless threads come
  // and go: R (when work happened) is the default colour.
  const DEFAULT_MODE = "R";

  // ---- the data ----

  const D = JSON.parse(document.getElementById("heat-data").textContent);
  const frames = D.frames;
  const nFrames = frames.length;
  const rowNs = D.row_ns;
  const rows = D.rows;
  const colNs = rowNs * rows;
  const nColumns = D.columns;
  const nCells = nColumns * rows;
  const nRounds = D.rounds;
  const nThreads = D.threads.tid.length;

  function prefixSums(counts) {
    const start = new Uint32Array(counts.length + 1);
    for (let i = 0; i < counts.length; i++) start[i + 1] = start[i] + counts[i];
    return start;
  }
  const stackStart = prefixSums(D.stacks.n);
  const stackFrames = Uint32Array.from(D.stacks.f);
  const nStacks = D.stacks.n.length;
  const rootStart = prefixSums(D.threads.n);
  const rootFrames = Uint32Array.from(D.threads.f);
  const rootText = new Array(nThreads);
  const threadProc = new Int32Array(nThreads).fill(-1);
  const procIndex = new Map();
  D.procs.forEach(function (pid, i) { procIndex.set(pid, i); });
  for (let t = 0; t < nThreads; t++) {
    const parts = [];
    for (let k = rootStart[t]; k < rootStart[t + 1]; k++) parts.push(frames[rootFrames[k]]);
    rootText[t] = parts.join(";");
    const p = procIndex.get(D.threads.pid[t]);
    threadProc[t] = p === undefined ? -1 : p;
  }
  const stateClass = new Uint8Array(128);
  for (let i = 0; i < D.states.length; i++) {
    const c = CLASS_OF[D.states[i]];
    stateClass[i] = c === undefined ? 3 : c;
  }

  // Rounds and runs, from the varint stream.
  const roundTime = new Float64Array(nRounds);  // ns since time 0
  const roundProc = new Uint32Array(nRounds);
  const cap = D.changes + 1;
  const runStart = new Uint32Array(cap);
  const runEnd = new Uint32Array(cap);
  const runThread = new Uint32Array(cap);
  const runStack = new Uint32Array(cap);
  const runState = new Uint8Array(cap);
  let nRuns = 0;
  (function decode() {
    const bytes = atob(D.data);
    let pos = 0;
    function varint() {
      let v = 0, scale = 1, b;
      do {
        b = bytes.charCodeAt(pos++);
        v += (b & 127) * scale;
        scale *= 128;
      } while (b >= 128);
      return v;
    }
    const open = new Int32Array(nThreads).fill(-1);
    let time = 0;
    for (let r = 0; r < nRounds; r++) {
      time += varint();
      roundTime[r] = time;
      roundProc[r] = varint();
      const n = varint();
      let thread = 0;
      for (let k = 0; k < n; k++) {
        const z = varint();
        thread += z % 2 === 0 ? z / 2 : -(z + 1) / 2;
        const v = varint();
        const code = v % 128;
        if (open[thread] >= 0) runEnd[open[thread]] = r;
        if (code === GONE) {
          open[thread] = -1;
          continue;
        }
        const i = nRuns++;
        runStart[i] = r;
        runEnd[i] = nRounds;
        runThread[i] = thread;
        runStack[i] = (v - code) / 128;
        runState[i] = code;
        open[thread] = i;
      }
    }
  })();
  // Each thread's runs in time order: byThread[threadRuns[t] .. threadRuns[t + 1]).
  const threadRuns = new Uint32Array(nThreads + 1);
  for (let k = 0; k < nRuns; k++) threadRuns[runThread[k] + 1]++;
  for (let t = 0; t < nThreads; t++) threadRuns[t + 1] += threadRuns[t];
  const byThread = new Uint32Array(nRuns);
  (function () {
    const next = threadRuns.slice(0, nThreads);
    for (let k = 0; k < nRuns; k++) byThread[next[runThread[k]]++] = k;
  })();
  function threadFirstRun(t) {
    return threadRuns[t + 1] > threadRuns[t] ? byThread[threadRuns[t]] : -1;
  }
  // Thread T's run at round R, or -1: the last run starting at or before R, if it lasts past R.
  function runAt(t, r) {
    let lo = threadRuns[t], hi = threadRuns[t + 1];
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (runStart[byThread[mid]] <= r) lo = mid + 1;
      else hi = mid;
    }
    if (lo === threadRuns[t]) return -1;
    const k = byThread[lo - 1];
    return runEnd[k] > r ? k : -1;
  }

  // Rounds of a process before round R: procBefore(p, r). One process: r itself.
  const procPrefix = [];
  if (D.procs.length > 1) {
    for (let p = 0; p < D.procs.length; p++) procPrefix.push(new Uint32Array(nRounds + 1));
    for (let r = 0; r < nRounds; r++) {
      for (let p = 0; p < D.procs.length; p++) procPrefix[p][r + 1] = procPrefix[p][r] + (roundProc[r] === p ? 1 : 0);
    }
  }
  function roundsOf(p, a, b) {  // rounds of process p in [a, b)
    if (procPrefix.length === 0) return b - a;
    return p < 0 ? 0 : procPrefix[p][b] - procPrefix[p][a];
  }

  // Cells: cell c covers [c * rowNs, (c + 1) * rowNs); cellStart[c]: its first round.
  const cellOfRound = new Uint32Array(nRounds);
  const cellStart = new Uint32Array(nCells + 1);
  (function () {
    let c = 0;
    for (let r = 0; r < nRounds; r++) {
      const t = roundTime[r];
      const inCol = t % colNs;
      const cell = Math.min(nCells - 1, ((t - inCol) / colNs) * rows + Math.floor(inCol / rowNs));
      cellOfRound[r] = cell;
      while (c <= cell) cellStart[c++] = r;
    }
    while (c <= nCells) cellStart[c++] = nRounds;
  })();

  // The first round at or after time T (ns).
  function roundAt(t) {
    let lo = 0, hi = nRounds;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (roundTime[mid] < t) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }
  // The round nearest time T.
  function nearestRound(t) {
    const r = roundAt(t);
    if (r >= nRounds) return nRounds - 1;
    if (r > 0 && t - roundTime[r - 1] <= roundTime[r] - t) return r - 1;
    return r;
  }

  // ---- text ----

  function thousands(n) {
    return String(Math.round(n)).replace(/\B(?=(\d{3})+(?!\d))/g, ",");
  }
  // printf("%.2f", v): round half to even on exact ties (toFixed rounds them up).
  // A tie is V exactly (2n + 1) / 200, which a double holds only as an odd multiple of 1/8.
  function fixed2(v) {
    const e = v * 8;  // exact: a power of two
    if (Number.isInteger(e) && Math.abs(e) % 2 === 1 && Math.abs(e) < 1e12) {
      const f = Math.floor(v * 100);  // v * 100 = 12.5 * e, exact
      return ((f % 2 === 0 ? f : f + 1) / 100).toFixed(2);
    }
    return v.toFixed(2);
  }
  function ppText(v) {
    let s = fixed2(v);
    if (v > 0) s = "+" + s;
    if (s === "-0.00" || s === "+0.00") s = "0.00";
    return s;
  }
  function seconds(ns) {
    let s = (ns / NS).toFixed(9).replace(/0+$/, "").replace(/\.$/, "");
    return s === "-0" ? "0" : s;
  }
  function durationText(ns) {
    if (ns >= 3600 * NS) return (ns / 3600 / NS).toFixed(2).replace(/\.?0+$/, "") + " h";
    if (ns >= 60 * NS) return (ns / 60 / NS).toFixed(2).replace(/\.?0+$/, "") + " min";
    if (ns >= NS) return (ns / NS).toFixed(3).replace(/\.?0+$/, "") + " s";
    if (ns >= 1e6) return (ns / 1e6).toFixed(3).replace(/\.?0+$/, "") + " ms";
    if (ns >= 1e3) return (ns / 1e3).toFixed(1).replace(/\.?0+$/, "") + " \u00b5s";
    return ns + " ns";
  }
  function wallClock(ns) {
    if (D.real_ns === "0") return "";
    const ms = Number(BigInt(D.real_ns) / 1000000n) + ns / 1e6;
    const d = new Date(ms);
    if (isNaN(d.getTime())) return "";
    const pad = (v, n) => String(v).padStart(n || 2, "0");
    return pad(d.getHours()) + ":" + pad(d.getMinutes()) + ":" + pad(d.getSeconds()) + "." +
      pad(d.getMilliseconds(), 3);
  }
  function timeText(ns) {  // for people: ms precision (the URL keeps ns)
    const w = wallClock(ns);
    return (ns / NS).toFixed(3).replace(/\.?0+$/, "") + " s" + (w ? " (" + w + ")" : "");
  }
  function esc(s) {
    return String(s).replace(/[&<>"]/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;" })[c]);
  }
  const ANNOTATION = /_\[[kwij]\]$/;
  function stripAnnotation(name) {
    return ANNOTATION.test(name) ? name.slice(0, -4) : name;
  }
  function threadLabel(t) {
    return rootText[t] + " (tid " + D.threads.tid[t] + ")";
  }

  // ---- filters and counts ----

  let mode = DEFAULT_MODE;
  let filterText = "";
  let filterRe = null;
  const pass = new Uint8Array(nThreads).fill(1);
  let modeClass = -1;  // -1: every state

  function setFilter(text) {
    filterText = text || "";
    filterRe = null;
    let ok = true;
    if (filterText) {
      try {
        filterRe = new RegExp(filterText);
      } catch (e) {
        ok = false;
      }
    }
    let kept = 0;
    for (let t = 0; t < nThreads; t++) {
      pass[t] = !filterRe || filterRe.test(rootText[t]) ? 1 : 0;
      kept += pass[t];
    }
    const note = document.getElementById("filter-note");
    if (note) {
      note.textContent = !ok ? "not a regular expression: every thread is shown"
        : filterRe ? kept + " of " + nThreads + " threads" : "";
      note.className = ok ? "" : "problem";
    }
  }
  function setMode(m) {
    mode = MODES.indexOf(m) >= 0 ? m : DEFAULT_MODE;
    modeClass = mode === "all" ? -1 : mode === "other" ? 3 : CLASS_OF[mode];
    for (const input of document.querySelectorAll("input[name=mode]")) input.checked = input.value === mode;
  }
  function runCounted(k) {
    return pass[runThread[k]] && (modeClass < 0 || stateClass[runState[k]] === modeClass);
  }

  // counts[class][cell], for the threads the filter keeps (every state class).
  const counts = [0, 1, 2, 3].map(() => new Uint32Array(nCells));
  let totals = new Uint32Array(nCells);
  function countCells() {
    for (const c of counts) c.fill(0);
    for (let k = 0; k < nRuns; k++) {
      const t = runThread[k];
      if (!pass[t]) continue;
      const cnt = counts[stateClass[runState[k]]];
      const p = threadProc[t];
      const a = runStart[k], b = runEnd[k];
      if (b <= a) continue;  // two changes of one thread in one round: the first lasted no time
      const c0 = cellOfRound[a], c1 = cellOfRound[b - 1];
      if (c0 === c1) {
        cnt[c0] += roundsOf(p, a, b);
        continue;
      }
      for (let c = c0; c <= c1; c++) {
        const lo = Math.max(a, cellStart[c]), hi = Math.min(b, cellStart[c + 1]);
        if (hi > lo) cnt[c] += roundsOf(p, lo, hi);
      }
    }
    totals = new Uint32Array(nCells);
    for (const c of counts) for (let i = 0; i < nCells; i++) totals[i] += c[i];
  }
  function cellValue(i) {
    return modeClass < 0 ? totals[i] : counts[modeClass][i];
  }

  // ---- the heatmap ----

  const LEFT = 70, TOP = 8, AXIS = 20;
  const canvas = document.getElementById("heat");
  const wrap = document.getElementById("heat-wrap");
  let cw = 4, ch = 8;
  let maxCell = 1;
  let range = null;      // [fromNs, toNs)
  let baseline = null;   // [fromNs, toNs)
  let cursor = 0;        // keyboard cell
  let anchor = -1;       // keyboard selection start
  let momentRound = -1;

  function dark() {
    return window.matchMedia && window.matchMedia("(prefers-color-scheme: dark)").matches;
  }
  // render/time/heat_picture.cpp heat_color().
  function heatColor(f) {
    f = Math.min(1, Math.max(0, f));
    const a = f <= 0.5 ? [0, 255, 240, 180] : [0.5, 245, 140, 30];
    const b = f <= 0.5 ? [0.5, 245, 140, 30] : [1, 140, 0, 0];
    const t = (f - a[0]) / (b[0] - a[0]);
    const mix = (x, y) => Math.round(x + (y - x) * t);
    return "rgb(" + mix(a[1], b[1]) + "," + mix(a[2], b[2]) + "," + mix(a[3], b[3]) + ")";
  }
  function geometry() {
    const avail = Math.max(200, (wrap.clientWidth || 1200) - LEFT - 20);
    cw = Math.min(48, Math.max(1, Math.floor(avail / Math.max(1, nColumns))));
    ch = Math.min(24, Math.max(2, Math.floor(400 / Math.max(1, rows))));
  }
  function cellRect(c) {
    const col = Math.floor(c / rows), row = c % rows;
    return [LEFT + col * cw, TOP + row * ch];
  }
  function cellsOf(r) {  // the cells a time range [from, to) touches: [first, last]
    const first = Math.max(0, Math.floor(r[0] / rowNs));
    const last = Math.min(nCells - 1, Math.ceil(r[1] / rowNs) - 1);
    return [first, last];
  }
  function draw() {
    const dpr = window.devicePixelRatio || 1;
    const w = LEFT + nColumns * cw + 20, h = TOP + rows * ch + AXIS;
    if (canvas.width !== Math.round(w * dpr) || canvas.height !== Math.round(h * dpr)) {
      canvas.width = Math.round(w * dpr);
      canvas.height = Math.round(h * dpr);
      canvas.style.width = w + "px";
      canvas.style.height = h + "px";
    }
    const g = canvas.getContext("2d");
    g.setTransform(dpr, 0, 0, dpr, 0, 0);
    const isDark = dark();
    g.fillStyle = isDark ? "#2a2a2a" : "#f6f6f6";
    g.fillRect(0, 0, w, h);
    g.fillStyle = isDark ? "#333" : "#fff";
    g.fillRect(LEFT, TOP, nColumns * cw, rows * ch);
    maxCell = 1;
    for (let i = 0; i < nCells; i++) if (cellValue(i) > maxCell) maxCell = cellValue(i);
    const gap = cw >= 4 && ch >= 4 ? 1 : 0;
    for (let i = 0; i < nCells; i++) {
      const v = cellValue(i);
      if (v === 0) continue;
      const [x, y] = cellRect(i);
      g.fillStyle = heatColor(v / maxCell);
      g.fillRect(x, y, cw - gap, ch - gap);
    }
    function shade(r, colour) {
      if (!r) return;
      const [a, b] = cellsOf(r);
      g.fillStyle = colour;
      for (let c = a; c <= b; c++) {
        const [x, y] = cellRect(c);
        g.fillRect(x, y, cw, ch);
      }
    }
    shade(baseline, "rgba(0,160,140,0.45)");
    shade(range, "rgba(40,110,255,0.45)");
    if (momentRound >= 0) {
      const [x] = cellRect(cellOfRound[momentRound]);
      g.fillStyle = isDark ? "#fff" : "#000";
      g.fillRect(x + cw / 2 - 0.5, TOP, 1, rows * ch);
    }
    if (document.activeElement === wrap) {
      const [x, y] = cellRect(cursor);
      g.strokeStyle = isDark ? "#4af" : "#06c";
      g.lineWidth = 2;
      g.strokeRect(x + 1, y + 1, Math.max(1, cw - 2), Math.max(1, ch - 2));
    }
    // Axes: row offsets on the left, column times below.
    g.fillStyle = isDark ? "#ddd" : "#333";
    g.font = "10px system-ui, DejaVu Sans, sans-serif";
    g.textAlign = "right";
    g.textBaseline = "top";
    const rowStep = Math.max(1, Math.ceil(28 / ch));
    for (let r = 0; r < rows; r += rowStep) g.fillText(r === 0 ? "+0" : "+" + durationText(r * rowNs), LEFT - 5, TOP + r * ch);
    g.textAlign = "left";
    let colStep = 1;
    for (const s of [1, 2, 5, 10, 15, 30, 60, 120, 300, 600, 1800, 3600]) {
      colStep = s;
      if (s * cw >= 80) break;
    }
    for (let c = 0; c < nColumns; c += colStep) {
      g.fillText(c === 0 ? "0 s" : durationText(c * colNs), LEFT + c * cw, TOP + rows * ch + 4);
    }
  }

  function cellAt(ev) {
    const box = canvas.getBoundingClientRect();
    const x = ev.clientX - box.left - LEFT, y = ev.clientY - box.top - TOP;
    if (x < 0 || y < 0) return -1;
    const col = Math.floor(x / cw), row = Math.floor(y / ch);
    if (col >= nColumns || row >= rows) return -1;
    return col * rows + row;
  }
  function cellText(c) {
    const t = c * rowNs;
    let s = timeText(t) + ", " + durationText(rowNs) + ": " + thousands(totals[c]) + " samples";
    s += " (R " + thousands(counts[0][c]) + ", D " + thousands(counts[1][c]) + ", S " +
      thousands(counts[2][c]) + ", other " + thousands(counts[3][c]) + ")";
    return s;
  }

  // ---- the flamegraph of a range ----

  // The tree of every (thread root + stack) path in the recording, built once: node 0 is
  // "all"; children have larger ids than their parents; kids sorted by frame (sibling order).
  let tree = null;
  function buildTree() {
    if (tree) return tree;
    let cap2 = 1024;
    let parent = new Int32Array(cap2), frame = new Int32Array(cap2), depth = new Int32Array(cap2);
    let n = 1;
    parent[0] = -1;
    frame[0] = -1;
    const child = new Map();
    function kid(p, f) {
      const key = p * nFrames + f;
      let id = child.get(key);
      if (id !== undefined) return id;
      if (n === cap2) {
        cap2 *= 2;
        const grow = (a) => { const b = new Int32Array(cap2); b.set(a); return b; };
        parent = grow(parent);
        frame = grow(frame);
        depth = grow(depth);
      }
      id = n++;
      parent[id] = p;
      frame[id] = f;
      depth[id] = depth[p] + 1;
      child.set(key, id);
      return id;
    }
    const leafOf = new Map();
    const runLeaf = new Int32Array(nRuns);
    for (let k = 0; k < nRuns; k++) {
      const t = runThread[k], s = runStack[k];
      const key = t * nStacks + s;
      let leaf = leafOf.get(key);
      if (leaf === undefined) {
        leaf = 0;
        for (let i = rootStart[t]; i < rootStart[t + 1]; i++) leaf = kid(leaf, rootFrames[i]);
        for (let i = stackStart[s]; i < stackStart[s + 1]; i++) leaf = kid(leaf, stackFrames[i]);
        leafOf.set(key, leaf);
      }
      runLeaf[k] = leaf;
    }
    // Children lists, sorted by frame index.
    const kids = new Uint32Array(n + 1);
    for (let i = 1; i < n; i++) kids[parent[i] + 1]++;
    for (let i = 0; i < n; i++) kids[i + 1] += kids[i];
    const fill = kids.slice(0, n);
    const list = new Uint32Array(Math.max(0, n - 1));
    for (let i = 1; i < n; i++) list[fill[parent[i]]++] = i;
    for (let i = 0; i < n; i++) {
      if (kids[i + 1] - kids[i] > 1) {
        const part = list.subarray(kids[i], kids[i + 1]);
        part.sort((a, b) => frame[a] - frame[b]);
      }
    }
    tree = { n: n, parent: parent, frame: frame, depth: depth, kids: kids, list: list,
             runLeaf: runLeaf };
    return tree;
  }

  // Inclusive counts of every node for the range [from, to) (ns): a Float64Array.
  function rangeTotals(r) {
    const T = buildTree();
    const total = new Float64Array(T.n);
    const r0 = roundAt(r[0]), r1 = roundAt(r[1]);
    for (let k = 0; k < nRuns && runStart[k] < r1; k++) {
      if (runEnd[k] <= r0 || !runCounted(k)) continue;
      const n = roundsOf(threadProc[runThread[k]], Math.max(r0, runStart[k]), Math.min(r1, runEnd[k]));
      total[T.runLeaf[k]] += n;
    }
    for (let i = T.n - 1; i > 0; i--) total[T.parent[i]] += total[i];
    return total;
  }

  function roundPx(v) {
    return Math.round(v * 10) / 10;
  }
  function formatPx(v) {
    const tenths = Math.round(v * 10);
    if (tenths === 0) return "0";
    const a = Math.abs(tenths);
    return (tenths < 0 ? "-" : "") + Math.floor(a / 10) + (a % 10 ? "." + (a % 10) : "");
  }

  // Which nodes to draw (render/flame/layout.cpp frames_to_keep): those at least minCount
  // wide, and of more than MAX_FRAMES, the widest, ties by depth.
  function keepRule(T, total, minCount) {
    const rule = { min: minCount, tie: -1, tieKept: null };
    let wide = 1;
    const eligible = (w) => w > 0 && w >= minCount;
    for (let i = 1; i < T.n; i++) if (eligible(total[i])) wide++;
    if (wide <= MAX_FRAMES) return rule;
    const widths = new Float64Array(wide - 1);
    let nw = 0;
    for (let i = 1; i < T.n; i++) if (eligible(total[i])) widths[nw++] = total[i];
    widths.sort();  // ascending, numeric: a typed array's own sort
    const budget = MAX_FRAMES - 1;
    const cut = widths[widths.length - budget];  // the budget-th widest
    let room = budget;
    for (let k = widths.length - 1; k >= 0 && widths[k] > cut; k--) room--;
    const tied = [];
    for (let i = 1; i < T.n; i++) if (total[i] === cut) tied.push(i);
    tied.sort((a, b) => T.depth[a] - T.depth[b] || a - b);
    rule.min = cut;
    rule.tie = cut;
    rule.tieKept = new Uint8Array(T.n);
    for (let j = 0; j < room && j < tied.length; j++) rule.tieKept[tied[j]] = 1;
    return rule;
  }

  // A flamegraph SVG document (FLAME_DOM.md, frames written as data only) of the range
  // totals TOTAL; BASE: the baseline's totals for a differential graph (hearth diff's look).
  function flameDocument(total, base, width, title, subtitle) {
    const T = buildTree();
    const timeMax = total[0];
    const xpad = 10, fh = 16, fs = 12;
    const wpt = (width - 2 * xpad) / timeMax;
    const rule = keepRule(T, total, MIN_WIDTH_PX / wpt);
    // Place: depth-first, self time left of the children.
    const placed = [];  // node, start
    const todo = [0, 0];
    let maxDepth = 0;
    while (todo.length) {
      const start = todo.pop(), node = todo.pop();
      placed.push(node, start);
      if (T.depth[node] > maxDepth) maxDepth = T.depth[node];
      let offset = start + (total[node] - childSum(T, total, node));
      const mark = todo.length;
      for (let k = T.kids[node]; k < T.kids[node + 1]; k++) {
        const c = T.list[k];
        const t = total[c];
        if (t > 0 && t >= rule.min && (t !== rule.tie || rule.tieKept[c])) todo.push(c, offset);
        offset += t;
      }
      // Reverse the pairs just pushed, so the leftmost child comes out first.
      for (let i = mark, j = todo.length - 2; i < j; i += 2, j -= 2) {
        const a0 = todo[i], a1 = todo[i + 1];
        todo[i] = todo[j];
        todo[i + 1] = todo[j + 1];
        todo[j] = a0;
        todo[j + 1] = a1;
      }
    }
    const nPlaced = placed.length / 2;
    const ypad1 = fs * 3, ypad2 = fs * 2 + 10, ypad3 = fs * 2;
    let gh = (maxDepth + 1) * fh + ypad1 + ypad2;
    if (subtitle) gh += ypad3;

    // Differential: significance of each path's change (render/diff/diff_model.cpp).
    let nBase = 0, pathZ = 0;
    if (base) {
      nBase = base[0];
      let tests = 0;
      for (let i = 1; i < T.n; i++) if (base[i] + total[i] > 0) tests += 2;
      pathZ = criticalZ(0.001, tests);
    }

    const strings = [], stringIds = new Map();
    const str = (s) => {
      let id = stringIds.get(s);
      if (id === undefined) {
        id = strings.length;
        strings.push(s);
        stringIds.set(s, id);
      }
      return id;
    };
    const fills = [], fillIds = new Map();
    const fillOf = (f) => {
      let id = fillIds.get(f);
      if (id === undefined) {
        id = fills.length;
        fills.push(f);
        fillIds.set(f, id);
      }
      return id;
    };
    const data = { v: 1, lazy: nPlaced > LAZY_AFTER ? 1 : 0, h: fh - 1, strings: strings, fills: fills,
                   x: [], y: [], w: [], name: [], suffix: [], fill: [], class: [], stroke: [] };
    // str() once per distinct frame name and per distinct count (a plain graph's suffix
    // depends on the count only): the strings come out as before, with far fewer hashings.
    const nameIdOf = new Int32Array(nFrames + 1).fill(-1);  // by frame index + 1 (0: "all")
    const suffixIdOf = new Map();                           // count -> id (plain graphs)
    const threadFrames = [];
    for (let k = 0; k < nPlaced; k++) {
      const node = placed[2 * k], start = placed[2 * k + 1];
      const d = T.depth[node];
      const count = total[node];
      const x1 = xpad + start * wpt, x2 = xpad + (start + count) * wpt;
      const y1 = gh - ypad2 - (d + 1) * fh + 1;
      const fi = node === 0 ? 0 : T.frame[node] + 1;
      let nameId = nameIdOf[fi];
      if (nameId < 0) nameId = nameIdOf[fi] = str(node === 0 ? "all" : stripAnnotation(frames[fi - 1]));
      let suffix, suffixId = -1, fill, cls = "";
      const isThread = d === 1 && D.tfill[T.frame[node]] >= 0;
      if (isThread) cls = "t";
      if (!base) {
        if (node === 0) {
          suffix = " (" + thousands(count) + " samples, 100%)";
        } else {
          const known = suffixIdOf.get(count);
          if (known !== undefined) {
            suffixId = known;
          } else {
            suffix = " (" + thousands(count) + " samples, " + fixed2(timeMax > 0 ? 100 * Math.round(count) / timeMax : 0) + "%)";
            suffixId = str(suffix);
            suffixIdOf.set(count, suffixId);
          }
        }
        fill = node === 0 ? D.fills[D.allfill] : isThread ? D.fills[D.tfill[T.frame[node]]] : D.fills[D.ffill[T.frame[node]]];
      } else {
        const x1b = base[node], x2n = count;
        const pp = 100 * x2n / timeMax - 100 * x1b / nBase;
        const z = changeZ(x1b, nBase, x2n, timeMax);
        const significant = node !== 0 && Math.abs(z) > pathZ;
        const only = node !== 0 && x1b === 0;
        suffix = " (" + thousands(count) + " samples, " + fixed2(100 * count / timeMax) + "%; " + ppText(pp) + " pp" +
          (only ? "; only in NEW" : "") + ")";
        fill = node === 0 ? "#d2d2d2" : diffColor(pp, significant);
        if (only) {
          cls = cls ? cls + " only" : "only";
          data.stroke.push(k, "#6a009a", 1.5);
        }
      }
      // The numbers formatPx writes: tenths of a px (JSON writes the nearest decimal).
      const xw = roundPx(x1);
      data.x.push(roundPx(xw) + 0);
      data.y.push(roundPx(y1) + 0);
      data.w.push(roundPx(roundPx(x2) - xw) + 0);
      data.name.push(nameId);
      data.suffix.push(suffixId >= 0 ? suffixId : str(suffix));
      data.fill.push(fillOf(fill));
      if (cls) data.class.push(k, cls);
      if (isThread) threadFrames.push(k);
    }

    // The thread legend (layout.cpp): widest threads first, at most 100.
    let legend = "";
    let height = gh;
    if (threadFrames.length) {
      threadFrames.sort((a, b) => data.w[b] - data.w[a] || a - b);
      let x = xpad, y = gh;
      const row = fh + 4;
      for (let i = 0; i < threadFrames.length && i < 100; i++) {
        const k = threadFrames[i];
        const title = strings[data.name[k]] + strings[data.suffix[k]];
        const node = placed[2 * k];
        const raw = frames[T.frame[node]];
        const m = /^\[(.*?)(?: (?:tid|pid)=\d+)?\]$/.exec(raw);
        let label = (m ? m[1] : raw) + " " + (total[node] * wpt / (width - 2 * xpad) * 100).toFixed(1) + "%";
        const w = (Array.from(label).length + 1) * fs * 0.59 + 6;
        if (x + w > width - xpad && x > xpad) {
          x = xpad;
          y += row;
        }
        legend += '<g data-x="' + formatPx(data.x[k]) + '"><title>' + esc(title) + '</title><rect x="' +
          formatPx(x) + '" y="' + formatPx(y) + '" width="' + formatPx(roundPx(x + w) - roundPx(x)) + '" height="' +
          formatPx(fh - 1) + '" fill="' + fills[data.fill[k]] + '"/><text x="' + formatPx(x + 3) + '" y="' +
          formatPx(y + (fh - 1) / 2 + 3) + '">' + esc(label) + "</text></g>\n";
        x += w + 6;
      }
      height = y + row + 4;
    }
    const bgTop = base ? "#f8f8f8" : "#eeeeee", bgBottom = base ? "#e8e8e8" : "#eeeeb0";
    const W = formatPx(width), H = formatPx(Math.ceil(height));
    const css = document.getElementById("flame-css").textContent;
    const js = document.getElementById("flame-js").textContent;
    const text = (x, y, s, id, extra) => '<text id="' + id + '" x="' + formatPx(x) + '" y="' + formatPx(y) + '"' +
      (extra || "") + ">" + esc(s) + "</text>\n";
    let svg = '<svg version="1.1" width="' + W + '" height="' + H + '" viewBox="0 0 ' + W + " " + H +
      '" xmlns="http://www.w3.org/2000/svg" class="hearth flame" data-xpad="10" data-fontsize="12"' +
      ' data-fontwidth="0.59" data-frameheight="16" data-inverted="0" data-countname="samples"' +
      ' data-nametype="Function:" data-total="' + String(timeMax) + '"' + (base ? ' data-diff="new"' : "") + ">\n" +
      '<defs><linearGradient id="background" y1="0" y2="1" x1="0" x2="0"><stop stop-color="' + bgTop +
      '" offset="5%"/><stop stop-color="' + bgBottom + '" offset="95%"/></linearGradient></defs>\n' +
      "<style>\ntext{font-family:Verdana, DejaVu Sans, sans-serif;font-size:12px}\n.hide{display:none}\n" + css + "</style>\n" +
      '<rect id="bg" x="0" y="0" width="' + W + '" height="' + H + '" fill="url(#background)"/>\n' +
      text(Math.floor(width / 2), fs * 2, title, "title", ' font-size="17" text-anchor="middle"') +
      (subtitle ? text(Math.floor(width / 2), fs * 4, subtitle, "subtitle", ' text-anchor="middle"') : "") +
      text(xpad, gh - ypad2 / 2, " ", "details") +
      text(xpad, fs * 2, "Reset Zoom", "unzoom", ' class="hide"') +
      text(width - xpad - 100, fs * 2, "Search", "search") +
      text(width - xpad - 16, fs * 2, "ic", "ignorecase") +
      text(width - xpad - 100, gh - ypad2 / 2, " ", "matched") +
      '<metadata id="frames-data"></metadata>\n' +
      '<g id="frames"></g>\n' + (legend ? '<g id="threads">\n' + legend + "</g>\n" : "") + "</svg>\n";
    // The frame data is handed over by this page (the frame is of its origin), not parsed as
    // document text: the first script puts it where flame.js reads it.
    const doc = '<!DOCTYPE html><html><head><meta charset="utf-8"><style>html,body{margin:0;background:transparent}' +
      "svg{display:block}</style></head><body>" + svg +
      '<script>document.getElementById("frames-data").textContent = parent.hearthFlameData();</' + "script>" +
      "<script>" + js + "</" + "script></body></html>";
    return { doc: doc, json: JSON.stringify(data), height: Math.ceil(height), frames: nPlaced, data: data };
  }
  function childSum(T, total, node) {
    let s = 0;
    for (let k = T.kids[node]; k < T.kids[node + 1]; k++) s += total[T.list[k]];
    return s;
  }

  // render/diff: the two-proportion z statistic and the Bonferroni threshold.
  function changeZ(x1, n1, x2, n2) {
    if (!(n1 > 0 && n2 > 0)) return 0;
    const p1 = x1 / n1, p2 = x2 / n2, p = (x1 + x2) / (n1 + n2);
    const v = p * (1 - p) * (1 / n1 + 1 / n2);
    return v > 0 ? (p2 - p1) / Math.sqrt(v) : 0;
  }
  function erfc(x) {  // Numerical Recipes' erfcc: relative error < 1.2e-7
    const z = Math.abs(x), t = 1 / (1 + 0.5 * z);
    const r = t * Math.exp(-z * z - 1.26551223 + t * (1.00002368 + t * (0.37409196 + t * (0.09678418 +
      t * (-0.18628806 + t * (0.27886807 + t * (-1.13520398 + t * (1.48851587 +
      t * (-0.82215223 + t * 0.17087277)))))))));
    return x >= 0 ? r : 2 - r;
  }
  function criticalZ(alpha, tests) {
    const target = alpha / Math.max(1, tests);
    let lo = 0, hi = 40;
    for (let i = 0; i < 200; i++) {
      const mid = (lo + hi) / 2;
      if (erfc(mid / Math.SQRT2) > target) lo = mid;
      else hi = mid;
    }
    return hi;
  }
  function diffColor(pp, significant) {  // render/diff/diff_picture.cpp diff_color()
    const a = Math.abs(pp);
    let t = Math.min(1, Math.log1p(a / 0.01) / Math.log1p(10 / 0.01));
    if (!significant) t *= 0.35;
    if (pp === 0 || t <= 0) return "#d2d2d2";
    const end = pp > 0 ? [0xd7, 0x26, 0x1e] : [0x1f, 0x5f, 0xc8];
    const mix = (from, to) => Math.round(from + (to - from) * t);
    const hex = (v) => v.toString(16).padStart(2, "0");
    return "#" + hex(mix(0xd2, end[0])) + hex(mix(0xd2, end[1])) + hex(mix(0xd2, end[2]));
  }

  let lastFlame = null;  // for tests: {frames, data, ms}
  let flameJson = "";    // the frame data of the graph being loaded in the iframe
  window.hearthFlameData = function () {
    return flameJson;
  };
  function rangeText(r) {
    return seconds(r[0]) + "\u2013" + seconds(r[1]) + " s";
  }
  function showFlame() {
    const section = document.getElementById("range-info");
    const iframe = document.getElementById("flame");
    const titleEl = document.getElementById("range-title");
    if (!range) {
      iframe.hidden = true;
      iframe.removeAttribute("srcdoc");
      titleEl.textContent = "Flamegraph";
      section.textContent = "Select a range of cells above." + (baseline ? " (Baseline: " + rangeText(baseline) + ".)" : "");
      lastFlame = null;
      return;
    }
    const t0 = performance.now();
    buildTree();
    const tTree = performance.now();
    const total = rangeTotals(range);
    const base = baseline ? rangeTotals(baseline) : null;
    const tTotals = performance.now();
    const what = mode === "all" ? "" : " in state " + (mode === "other" ? "other than R, D, S" : mode);
    const who = filterRe ? ", threads matching /" + filterText + "/" : "";
    if (!(total[0] > 0) || (base && !(base[0] > 0))) {
      iframe.hidden = true;
      iframe.removeAttribute("srcdoc");
      titleEl.textContent = "Flamegraph: " + rangeText(range);
      section.textContent = "No samples" + what + who + " in " + (base && !(base[0] > 0) ? "the baseline " + rangeText(baseline) : rangeText(range)) + ".";
      lastFlame = { frames: 0, data: null, ms: performance.now() - t0 };
      return;
    }
    const width = Math.max(600, Math.min(2400, iframe.parentNode.clientWidth || 1200));
    let title, subtitle;
    if (base) {
      title = "Differential: " + rangeText(range) + " against " + rangeText(baseline);
      subtitle = "BASE " + rangeText(baseline) + " (" + thousands(base[0]) + " samples) \u2192 NEW " + rangeText(range) +
        " (" + thousands(total[0]) + " samples); widths: NEW; colour: change of inclusive share, pp";
    } else {
      title = "Stacks " + rangeText(range);
      subtitle = thousands(total[0]) + " thread-samples" + what + who;
    }
    const f = flameDocument(total, base, width, title, subtitle);
    const tDoc = performance.now();
    iframe.style.height = f.height + "px";
    iframe.hidden = false;
    flameJson = f.json;
    iframe.srcdoc = f.doc;
    titleEl.textContent = (base ? "Differential flamegraph: " : "Flamegraph: ") + rangeText(range);
    let info = thousands(total[0]) + " thread-samples" + what + who + ", " + thousands(f.frames) + " frames";
    if (base) {
      let onlyBase = 0;
      const T = buildTree();
      for (let i = 1; i < T.n; i++) if (base[i] > 0 && total[i] === 0 && total[T.parent[i]] > 0) onlyBase++;
      info += "; baseline " + rangeText(baseline) + ": " + thousands(base[0]) + " thread-samples; " + onlyBase +
        " paths only in the baseline (not drawn)";
    }
    section.textContent = info + ".";
    lastFlame = { frames: f.frames, data: f.data, ms: performance.now() - t0,
                  parts: { tree: tTree - t0, totals: tTotals - tTree, layout: tDoc - tTotals, bytes: f.doc.length } };
  }

  // ---- the moment view ----

  // "lock" as a word of a name (pthread_mutex_lock, __lll_lock_wait, spin_lock), not inside
  // one (clock, tcp_recvmsg_locked, block).
  const LOCK = /futex|mutex|(^|[^a-z])(spin_?)?lock(?![a-z])|rwsem|sem_wait|semaphore|cond_?wait|condition_variable/i;
  const IO = /(^|[^a-z])(e?poll|p?select|p?readv?|p?writev?|recv|send|accept|connect|fsync|fdatasync|sync_file|io_|aio|blk|bio_|submit_bio|nfs|ext4|xfs|btrfs|wait_on_page|folio_wait)/i;
  const frameKind = new Int8Array(nFrames).fill(-1);  // 0 none, 1 lock, 2 I/O; -1 unknown yet
  function kindOfFrame(f) {
    if (frameKind[f] < 0) frameKind[f] = LOCK.test(frames[f]) ? 1 : IO.test(frames[f]) ? 2 : 0;
    return frameKind[f];
  }
  function waitKind(stack) {  // 1 lock, 2 I/O, 0 neither: the frame nearest the leaf decides
    for (let i = stackStart[stack + 1]; i-- > stackStart[stack];) {
      const k = kindOfFrame(stackFrames[i]);
      if (k) return k;
    }
    return 0;
  }
  // The order of groups (README, "The moment view"): D first, then lock waits, I/O waits
  // (not R, with such a frame), then R, then other sleeps, then the rest.
  function rankOf(stateChar, stack) {
    if (stateChar === "D") return [0, "blocked (D)", "blocked", "blocked here"];
    if (stateChar !== "R") {
      const k = waitKind(stack);
      if (k === 1) return [1, "lock wait, " + stateChar, "lock", "waiting here"];
      if (k === 2) return [2, "I/O wait, " + stateChar, "io", "waiting here"];
    }
    if (stateChar === "R") return [3, "on CPU or runnable (R)", "running", "running here"];
    if (stateChar === "S") return [4, "sleeping (S)", "sleeping", "sleeping here"];
    return [5, "state " + stateChar, "other", "here"];
  }

  let lastMoment = null;  // for tests
  function showMoment() {
    const out = document.getElementById("moment");
    const info = document.getElementById("moment-info");
    const titleEl = document.getElementById("moment-title");
    out.textContent = "";
    if (momentRound < 0 || momentRound >= nRounds) {
      titleEl.textContent = "Moment";
      info.textContent = "Click a cell: every thread's state and stack in the sample nearest to it.";
      lastMoment = null;
      return;
    }
    const t0 = performance.now();
    const r = momentRound;
    const p = roundProc[r];
    const groups = new Map();
    let threads = 0;
    for (let t = 0; t < nThreads; t++) {
      if (!pass[t] || (procPrefix.length && threadProc[t] !== p)) continue;
      const k = runAt(t, r);
      if (k < 0) continue;
      threads++;
      const key = runStack[k] * 128 + runState[k];
      let g = groups.get(key);
      if (!g) {
        const st = D.states[runState[k]];
        g = { stack: runStack[k], state: st, rank: rankOf(st, runStack[k]), runs: [], longest: 0 };
        groups.set(key, g);
      }
      g.runs.push(k);
      g.longest = Math.max(g.longest, roundTime[r] - roundTime[runStart[k]]);
    }
    const list = Array.from(groups.values());
    list.sort((a, b) => a.rank[0] - b.rank[0] || b.runs.length - a.runs.length || b.longest - a.longest ||
      a.stack - b.stack || (a.state < b.state ? -1 : a.state > b.state ? 1 : 0));
    titleEl.textContent = "Moment: " + timeText(roundTime[r]);
    info.textContent = "Sample " + thousands(r + 1) + " of " + thousands(nRounds) + " (pid " + D.procs[p] + "): " +
      thousands(threads) + " threads in " + thousands(list.length) + " groups" +
      (filterRe ? " (threads matching /" + filterText + "/)" : "") +
      ". Waits first: D, then lock waits (futex, mutex, lock, sem, condition-variable frames), I/O waits (read, write, poll, recv, send, fsync, io_, block-layer frames), then R, then other sleeps. Durations: since the first sample that saw the thread in this state and stack.";
    const html = [];
    list.forEach(function (g, index) {
      const n = g.runs.length;
      const leaf = stackStart[g.stack + 1] > stackStart[g.stack] ? frames[stackFrames[stackStart[g.stack + 1] - 1]] : "(no frames)";
      // The first groups open, the others one click away.
      html.push('<details class="group ' + g.rank[2] + '" data-threads="' + n + '" data-state="' + esc(g.state) + '"' +
        (index < 4 ? " open" : "") + ">");
      html.push('<summary class="head">' + n + (n === 1 ? " thread " : " threads ") + esc(g.rank[3]) +
        ' <span class="why">\u00b7 ' + esc(g.rank[1]) + " \u00b7 for up to " + esc(durationText(g.longest)) +
        " \u00b7 in " + esc(leaf) + "</span></summary>");
      html.push('<ol class="stack" reversed>');
      for (let i = stackStart[g.stack + 1]; i-- > stackStart[g.stack];) html.push("<li>" + esc(frames[stackFrames[i]]) + "</li>");
      html.push("</ol><ul class=\"threads\">");
      g.runs.sort((a, b) => runStart[a] - runStart[b] || runThread[a] - runThread[b]);
      for (const k of g.runs) {
        const t = runThread[k];
        const since = roundTime[r] - roundTime[runStart[k]];
        const first = threadFirstRun(t) === k;
        let how;
        if (since === 0) how = first ? "from this sample on (its first)" : "since this sample (the one before differs)";
        else how = "for " + (first ? "\u2265 " : "") + durationText(since) + (first ? " (since its first sample)" : "");
        html.push("<li>" + esc(threadLabel(t)) + ": " + esc(g.state) + " " + esc(how) + "</li>");
      }
      html.push("</ul></details>");
    });
    out.innerHTML = html.join("");
    lastMoment = { round: r, time_ns: roundTime[r], threads: threads,
                   groups: list.map((g) => ({ threads: g.runs.length, state: g.state, kind: g.rank[2],
                                              leaf: stackStart[g.stack + 1] > stackStart[g.stack]
                                                ? frames[stackFrames[stackStart[g.stack + 1] - 1]] : "" })),
                   ms: performance.now() - t0 };
  }

  // ---- URL state ----

  let restoring = false;
  function rangeParam(r) {
    return seconds(r[0]) + "-" + seconds(r[1]);
  }
  function parseRange(s) {
    const m = /^(\d+(?:\.\d+)?)-(\d+(?:\.\d+)?)$/.exec(s || "");
    if (!m) return null;
    const a = Math.round(parseFloat(m[1]) * NS), b = Math.round(parseFloat(m[2]) * NS);
    return b > a ? [a, b] : null;
  }
  function updateUrl() {
    if (restoring || !window.history || !window.URLSearchParams) return;
    try {
      const p = new URLSearchParams(window.location.search);
      for (const k of ["r", "b", "m", "c", "t"]) p.delete(k);
      if (range) p.set("r", rangeParam(range));
      if (baseline) p.set("b", rangeParam(baseline));
      if (momentRound >= 0) p.set("m", seconds(roundTime[momentRound]));
      if (mode !== DEFAULT_MODE) p.set("c", mode);
      if (filterText) p.set("t", filterText);
      const q = p.toString();
      window.history.replaceState(window.history.state, "", window.location.pathname + (q ? "?" + q : "") + window.location.hash);
    } catch (e) {
      // Sandboxed frames may refuse to rewrite the URL: the state stays in the page.
    }
  }

  // ---- interaction ----

  function refreshAll() {
    countCells();
    draw();
    showFlame();
    showMoment();
    updateUrl();
  }
  function cellRange(a, b) {
    const lo = Math.min(a, b), hi = Math.max(a, b);
    return [lo * rowNs, (hi + 1) * rowNs];
  }
  function setRange(r, asBaseline) {
    if (asBaseline) baseline = r;
    else range = r;
    draw();
    showFlame();
    updateUrl();
  }
  function setMoment(round) {
    momentRound = nRounds === 0 ? -1 : Math.max(-1, Math.min(nRounds - 1, round));
    draw();
    showMoment();
    updateUrl();
  }
  function momentNearCell(c) {
    setMoment(nearestRound(c * rowNs + rowNs / 2));
  }

  let drag = null;  // {from, to, baseline}
  canvas.addEventListener("mousedown", function (e) {
    const c = cellAt(e);
    if (c < 0 || e.button !== 0) return;
    e.preventDefault();
    wrap.focus({ preventScroll: true });
    drag = { from: c, to: c, baseline: e.shiftKey || e.altKey };
    cursor = c;
    anchor = c;
  });
  canvas.addEventListener("mousemove", function (e) {
    const c = cellAt(e);
    const hover = document.getElementById("hover");
    if (c >= 0) hover.textContent = cellText(c);
    if (drag && c >= 0 && c !== drag.to) {
      drag.to = c;
      cursor = c;
      if (drag.baseline) baseline = cellRange(drag.from, drag.to);
      else range = cellRange(drag.from, drag.to);
      draw();
    }
  });
  canvas.addEventListener("mouseleave", function () {
    document.getElementById("hover").innerHTML = "&nbsp;";
  });
  window.addEventListener("mouseup", function () {
    if (!drag) return;
    const d = drag;
    drag = null;
    setRange(cellRange(d.from, d.to), d.baseline);
    if (d.from === d.to && !d.baseline) momentNearCell(d.from);
  });

  wrap.addEventListener("focus", draw);
  wrap.addEventListener("blur", draw);
  wrap.addEventListener("keydown", function (e) {
    if (e.ctrlKey || e.metaKey || e.altKey) return;
    const key = e.key;
    let move = 0;
    if (key === "ArrowUp") move = -1;
    else if (key === "ArrowDown") move = 1;
    else if (key === "ArrowLeft") move = -rows;
    else if (key === "ArrowRight") move = rows;
    if (move) {
      e.preventDefault();
      const next = cursor + move;
      if (next < 0 || next >= nCells) return;
      if (e.shiftKey) {
        if (anchor < 0) anchor = cursor;
        cursor = next;
        range = cellRange(anchor, cursor);
      } else {
        cursor = next;
        anchor = -1;
      }
      draw();
      document.getElementById("hover").textContent = cellText(cursor);
      return;
    }
    if (key === "Enter") {
      e.preventDefault();
      setRange(range && anchor >= 0 ? range : cellRange(cursor, cursor), false);
    } else if (key === "m" || key === "M") {
      e.preventDefault();
      momentNearCell(cursor);
    } else if (key === "b" || key === "B") {
      e.preventDefault();
      if (range) {
        baseline = range;
        range = null;
        anchor = -1;
        draw();
        showFlame();
        updateUrl();
      }
    } else if (key === "," || key === "<") {
      e.preventDefault();
      if (momentRound > 0) setMoment(momentRound - 1);
    } else if (key === "." || key === ">") {
      e.preventDefault();
      if (momentRound >= 0 && momentRound + 1 < nRounds) setMoment(momentRound + 1);
    } else if (key === "Escape" || key === "Esc") {
      e.preventDefault();
      range = baseline = null;
      anchor = -1;
      draw();
      showFlame();
      updateUrl();
    }
  });

  for (const input of document.querySelectorAll("input[name=mode]")) {
    input.addEventListener("change", function () {
      setMode(input.value);
      draw();
      showFlame();
      updateUrl();
    });
  }
  const filterEl = document.getElementById("filter");
  let filterTimer = 0;
  filterEl.addEventListener("input", function () {
    clearTimeout(filterTimer);
    filterTimer = setTimeout(function () {
      setFilter(filterEl.value);
      refreshAll();
    }, 150);
  });
  if (window.matchMedia) {
    const mq = window.matchMedia("(prefers-color-scheme: dark)");
    if (mq.addEventListener) mq.addEventListener("change", draw);
  }
  window.addEventListener("resize", function () {
    const old = cw;
    geometry();
    if (cw !== old) draw();
  });

  // ---- start ----

  (function start() {
    const infoEl = document.getElementById("info");
    const span = nRounds ? roundTime[nRounds - 1] : 0;
    infoEl.textContent = (D.source ? D.source + ": " : "") + thousands(nRounds) + " samples over " +
      durationText(span) + ", " + thousands(nThreads) + " threads, " + thousands(nRuns) + " changes; columns of " +
      durationText(colNs) + ", rows of " + durationText(rowNs) + (D.chosen ? " (for " + D.chosen + ")" : "") +
      (D.real_ns !== "0" ? "; time 0 = " + wallClock(0) : "") + ".";
    if (D.damage) {
      const el = document.getElementById("damage");
      el.textContent = "The file is damaged: " + D.damage + ". The samples before it are shown.";
      el.hidden = false;
    }
    const p = window.URLSearchParams ? new URLSearchParams(window.location.search) : null;
    restoring = true;
    try {
      setMode(p ? p.get("c") : DEFAULT_MODE);
      filterText = p ? p.get("t") || "" : "";
      filterEl.value = filterText;
      setFilter(filterText);
      geometry();
      countCells();
      range = p ? parseRange(p.get("r")) : null;
      baseline = p ? parseRange(p.get("b")) : null;
      const m = p ? parseFloat(p.get("m")) : NaN;
      momentRound = isFinite(m) && nRounds ? nearestRound(Math.round(m * NS)) : -1;
      if (range) cursor = cellsOf(range)[0];
      draw();
      if (range) showFlame();
      if (momentRound >= 0) showMoment();
    } finally {
      restoring = false;
    }
    // The path tree the flamegraphs need, built when the page is idle.
    setTimeout(buildTree, 0);
  })();

  // For tests and benchmarks (tests/browser/heatmap.test.mjs): read-only views.
  window.hearthHeatmap = {
    cells: () => ({ rows: rows, columns: nColumns, rowNs: rowNs, totals: Array.from(totals),
                    byClass: counts.map((c) => Array.from(c)) }),
    cellRect: (c) => cellRect(c),
    lastFlame: () => lastFlame,
    lastMoment: () => lastMoment,
    runs: () => nRuns,
  };
})();

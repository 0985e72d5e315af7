// A range's flamegraph laid out as render/flame/layout.cpp lays out `hearth flame`'s (part of the
// heatmap page's script, see heatmap_data.js): the same geometry, titles, colours and pruning,
// with the data layout of templates/FLAME_DOM.md; two ranges: hearth diff's titles and colours.
const MAX_FRAMES = 30000;   // as `hearth flame --max-frames`
const MIN_WIDTH_PX = 0.1;   // as `hearth flame --minwidth`
const LAZY_AFTER = 3000;    // frames; then only frames >= 1 px wide get elements at first
// px: then the frames narrower than this are painted on a canvas, not elements (flame.js,
// FLAME_DOM.md "paint"): none of them has a label (3 characters of 12 * 0.59 px need 21.24 px).
// A range of a busy recording draws ~3,500 frames of 1-20 px: as elements, the browser's work on
// them was most of a range's time.
const PAINT_BELOW = 21;

function roundPx(v) {
  return Math.round(v * 10) / 10;
}
function formatPx(v) {
  const tenths = Math.round(v * 10);
  if (tenths === 0) return "0";
  const a = Math.abs(tenths);
  return (tenths < 0 ? "-" : "") + Math.floor(a / 10) + (a % 10 ? "." + (a % 10) : "");
}

// The K-th largest (K >= 1) of the first N values of V, a Float64Array it reorders: quickselect.
function kthLargest(v, n, k) {
  let lo = 0, hi = n - 1;
  const want = k - 1;  // index in descending order
  while (lo < hi) {
    const a = v[lo], b = v[(lo + hi) >> 1], c = v[hi];
    const pivot = a < b ? (b < c ? b : a < c ? c : a) : (a < c ? a : b < c ? c : b);  // median of three
    let i = lo, j = hi;
    while (i <= j) {
      while (v[i] > pivot) i++;
      while (v[j] < pivot) j--;
      if (i <= j) {
        const t = v[i];
        v[i++] = v[j];
        v[j--] = t;
      }
    }
    if (want <= j) hi = j;
    else if (want >= i) lo = i;
    else return v[want];
  }
  return v[want];
}

// Which nodes to draw (render/flame/layout.cpp frames_to_keep): those at least minCount
// wide, and of more than MAX_FRAMES, the widest, ties by depth, then by hearth flame's order.
function keepRule(T, total, minCount) {
  const rule = { min: minCount, tie: -1, tieKept: null };
  // The widths of the frames wide enough (> 0 and >= minCount), in one pass.
  const widths = new Float64Array(T.n);
  let nw = 0;
  for (let i = 1; i < T.n; i++) {
    const w = total[i];
    if (w > 0 && w >= minCount) widths[nw++] = w;
  }
  if (nw + 1 <= MAX_FRAMES) return rule;
  const budget = MAX_FRAMES - 1;
  const cut = kthLargest(widths, nw, budget);  // the budget-th widest (> 0, >= minCount)
  let room = budget;
  const tied = [];
  for (let i = 1; i < T.n; i++) {
    const w = total[i];
    if (w > cut) room--;
    else if (w === cut) tied.push(i);
  }
  // Shallowest first, then as `hearth flame` numbers its nodes: in the order of the folded lines
  // it reads (`hearth heatmap --from --to` writes them sorted), i.e. by the first line through
  // each: the path, then " " when a line ends there (self samples), else ";" (a child follows).
  // Only the depth that the room ends in needs that order (its paths, built for it alone).
  tied.sort((a, b) => T.depth[a] - T.depth[b] || a - b);
  if (room > 0 && room < tied.length) {
    const d = T.depth[tied[room - 1]];
    let lo = room - 1, hi = room;
    while (lo > 0 && T.depth[tied[lo - 1]] === d) lo--;
    while (hi < tied.length && T.depth[tied[hi]] === d) hi++;
    const key = new Map();
    for (let j = lo; j < hi; j++) {
      const i = tied[j];
      const parts = [];
      for (let a = i; a > 0; a = T.parent[a]) parts.push(frames[T.frame[a]]);
      key.set(i, parts.reverse().join(";") + (total[i] > childSum(T, total, i) ? " " : ";"));
    }
    const group = tied.slice(lo, hi).sort((a, b) => (key.get(a) < key.get(b) ? -1 : key.get(a) > key.get(b) ? 1 : 0));
    for (let j = lo; j < hi; j++) tied[j] = group[j - lo];
  }
  rule.min = cut;
  rule.tie = cut;
  rule.tieKept = new Uint8Array(T.n);
  for (let j = 0; j < room && j < tied.length; j++) rule.tieKept[tied[j]] = 1;
  return rule;
}

// A frame's label at WIDTH px (FLAME_DOM.md, "Shortening C++ names"; render/flame/names.h
// fit_label): the name, without parameter lists, without template arguments, else cut + "..".
function collapseGroups(s, open, close, keep) {  // each outermost OPEN...CLOSE group shortened
  if (s.indexOf(open) < 0 && s.indexOf(close) < 0) return s;
  let out = "", level = 0, start = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s[i];
    if (c === open) {
      if (level++ === 0) start = i;
    } else if (c === close) {
      if (level === 0) return s;  // unbalanced: unchanged
      if (--level === 0) {
        const inner = s.slice(start + 1, i);
        out += open + (inner === "" || inner === keep ? inner : "\u2026") + close;
      }
    } else if (level === 0) {
      out += c;
    }
  }
  return level === 0 ? out : s;
}
const codePoints = (s) => (/[\uD800-\uDFFF]/.test(s) ? Array.from(s).length : s.length);
function labelForms(name) {  // [name, its length, without parameters, length, ... templates, length]
  const noParams = collapseGroups(name, "(", ")", "anonymous namespace");
  const noTemplates = collapseGroups(noParams, "<", ">", null);
  return [name, codePoints(name), noParams, codePoints(noParams), noTemplates, codePoints(noTemplates)];
}
let labelCache = { strings: null, forms: [] };  // the forms of each name of one graph, by string id
function fitLabel(nameId, width) {
  const chars = Math.floor(width / (12 * 0.59));
  if (!(chars >= 3)) return "";
  const f = labelCache.forms[nameId] || (labelCache.forms[nameId] = labelForms(labelCache.strings[nameId]));
  if (f[1] <= chars) return f[0];
  if (f[3] <= chars) return f[2];
  if (f[5] <= chars) return f[4];
  return Array.from(f[4]).slice(0, chars - 2).join("") + "..";
}

// The flamegraph SVG of the range totals TOTAL, as `hearth flame` writes it (FLAME_DOM.md): the
// frame data, and elements for the frames drawn at first (all, or those at least `lazy` px wide)
// with their labels, which the browser's parser makes faster than a script would; no style or
// script (the host's, heatmap_flame.js). BASE: the baseline's totals for a differential graph
// (hearth diff's look). Returns {svg: the markup, data: the frame data, height, frames: how many}.
function flameSvg(total, base, width, title, subtitle) {
  const T = buildTree();
  const timeMax = total[0];
  const xpad = 10, fh = 16, fs = 12;
  const wpt = (width - 2 * xpad) / timeMax;
  const t0 = performance.now();
  const rule = keepRule(T, total, MIN_WIDTH_PX / wpt);
  const t1 = performance.now();
  // Place: depth-first, self time left of the children. The children are pushed right to left,
  // each at its parent's end less the children right of it, so the leftmost comes out first.
  const placedNode = new Int32Array(T.n), placedStart = new Float64Array(T.n);
  const todoNode = new Int32Array(T.n), todoStart = new Float64Array(T.n);
  let nPlaced = 0, nTodo = 1;
  let maxDepth = 0;
  todoNode[0] = 0;
  todoStart[0] = 0;
  const min = rule.min, tie = rule.tie, tieKept = rule.tieKept;
  while (nTodo > 0) {
    nTodo--;
    const node = todoNode[nTodo], start = todoStart[nTodo];
    placedNode[nPlaced] = node;
    placedStart[nPlaced++] = start;
    if (T.depth[node] > maxDepth) maxDepth = T.depth[node];
    let offset = start + total[node];
    for (let k = T.kids[node + 1] - 1; k >= T.kids[node]; k--) {
      const c = T.list[k];
      const t = total[c];
      offset -= t;
      if (t > 0 && t >= min && (t !== tie || tieKept[c])) {
        todoNode[nTodo] = c;
        todoStart[nTodo++] = offset;
      }
    }
  }

  const t2 = performance.now();
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
  const data = { v: 1, lazy: nPlaced > LAZY_AFTER ? 1 : 0, paint: nPlaced > LAZY_AFTER ? PAINT_BELOW : 0,
                 h: fh - 1, strings: strings, fills: fills,
                 x: new Float64Array(nPlaced), y: new Float64Array(nPlaced), w: new Float64Array(nPlaced),
                 name: new Uint32Array(nPlaced), suffix: new Uint32Array(nPlaced), fill: new Uint32Array(nPlaced),
                 class: [], stroke: [] };
  const escaped = [];  // by string id: the string, HTML-escaped
  const escOf = (id) => escaped[id] !== undefined ? escaped[id] : (escaped[id] = esc(strings[id]));
  // str() once per distinct frame name and per distinct count (a plain graph's suffix
  // depends on the count only): the strings come out as before, with far fewer hashings.
  const nameIdOf = new Int32Array(nFrames + 1).fill(-1);  // by frame index + 1 (0: "all")
  const suffixIdOf = new Map();                           // count -> id (plain graphs)
  const fillIdOfD = new Int32Array(D.fills.length).fill(-1);  // the page's fill index -> id
  const threadFrames = [];
  const elements = [];
  labelCache = { strings: strings, forms: [] };
  for (let k = 0; k < nPlaced; k++) {
    const node = placedNode[k], start = placedStart[k];
    const d = T.depth[node];
    const count = total[node];
    const x1 = xpad + start * wpt, x2 = xpad + (start + count) * wpt;
    const y1 = gh - ypad2 - (d + 1) * fh + 1;
    const fi = node === 0 ? 0 : T.frame[node] + 1;
    let nameId = nameIdOf[fi];
    if (nameId < 0) nameId = nameIdOf[fi] = str(node === 0 ? "all" : stripAnnotation(frames[fi - 1]));
    let suffix, suffixId = -1, fill, fillId = -1, cls = "", stroked = false;
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
      const di = node === 0 ? D.allfill : isThread ? D.tfill[T.frame[node]] : D.ffill[T.frame[node]];
      fill = D.fills[di];
      fillId = fillIdOfD[di] >= 0 ? fillIdOfD[di] : (fillIdOfD[di] = fillOf(fill));
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
        stroked = true;
      }
    }
    // The numbers formatPx writes: tenths of a px (JSON writes the nearest decimal).
    const xw = roundPx(x1);
    data.x[k] = roundPx(xw) + 0;
    data.y[k] = roundPx(y1) + 0;
    data.w[k] = roundPx(roundPx(x2) - xw) + 0;
    data.name[k] = nameId;
    if (suffixId < 0) suffixId = str(suffix);
    data.suffix[k] = suffixId;
    data.fill[k] = fillId >= 0 ? fillId : fillOf(fill);
    if (cls) data.class.push(k, cls);
    if (isThread) threadFrames.push(k);
    // The element, as `hearth flame`'s SVG writes it, of a frame drawn at first.
    const wk = data.w[k];
    if (data.lazy && !(wk >= data.lazy && wk >= data.paint)) continue;
    const label = fitLabel(nameId, wk);
    // No white space between elements: a text node each, 3,000 of them, for nothing.
    elements.push("<g" + (cls ? ' class="' + cls + '"' : "") + "><title>" + escOf(nameId) + escOf(suffixId) +
      '</title><rect x="' + formatPx(data.x[k]) + '" y="' + formatPx(data.y[k]) + '" width="' + formatPx(wk) +
      '" height="' + (fh - 1) + '" fill="' + fill + (stroked ? '" stroke="#6a009a" stroke-width="1.5' : "") + '"/>' +
      (label ? '<text x="' + formatPx(x1 + 3) + '" y="' + formatPx(3 + y1 + (fh - 1) / 2) + '">' + esc(label) + "</text>" : "") + "</g>");
  }

  const t3 = performance.now();
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
      const node = placedNode[k];
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
  const text = (x, y, s, id, extra) => '<text id="' + id + '" x="' + formatPx(x) + '" y="' + formatPx(y) + '"' +
    (extra || "") + ">" + esc(s) + "</text>\n";
  let svg = '<svg version="1.1" width="' + W + '" height="' + H + '" viewBox="0 0 ' + W + " " + H +
    '" xmlns="http://www.w3.org/2000/svg" class="hearth flame" data-xpad="10" data-fontsize="12"' +
    ' data-fontwidth="0.59" data-frameheight="16" data-inverted="0" data-countname="samples"' +
    ' data-nametype="Function:" data-total="' + String(timeMax) + '"' + (base ? ' data-diff="new"' : "") + ">\n" +
    '<defs><linearGradient id="background" y1="0" y2="1" x1="0" x2="0"><stop stop-color="' + bgTop +
    '" offset="5%"/><stop stop-color="' + bgBottom + '" offset="95%"/></linearGradient></defs>\n' +
    '<rect id="bg" x="0" y="0" width="' + W + '" height="' + H + '" fill="url(#background)"/>\n' +
    text(Math.floor(width / 2), fs * 2, title, "title", ' font-size="17" text-anchor="middle"') +
    (subtitle ? text(Math.floor(width / 2), fs * 4, subtitle, "subtitle", ' text-anchor="middle"') : "") +
    text(xpad, gh - ypad2 / 2, " ", "details") +
    text(xpad, fs * 2, "Reset Zoom", "unzoom", ' class="hide"') +
    text(width - xpad - 100, fs * 2, "Search", "search") +
    text(width - xpad - 16, fs * 2, "ic", "ignorecase") +
    text(width - xpad - 100, gh - ypad2 / 2, " ", "matched") +
    '<metadata id="frames-data"></metadata>\n' +
    '<g id="frames">' + elements.join("") + "</g>\n" + (legend ? '<g id="threads">\n' + legend + "</g>\n" : "") + "</svg>\n";
  // parts: ms spent choosing the frames, placing them, on their data and elements, the rest.
  return { svg: svg, data: data, height: Math.ceil(height), frames: nPlaced, elements: elements.length,
           parts: { keep: t1 - t0, place: t2 - t1, frames: t3 - t2, rest: performance.now() - t3, nodes: T.n } };
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

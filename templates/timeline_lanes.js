// hearth timeline page: the rows below the all-threads lane (processes, pools, lanes; the
// thread filter) and the canvas's geometry.

// ---- rows: what is drawn below the all-threads lane ----

const nGroups = D.groups.name.length;
const groupOfLane = new Int32Array(nLanes);
for (let g = 0; g < nGroups; g++) {
  for (let k = 0; k < D.groups.count[g]; k++) groupOfLane[D.groups.first[g] + k] = g;
}
let grouped = !!D.group;
const opened = new Set();
let filterText = "";
let filterRe = null;
const shown = new Uint8Array(nLanes).fill(1);  // passes the filter
let rows = [];       // {kind: "proc" | "lane" | "group", lane, group, proc, top, h, members}
let contentH = 0;    // px: every row
function buildRows() {
  for (let l = 0; l < nLanes; l++) {
    shown[l] = !filterRe || filterRe.test(laneName[l]) || filterRe.test(String(laneTid[l])) ? 1 : 0;
  }
  rows = [];
  let top = 0;
  const push = (row) => {
    row.top = top;
    top += row.h;
    rows.push(row);
  };
  const multi = D.procs.pid.length > 1;
  let lastProc = -1;
  for (let g = 0; g < nGroups; g++) {
    const first = D.groups.first[g], count = D.groups.count[g];
    const members = [];
    for (let k = 0; k < count; k++) if (shown[first + k]) members.push(first + k);
    if (!members.length) continue;
    const p = laneProc[first];
    if (multi && p !== lastProc) {
      let n = 0;
      for (let l = 0; l < nLanes; l++) if (laneProc[l] === p && shown[l]) n++;
      push({ kind: "proc", proc: p, h: HEAD_H, members: n });
    }
    lastProc = p;
    if (grouped && count > 1) {
      push({ kind: "group", group: g, h: HEAD_H, members: members });
      if (!opened.has(g)) continue;
      for (const l of members) push({ kind: "lane", lane: l, h: LANE_H, indent: true });
    } else {
      for (const l of members) push({ kind: "lane", lane: l, h: LANE_H, indent: false });
    }
  }
  contentH = top;
}

// ---- the canvas ----

const wrap = document.getElementById("wrap");
const stage = document.getElementById("stage");
const spacer = document.getElementById("spacer");
const canvas = document.getElementById("tl");
const overlay = document.getElementById("ov");
const tip = document.getElementById("tip");
const ctx = canvas.getContext("2d");
const octx = overlay.getContext("2d");
const hasWall = D.real_ns !== "0";
const hasSlots = nSl > 0 && D.whole_from > D.window[0];
const axisH = hasWall ? 38 : 26;
const keptY = axisH;
const mergedY = keptY + (hasSlots ? KEPT_H + 2 : 0);
const lanesY = mergedY + MERGED_H + 8;
let cssW = 0, cssH = 0, dpr = 1;
let v0 = 0, v1 = Math.max(1, span);
let colors = null;

function cssColor(name) {
  return getComputedStyle(document.documentElement).getPropertyValue(name).trim();
}
// "#rrggbb" or "rgb(a)" -> a little-endian RGBA word for the pixel buffer.
function packed(css) {
  const probe = packed.ctx || (packed.ctx = document.createElement("canvas").getContext("2d"));
  probe.fillStyle = "#000";
  probe.fillStyle = css;
  const s = probe.fillStyle;
  let r, g, b;
  if (s[0] === "#") {
    r = parseInt(s.slice(1, 3), 16);
    g = parseInt(s.slice(3, 5), 16);
    b = parseInt(s.slice(5, 7), 16);
  } else {
    const m = /(\d+),\s*(\d+),\s*(\d+)/.exec(s) || [0, 0, 0, 0];
    r = +m[1];
    g = +m[2];
    b = +m[3];
  }
  return ((255 << 24) | (b << 16) | (g << 8) | r) >>> 0;
}
function readColors() {
  colors = {
    fg: cssColor("--fg"), muted: cssColor("--muted"), bg: cssColor("--bg"), panel: cssColor("--panel"),
    line: cssColor("--line"), cursor: cssColor("--cursor"), select: cssColor("--select"),
    accent: cssColor("--accent"),
    pPanel: packed(cssColor("--panel")), pLane: packed(cssColor("--lane")),
    pLaneAlt: packed(cssColor("--lane-alt")), pTick: packed(cssColor("--tick")),
    pSlots: packed(cssColor("--slots")), pWhole: packed(cssColor("--whole")),
    pLine: packed(cssColor("--line")), pMuted: packed(cssColor("--muted")),
    pClass: CLASS_COLORS.map(packed),
  };
}

function plotW() {
  return Math.max(50, cssW - LABEL_W - RIGHT);
}
function xOf(t) {
  return LABEL_W + (t - v0) / (v1 - v0) * plotW();
}
function timeAt(x) {
  return v0 + (x - LABEL_W) / plotW() * (v1 - v0);
}
function viewportH() {
  const top = wrap.getBoundingClientRect().top + window.scrollY;
  return Math.min(lanesY + contentH + 6, Math.max(300, window.innerHeight - Math.min(top, 140) - 16));
}
function layout() {
  cssW = Math.max(500, wrap.clientWidth);
  cssH = Math.round(viewportH());
  dpr = window.devicePixelRatio || 1;
  for (const c of [canvas, overlay]) {
    c.width = Math.round(cssW * dpr);
    c.height = Math.round(cssH * dpr);
    c.style.width = cssW + "px";
    c.style.height = cssH + "px";
  }
  stage.style.height = cssH + "px";
  wrap.style.height = cssH + 2 + "px";
  spacer.style.height = Math.max(0, lanesY + contentH - cssH) + "px";
}

let img = null, px = null;
let acc = null, merged = null, groupAcc = null;
let lastDrawMs = 0, draws = 0, firstDrawAt = 0;

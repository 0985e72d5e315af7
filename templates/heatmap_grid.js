// The heatmap itself (part of the heatmap page's script, see heatmap_data.js): the canvas of
// cells coloured by count (render/time/heat_picture.cpp's colours), the selection and the
// moment drawn over it, the axes, and the cell under a pointer.
// ---- the heatmap ----

const LEFT = 70, TOP = 8, AXIS = 20;
const canvas = document.getElementById("heat");
const wrap = document.getElementById("heat-wrap");
let cw = 4, ch = 8;
let maxCell = 1;

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
// The cells and the axes, drawn on a canvas of their own (LAYER) only when what they show
// changes (the counts, the colour mode, the geometry, dark or light), then copied: a day has
// 86,400 cells, and every selection, moment or cursor move draws the heatmap again.
const layer = document.createElement("canvas");
let layerKey = "";
function drawLayer(w, h, dpr, isDark) {
  layer.width = canvas.width;
  layer.height = canvas.height;
  const g = layer.getContext("2d");
  g.setTransform(dpr, 0, 0, dpr, 0, 0);
  g.fillStyle = isDark ? "#2a2a2a" : "#f6f6f6";
  g.fillRect(0, 0, w, h);
  g.fillStyle = isDark ? "#333" : "#fff";
  g.fillRect(LEFT, TOP, nColumns * cw, rows * ch);
  maxCell = 1;
  for (let i = 0; i < nCells; i++) if (cellValue(i) > maxCell) maxCell = cellValue(i);
  const gap = cw >= 4 && ch >= 4 ? 1 : 0;
  // The cells by value (a counting sort): one colour set per value, not per cell (a day has
  // 86,400 cells; setting a fill style parses it).
  const first = new Uint32Array(maxCell + 2);
  for (let i = 0; i < nCells; i++) first[cellValue(i) + 1]++;
  for (let v = 0; v <= maxCell; v++) first[v + 1] += first[v];
  const order = new Uint32Array(nCells), next = first.slice(0, maxCell + 1);
  for (let i = 0; i < nCells; i++) order[next[cellValue(i)]++] = i;
  for (let v = 1; v <= maxCell; v++) {
    if (first[v] === first[v + 1]) continue;
    g.fillStyle = heatColor(v / maxCell);
    for (let k = first[v]; k < first[v + 1]; k++) {
      const c = order[k];
      g.fillRect(LEFT + Math.floor(c / rows) * cw, TOP + (c % rows) * ch, cw - gap, ch - gap);
    }
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
function draw() {
  const dpr = window.devicePixelRatio || 1;
  const w = LEFT + nColumns * cw + 20, h = TOP + rows * ch + AXIS;
  if (canvas.width !== Math.round(w * dpr) || canvas.height !== Math.round(h * dpr)) {
    canvas.width = Math.round(w * dpr);
    canvas.height = Math.round(h * dpr);
    canvas.style.width = w + "px";
    canvas.style.height = h + "px";
  }
  const isDark = dark();
  const key = [canvas.width, canvas.height, dpr, cw, ch, isDark, mode, countsVersion].join();
  if (key !== layerKey) {
    drawLayer(w, h, dpr, isDark);
    layerKey = key;
  }
  const g = canvas.getContext("2d");
  g.setTransform(1, 0, 0, 1, 0, 0);
  g.drawImage(layer, 0, 0);
  g.setTransform(dpr, 0, 0, dpr, 0, 0);
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

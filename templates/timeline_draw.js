// hearth timeline page: a frame. Stripes and ticks go into one ImageData (fast for a million
// intervals); the axis and the labels are drawn on top as text.

// Paints BUF's columns (fractions, divided by DIV) as stacked stripes into rows [Y0, Y0 + H)
// of the pixel buffer, clipped to [CLIP0, CLIP1).
function paintStripes(buf, div, x0, cols, y0, h, clip0, clip1, bgWord) {
  const W = img.width;
  const pc = colors.pClass;
  const ya = Math.max(y0, clip0), yb = Math.min(y0 + h, clip1);
  if (ya >= yb) return;
  for (let c = 0; c < cols; c++) {
    const o = c * 6;
    let total = 0;
    for (let k = 0; k < 6; k++) total += buf[o + k];
    total /= div;
    const x = x0 + c;
    if (total < 0.002) {
      for (let y = ya; y < yb; y++) px[y * W + x] = bgWord;
      continue;
    }
    // One class fills it: one colour.
    let single = -1;
    for (let k = 0; k < 6; k++) {
      if (buf[o + k] / div >= total - 1e-6) { single = k; break; }
    }
    if (single >= 0 && total > 0.985) {
      const word = pc[single];
      for (let y = ya; y < yb; y++) px[y * W + x] = word;
      continue;
    }
    let cum = 0, yPrev = y0 + h;
    for (let s = 0; s < 6; s++) {
      const k = STACK_ORDER[s];
      const f = buf[o + k] / div;
      if (f <= 0) continue;
      cum += f;
      const yTop = y0 + h - Math.round(Math.min(1, cum) * h);
      const word = pc[k];
      for (let y = Math.max(yTop, ya); y < Math.min(yPrev, yb); y++) px[y * W + x] = word;
      yPrev = yTop;
    }
    for (let y = ya; y < Math.min(yPrev, yb); y++) px[y * W + x] = bgWord;
  }
}

// Marks lane L's sample ticks along rows [Y0, Y0 + H) (clipped).
function paintTicks(l, x0, cols, v0d, colNs, y0, h, clip0, clip1) {
  const runs = laneRuns[l];
  if (!runs || !runs.length) return;
  const W = img.width, word = colors.pTick;
  const ya = Math.max(y0, clip0), yb = Math.min(y0 + h, clip1);
  if (ya >= yb) return;
  const vEnd = v0d + cols * colNs;
  const dense = colNs > procPeriod[runProc[runs[0]]];
  const mark = (c0, c1) => {
    if (c0 < 0) c0 = 0;
    if (c1 > cols - 1) c1 = cols - 1;
    for (let y = ya; y < yb; y++) {
      const row = y * W + x0;
      for (let c = c0; c <= c1; c++) px[row + c] = word;
    }
  };
  if (dense) {
    // More than a sample to a column: a band over the spans the thread was sampled in.
    const spans = laneSpans[l];
    for (let k = 0; k < spans.length; k += 2) {
      if (spans[k + 1] < v0d || spans[k] > vEnd) continue;
      mark(Math.floor((spans[k] - v0d) / colNs), Math.floor((spans[k + 1] - v0d) / colNs));
    }
    return;
  }
  for (let k = firstRunEndingAfter(runs, v0d); k < runs.length; k++) {
    const r = runs[k];
    const ta = runTime(r, runFrom[r]);
    if (ta > vEnd) break;
    const tb = runTime(r, runTo[r]);
    const n = runTo[r] - runFrom[r] + 1;
    const ca = Math.floor((ta - v0d) / colNs), cb = Math.floor((tb - v0d) / colNs);
    if (n > 1 && n > (cb - ca + 1) / 2) {
      mark(ca, cb);  // denser than the pixels: a band
      continue;
    }
    const rounds = procRounds[runProc[r]];
    for (let p = runPosAtOrAfter(r, v0d); p <= runTo[r]; p++) {
      const t = roundTime[rounds[p]];
      if (t > vEnd) break;
      const c = Math.floor((t - v0d) / colNs);
      mark(c, c);
    }
  }
}

function draw() {
  const t0 = performance.now();
  if (!colors) readColors();
  const W = Math.round(cssW * dpr), H = Math.round(cssH * dpr);
  if (!img || img.width !== W || img.height !== H) {
    img = ctx.createImageData(W, H);
    px = new Uint32Array(img.data.buffer);
  }
  px.fill(colors.pPanel);
  const x0 = Math.round(LABEL_W * dpr);
  const cols = Math.max(1, Math.round(plotW() * dpr));
  const colNs = (v1 - v0) / cols;
  if (!acc || acc.length !== cols * 6) {
    acc = new Float64Array(cols * 6);
    merged = new Float64Array(cols * 6);
    groupAcc = new Float64Array(cols * 6);
  }
  merged.fill(0);
  // Zoomed out without a filter, the all-threads lane comes from its summary and only the
  // lanes shown are computed; else every lane shown by the filter is summed.
  const fromSummary = mergedLevels && !filterRe && colNs >= mergedBucket;
  if (fromSummary) {
    let j = 0, bucket = mergedBucket;
    while (j + 1 < mergedLevels.length && bucket * 2 <= colNs) {
      j++;
      bucket *= 2;
    }
    accumulateBuckets(mergedLevels[j], bucket, merged, cols, v0, colNs, 1);
  }
  const scroll = wrap.scrollTop;
  const clip0 = Math.round(lanesY * dpr), clip1 = H;
  const rowY = (row) => Math.round((lanesY + row.top - scroll) * dpr);
  let lanesDrawn = 0;
  for (const row of rows) {
    if (row.kind === "proc") continue;
    const y = rowY(row);
    const visible = y + row.h * dpr > clip0 && y < clip1;
    if (fromSummary && !visible) continue;
    if (row.kind === "group") {
      // A closed pool: its members summed here; an open one: its lanes follow as rows.
      if (opened.has(row.group)) continue;
      groupAcc.fill(0);
      for (const l of row.members) {
        const a = laneColumns(l, cols, colNs);
        if (fromSummary) {
          for (let i = 0; i < a.length; i++) groupAcc[i] += a[i];
        } else {
          for (let i = 0; i < a.length; i++) { merged[i] += a[i]; groupAcc[i] += a[i]; }
        }
      }
      if (visible) {
        paintStripes(groupAcc, row.members.length, x0, cols, y + Math.round(2 * dpr),
                     Math.round((row.h - 5) * dpr), clip0, clip1, colors.pLaneAlt);
        lanesDrawn += row.members.length;
      }
      continue;
    }
    const a = laneColumns(row.lane, cols, colNs);
    if (!fromSummary) for (let i = 0; i < a.length; i++) merged[i] += a[i];
    if (visible) {
      const bar = Math.round((LANE_H - 3) * dpr);
      paintStripes(a, 1, x0, cols, y + Math.round(1 * dpr), bar, clip0, clip1, colors.pLane);
      paintTicks(row.lane, x0, cols, v0, colNs, y + Math.round(1 * dpr), Math.max(2, Math.round(3 * dpr)),
                 clip0, clip1);
      lanesDrawn++;
    }
  }
  // The all-threads lane: threads per class, stacked, up to the most in any column.
  let most = 0;
  for (let c = 0; c < cols; c++) {
    let s = 0;
    for (let k = 0; k < 6; k++) s += merged[c * 6 + k];
    if (s > most) most = s;
  }
  // Rounding in the summaries can push a whole column a little past its threads.
  const scaleN = Math.max(1, Math.ceil(most - 0.02));
  const my = Math.round(mergedY * dpr), mh = Math.round((MERGED_H - 2) * dpr);
  paintStripes(merged, scaleN, x0, cols, my, mh, my, my + mh, colors.pLane);
  // The slots / whole intervals band.
  if (hasSlots) {
    const ky = Math.round(keptY * dpr), kh = Math.round((KEPT_H - 3) * dpr);
    const xs = Math.max(0, Math.round((D.window[0] - v0) / colNs));
    const xw = Math.min(cols, Math.round((D.whole_from - v0) / colNs));
    const xe = Math.min(cols, Math.round((D.window[1] - v0) / colNs));
    for (let y = ky; y < ky + kh; y++) {
      if (xw > xs) px.fill(colors.pSlots, y * W + x0 + Math.min(xs, cols), y * W + x0 + Math.max(0, xw));
      if (xe > xw) px.fill(colors.pWhole, y * W + x0 + Math.max(0, xw), y * W + x0 + Math.max(0, xe));
    }
    const xl = Math.round((D.whole_from - v0) / colNs);
    if (xl >= 0 && xl < cols) {
      for (let y = my; y < H; y++) px[y * W + x0 + xl] = colors.pMuted;
    }
  }
  // The axis line.
  const ay = Math.round((axisH - 2) * dpr);
  px.fill(colors.pLine, ay * W + x0, ay * W + x0 + cols);
  const t1 = performance.now();
  ctx.putImageData(img, 0, 0);
  const t2 = performance.now();
  drawText(scaleN, scroll);
  lastDrawMs = performance.now() - t0;
  lastParts = { pixels: t1 - t0, put: t2 - t1, text: performance.now() - t2 };
  draws++;
  if (!firstDrawAt) firstDrawAt = performance.now();
  lastLanesDrawn = lanesDrawn;
  drawOverlay();
}
let lastLanesDrawn = 0;
let lastParts = null;  // ms: pixels computed, put on the canvas, text drawn

// TEXT cut to WIDTH css px in the current font, with U+2026 when cut; remembered per font, width
// and text, so a frame measures only the labels it has not drawn before.
const elided = new Map();
function elide(text, width) {
  const key = ctx.font + "\u0000" + width + "\u0000" + text;
  let out = elided.get(key);
  if (out === undefined) {
    out = elideNow(text, width);
    if (elided.size > 20000) elided.clear();
    elided.set(key, out);
  }
  return out;
}
function elideNow(text, width) {
  if (ctx.measureText(text).width <= width) return text;
  let lo = 0, hi = text.length;
  while (lo < hi) {
    const mid = (lo + hi + 1) >>> 1;
    if (ctx.measureText(text.slice(0, mid) + "\u2026").width <= width) lo = mid;
    else hi = mid - 1;
  }
  return text.slice(0, lo) + "\u2026";
}

function drawText(scaleN, scroll) {
  ctx.save();
  ctx.scale(dpr, dpr);
  ctx.textBaseline = "alphabetic";
  // Axis: seconds since time 0, and the wall clock.
  const step = tickStep(v1 - v0, plotW(), 110);
  const decimals = decimalsFor(step);
  const wallDigits = step >= NS ? 0 : step >= 1e6 ? 3 : step >= 1e3 ? 6 : 9;
  ctx.font = "11px system-ui, 'DejaVu Sans', sans-serif";
  ctx.textAlign = "left";
  ctx.fillStyle = colors.fg;
  const first = Math.ceil((v0 - ORIGIN) / step) * step + ORIGIN;
  const right = LABEL_W + plotW() + RIGHT;
  for (let t = first; t <= v1; t += step) {
    const x = xOf(t);
    ctx.fillRect(Math.round(x), axisH - 8, 1, 6);
    // Labels right of their tick, left out where they would run past the canvas.
    const secs = secondsText(t, decimals) + " s";
    if (x + 3 + ctx.measureText(secs).width < right) ctx.fillText(secs, x + 3, 12);
    if (hasWall) {
      const wall = wallClock(t, wallDigits);
      ctx.fillStyle = colors.muted;
      if (x + 3 + ctx.measureText(wall).width < right) ctx.fillText(wall, x + 3, 25);
      ctx.fillStyle = colors.fg;
    }
  }
  ctx.textAlign = "right";
  ctx.fillStyle = colors.muted;
  ctx.fillText("seconds", LABEL_W - 8, 12);
  if (hasWall) ctx.fillText("wall clock (local)", LABEL_W - 8, 25);
  if (hasSlots) {
    ctx.textAlign = "left";
    ctx.font = "10px system-ui, 'DejaVu Sans', sans-serif";
    ctx.fillStyle = colors.fg;
    const xs = Math.max(LABEL_W, xOf(D.window[0])), xw = Math.max(LABEL_W, xOf(D.whole_from));
    // Slots from before the tracer (hearth watch's /proc reads before its trigger) first.
    const xu = D.untraced ? Math.max(LABEL_W, xOf(D.untraced[0])) : xs;
    if (xu - xs > 60) ctx.fillText("/proc every " + durationText(D.untraced[1]), xs + 4, keptY + 9);
    if (xw - xu > 60) ctx.fillText("slots of " + durationText(slotNs), xu + 4, keptY + 9);
    if (LABEL_W + plotW() - xw > 80) ctx.fillText("whole intervals", xw + 4, keptY + 9);
    ctx.textAlign = "right";
    ctx.fillStyle = colors.muted;
    ctx.fillText("kept", LABEL_W - 8, keptY + 9);
  }
  ctx.font = "12px system-ui, 'DejaVu Sans', sans-serif";
  ctx.textAlign = "right";
  ctx.fillStyle = colors.fg;
  ctx.fillText("all threads", LABEL_W - 8, mergedY + 16);
  ctx.font = "10px system-ui, 'DejaVu Sans', sans-serif";
  ctx.fillStyle = colors.muted;
  ctx.fillText("threads per state, 0\u2013" + thousands(scaleN), LABEL_W - 8, mergedY + 30);
  // Lane labels, clipped to the lanes' area.
  ctx.beginPath();
  ctx.rect(0, lanesY, cssW, cssH - lanesY);
  ctx.clip();
  for (const row of rows) {
    const y = lanesY + row.top - scroll;
    if (y + row.h < lanesY || y > cssH) continue;
    if (row.kind === "proc") {
      ctx.font = "bold 12px system-ui, 'DejaVu Sans', sans-serif";
      ctx.textAlign = "left";
      ctx.fillStyle = colors.fg;
      ctx.fillText(procText(row.proc) + ", " + thousands(row.members) + (row.members === 1 ? " thread" : " threads"),
                   6, y + 14);
    } else if (row.kind === "group") {
      ctx.font = "bold 11px system-ui, 'DejaVu Sans', sans-serif";
      ctx.textAlign = "left";
      ctx.fillStyle = colors.accent;
      const g = row.group;
      const label = (opened.has(g) ? "\u25be " : "\u25b8 ") + D.groups.name[g] + " \u00d7" + row.members.length;
      ctx.fillText(elide(label, LABEL_W - 20), 10, y + 14);
    } else {
      ctx.font = "11px system-ui, 'DejaVu Sans', sans-serif";
      ctx.textAlign = "left";
      ctx.fillStyle = colors.fg;
      const left = row.indent ? 24 : 10;
      const name = laneName[row.lane], tid = String(laneTid[row.lane]);
      ctx.fillText(elide(name === "tid " + tid ? name : name + " " + tid, LABEL_W - left - 8), left, y + 13);
    }
  }
  ctx.restore();
}

// 1, 2 or 5 times a power of ten ns: ticks at least MIN_PX apart.
function tickStep(spanNs, widthPx, minPx) {
  const perPx = spanNs / Math.max(1, widthPx);
  for (let p = 1; p <= 1e18; p *= 10) {
    for (const m of [1, 2, 5]) {
      if ((p * m) / perPx >= minPx) return p * m;
    }
  }
  return 1e18;
}

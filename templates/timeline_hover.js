// hearth timeline page: the overlay (cursor line, selection), the tooltip of the interval or the
// sample under the pointer, and the sample panel.

// ---- hover: the cursor line, the selection and the tooltip ----

let hoverX = -1, hoverY = -1, selection = null, hoverTick = null, tipText = "";
function drawOverlay() {
  octx.setTransform(dpr, 0, 0, dpr, 0, 0);
  octx.clearRect(0, 0, cssW, cssH);
  if (selection) {
    const a = Math.max(LABEL_W, Math.min(selection[0], selection[1]));
    const b = Math.min(LABEL_W + plotW(), Math.max(selection[0], selection[1]));
    octx.fillStyle = colors.select;
    octx.fillRect(a, 0, b - a, cssH);
  }
  drawInstant();
  if (hoverX >= LABEL_W && hoverX <= LABEL_W + plotW()) {
    octx.fillStyle = colors.cursor;
    octx.fillRect(Math.round(hoverX), 0, 1, cssH);
  }
  if (hoverTick) {
    octx.strokeStyle = colors.accent;
    octx.lineWidth = 2;
    octx.strokeRect(hoverTick.x - 3, hoverTick.y - 1, 6, 7);
  }
}

// The row under css Y (in the lanes' area), or null.
function rowAt(y) {
  if (y < lanesY) return null;
  const top = y - lanesY + wrap.scrollTop;
  let lo = 0, hi = rows.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (rows[mid].top + rows[mid].h <= top) lo = mid + 1;
    else hi = mid;
  }
  return lo < rows.length && rows[lo].top <= top ? rows[lo] : null;
}
// Lane L's interval at T (the last starting at or before T, if it holds T), or -1.
function intervalAt(l, t) {
  let lo = ivFirst[l], hi = ivFirst[l + 1];
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (ivEnd[mid] <= t) lo = mid + 1;
    else hi = mid;
  }
  return lo < ivFirst[l + 1] && ivStart[lo] <= t ? lo : -1;
}
function slotAt(l, t) {
  for (let i = slFirst[l]; i < slFirst[l + 1]; i++) {
    if (slStart[i] <= t && t < slStart[i] + slotNs) return i;
  }
  return -1;
}
// Lane L's sample tick nearest to T within SLACK ns: {run, pos, t}, or null.
function tickNear(l, t, slack) {
  const runs = laneRuns[l];
  if (!runs || !runs.length) return null;
  let best = null;
  for (let k = firstRunEndingAfter(runs, t - slack); k < runs.length; k++) {
    const r = runs[k];
    if (runTime(r, runFrom[r]) > t + slack) break;
    const p = runPosAtOrAfter(r, t - slack);
    for (let q = p; q <= runTo[r] && q <= p + 2; q++) {
      const tt = runTime(r, q);
      if (Math.abs(tt - t) <= slack && (!best || Math.abs(tt - t) < Math.abs(best.t - t))) {
        best = { run: r, pos: q, t: tt };
      }
    }
  }
  return best;
}
// The class shares of the column under css X for lane L (or a pool's members): text.
function pixelText(lanes, x) {
  const cols = Math.max(1, Math.round(plotW() * dpr));
  const colNs = (v1 - v0) / cols;
  const c = Math.floor((x - LABEL_W) * dpr);
  const buf = new Float64Array(6);
  const one = new Float64Array(6);
  const a = v0 + c * colNs;
  for (const l of lanes) {
    one.fill(0);
    accumulate(l, one, 1, a, colNs, true);
    for (let k = 0; k < 6; k++) buf[k] += one[k];
  }
  return { buf: buf, colNs: colNs };
}
function sharesText(buf, per, unit) {
  const parts = [];
  for (const k of STACK_ORDER) {
    if (buf[k] > 0.0005) parts.push(CLASS_NAMES[k] + " " + (unit ? trimmed(buf[k] / per, 1) : Math.round(100 * buf[k] / per) + "%"));
  }
  return parts.join(" \u00b7 ");
}
function timeText(t) {
  const w = wallClock(t, 6);
  return secondsText(t, 6) + " s" + (w ? " (" + w + ")" : "");
}

function tooltipFor(x, y) {
  hoverTick = null;
  if (x < LABEL_W || x > LABEL_W + plotW()) return "";
  const t = timeAt(x);
  if (y >= mergedY && y < mergedY + MERGED_H) {
    const lanes = [];
    for (let l = 0; l < nLanes; l++) if (shown[l]) lanes.push(l);
    const p = pixelText(lanes, x);
    return "all " + thousands(lanes.length) + " threads shown, at " + timeText(t) + "\nthis pixel (" +
      durationText(p.colNs) + "), threads: " + (sharesText(p.buf, 1, true) || "none");
  }
  const row = rowAt(y);
  if (!row) return "";
  if (row.kind === "proc") return procTitle(row.proc);
  if (row.kind === "group") {
    const p = pixelText(row.members, x);
    return D.groups.name[row.group] + " (" + row.members.length + " threads; click its name to " +
      (opened.has(row.group) ? "close" : "open") + ")\nat " + timeText(t) + "\nthis pixel (" +
      durationText(p.colNs) + "), threads: " + (sharesText(p.buf, 1, true) || "none");
  }
  const l = row.lane;
  const lines = [laneWho(l) + " \u00b7 " + procText(laneProc[l])];
  if (procTitle(laneProc[l])) lines.push(procTitle(laneProc[l]));
  const i = intervalAt(l, t);
  if (i >= 0) {
    const letter = stateLetters[ivState[i]];
    lines.push((STATE_WORDS[letter] || "state " + letter) + " (" + letter + ") for " +
               durationText(ivEnd[i] - ivStart[i]));
    lines.push("from " + secondsText(ivStart[i], 9) + " s to " + secondsText(ivEnd[i], 9) + " s");
    const facts = [];
    if (ivCpu[i] >= 0) facts.push("CPU " + ivCpu[i]);
    if (ivBy[i] >= 0) {
      facts.push((letter === "R" ? "preempted by " : "woken by ") + who(ivBy[i]));
    } else if (letter === "R" && i > ivFirst[l] && ivEnd[i - 1] === ivStart[i] && ivBy[i - 1] >= 0 &&
               ivClass[i - 1] !== 0) {
      facts.push("woken by " + who(ivBy[i - 1]));
    }
    if (facts.length) lines.push(facts.join(" \u00b7 "));
    const p = pixelText([l], x);
    if (ivEnd[i] - ivStart[i] < p.colNs) lines.push("this pixel (" + durationText(p.colNs) + "): " + sharesText(p.buf, 1, false));
  } else {
    const s = slotAt(l, t);
    if (s >= 0) {
      const parts = [];
      for (const k of STACK_ORDER) {
        if (slTimes[s * 6 + k] > 0) parts.push(CLASS_NAMES[k] + " " + durationText(slTimes[s * 6 + k]));
      }
      const untraced = D.untraced && slStart[s] < D.untraced[0];
      lines.push("slot " + secondsText(slStart[s], 3) + " s \u2013 " + secondsText(slStart[s] + slotNs, 3) +
                 (untraced ? " s (from /proc before the trace: time per state, approximate)"
                           : " s (slots: time per state only, not whole intervals)"));
      lines.push(parts.join(" \u00b7 ") + " \u00b7 " + thousands(slSwitches[s]) + (untraced ? " CPU slices" : " switches"));
    } else {
      lines.push("no scheduler data at " + timeText(t));
    }
  }
  const colNs = (v1 - v0) / plotW();
  const k = tickNear(l, t, 4 * colNs);
  if (k) {
    const top = lanesY + row.top - wrap.scrollTop;
    hoverTick = { x: xOf(k.t), y: top, lane: l, run: k.run, pos: k.pos };
    const letter = D.sstates[runState[k.run]] || "?";
    lines.push("sample at " + secondsText(k.t, 6) + " s: " + letter + " \u00b7 " + leafOf(runStack[k.run]) +
               " (click for its stack)");
  } else {
    lines.push("at " + timeText(t));
  }
  return lines.join("\n");
}
function leafOf(stack) {
  return stackStart[stack + 1] > stackStart[stack] ? frames[stackFrames[stackStart[stack + 1] - 1]] : "(no frames)";
}

function showTip(x, y) {
  tipText = tooltipFor(x, y);
  if (!tipText) {
    tip.hidden = true;
    return;
  }
  tip.textContent = tipText;
  tip.hidden = false;
  const w = tip.offsetWidth, h = tip.offsetHeight;
  let left = x + 14, top = y + 16;
  if (left + w > cssW - 4) left = Math.max(4, x - w - 14);
  if (top + h > cssH - 4) top = Math.max(4, y - h - 10);
  tip.style.left = left + "px";
  tip.style.top = top + "px";
}

// ---- the sample panel ----

let lastSample = null;
function showSample(tick) {
  const r = tick.run;
  const thread = runThread[r];
  const l = threadLane[thread];
  const t = runTime(r, tick.pos);
  const letter = D.sstates[runState[r]] || "?";
  const stack = runStack[r];
  const list = [];
  for (let k = stackStart[stack + 1]; k-- > stackStart[stack];) list.push(frames[stackFrames[k]]);
  const roots = threadRoot[thread] ? threadRoot[thread].split(";").reverse() : [];
  document.getElementById("sample-title").textContent = "Sample: " + laneWho(l) + " at " + timeText(t);
  const info = document.getElementById("sample-info");
  info.textContent = "";
  info.append("State " + letter + (SAMPLE_WORDS[letter] ? " (" + SAMPLE_WORDS[letter] + ")" : "") +
              "; this stack and state since " + secondsText(runTime(r, runFrom[r]), 6) + " s (" +
              thousands(runTo[r] - runFrom[r] + 1) + " samples in a row). Leaf first.");
  if (linked()) {
    info.append(" The moment view shows every thread's state and stack then.");
  } else if (D.heatmap) {
    const a = document.createElement("a");
    const m = (t - D.samples_t0) / NS;
    a.href = D.heatmap + "?m=" + trimmed(Math.max(0, m), 9);
    a.textContent = "open the moment at this instant";
    a.id = "moment-link";
    info.append(" ", a, " (every thread's state and stack then).");
  }
  const ol = document.getElementById("stack");
  ol.textContent = "";
  for (const f of list) {
    const li = document.createElement("li");
    li.textContent = f;
    ol.append(li);
  }
  for (const f of roots) {
    const li = document.createElement("li");
    li.textContent = f;
    li.className = "root";
    ol.append(li);
  }
  lastSample = { tid: laneTid[l], lane: l, t: t, state: letter, frames: list, roots: roots };
  document.getElementById("sample-section").scrollIntoView({ block: "nearest" });
}

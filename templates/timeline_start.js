// hearth timeline page: the start (after decoding: the text above the canvas, the state from the
// URL, the first frame) and window.hearthTimeline for tests and benchmarks.

// ---- start ----

function start() {
  const intervals = nIv;
  const info = [];
  if (D.source) info.push(D.source + ":");
  let ticks = 0;
  for (let i = 0; i < nRuns; i++) if (threadLane[runThread[i]] >= 0) ticks += runTo[i] - runFrom[i] + 1;
  info.push(thousands(nLanes) + (nLanes === 1 ? " thread" : " threads") + " over " + durationText(span) + ", " +
            thousands(intervals) + " scheduler intervals" +
            (nRounds ? ", " + thousands(ticks) + " stack samples (" + thousands(nRounds) + " rounds)" : "") +
            (hasWall ? "; time 0 = " + wallClock(ORIGIN, 3) + " (local time)" : "") + ".");
  document.getElementById("info").textContent = info.join(" ");
  const kept = document.getElementById("kept");
  if (hasSlots) {
    kept.textContent = "Whole intervals (every switch, with preemptors and wakers) from " + secondsText(D.whole_from, 3) +
      " s to " + secondsText(D.window[1], 3) + " s; before that, each thread's time per state per " +
      durationText(slotNs) + " slot only, drawn as the share of each state (the grey part of the band above the lanes).";
    if (D.untraced) {
      kept.textContent += " Before " + secondsText(D.untraced[0], 3) + " s the slots are not the tracer's: they come from " +
        "/proc (each thread's schedstat and state, read every " + durationText(D.untraced[1]) +
        " by hearth watch before its trigger), approximate.";
    }
  } else {
    kept.textContent = "Whole intervals over the whole window (every switch, with preemptors and wakers).";
  }
  if (nRounds && !D.aligned) kept.textContent += " The samples' clock was not recorded: their time 0 is put at the window's start.";
  const legend = document.getElementById("legend");
  for (let k = 0; k < 6; k++) {
    const key = document.createElement("span");
    key.className = "key";
    key.style.background = CLASS_COLORS[k];
    legend.append(key, CLASS_NAMES[k]);
  }
  if (D.damage && D.damage.length) {
    const el = document.getElementById("damage");
    el.textContent = "Damaged input, drawn up to the damage: " + D.damage.join("; ") + ".";
    el.hidden = false;
  }
  const p = window.URLSearchParams ? new URLSearchParams(window.location.search) : null;
  restoring = true;
  try {
    if (p && p.get("g") !== null) grouped = p.get("g") === "1";
    groupBox.checked = grouped;
    for (const s of (p && p.get("e") || "").split(",")) {
      const g = parseInt(s, 10);
      if (g >= 0 && g < nGroups) opened.add(g);
    }
    filterText = p ? p.get("t") || "" : "";
    filterEl.value = filterText;
    try {
      filterRe = filterText ? new RegExp(filterText) : null;
    } catch (e) {
      filterRe = null;
    }
    buildRows();
    layout();
    const r = p ? parseRange(p.get("r")) : null;
    if (r) setView(r[0], r[1]);
    else if (D.view) setView(D.view[0], D.view[1]);
    else setView(0, span);
    pending = false;
  } finally {
    restoring = false;
  }
}
// The first frame, in a task of its own.
function firstFrame() {
  draw();
  showRange();
  ready = true;
}

document.getElementById("info").textContent = "Reading " + thousands(nIv) + " intervals\u2026";
runTasks(() => {
  start();
  setTimeout(() => {
    firstFrame();
    publish();
    startLink();
  }, 0);
});

// For tests and benchmarks (tests/browser/timeline.test.mjs, tests/bench/timeline_bench.mjs):
// set once the first frame is drawn.
function publish() {
  window.hearthTimeline = {
    view: () => ({ from: v0, to: v1, span: span, origin: ORIGIN }),
    instant: () => atNs,  // the time view's instant (timeline_link.js), or null
    setView: (a, b) => { setView(a, b); },
    rows: () => rows.map((r) => ({ kind: r.kind, lane: r.lane, group: r.group, top: r.top, h: r.h,
                                   name: r.kind === "lane" ? laneName[r.lane] : r.kind === "group" ? D.groups.name[r.group] : procText(r.proc),
                                   tid: r.kind === "lane" ? laneTid[r.lane] : null,
                                   members: r.members ? (r.members.length !== undefined ? r.members.length : r.members) : 1 })),
    // Where lane TID's bar is, in css px of the overlay canvas (null: scrolled out or absent).
    laneY: (tid) => {
      for (const r of rows) {
        if (r.kind === "lane" && laneTid[r.lane] === tid) {
          const y = lanesY + r.top - wrap.scrollTop + r.h / 2;
          return y >= lanesY && y < cssH ? y : null;
        }
      }
      return null;
    },
    groupY: (name) => {
      for (const r of rows) {
        if (r.kind === "group" && D.groups.name[r.group] === name) return lanesY + r.top - wrap.scrollTop + r.h / 2;
      }
      return null;
    },
    mergedY: () => mergedY + MERGED_H / 2,
    xOf: (t) => xOf(t),
    labelW: LABEL_W,
    ticks: (tid) => {
      const out = [];
      for (let l = 0; l < nLanes; l++) {
        if (laneTid[l] !== tid) continue;
        for (const r of laneRuns[l]) for (let q = runFrom[r]; q <= runTo[r]; q++) out.push(runTime(r, q));
      }
      return out.sort((a, b) => a - b);
    },
    interval: (tid, t) => {
      const l = laneTid.indexOf(tid);
      const i = l >= 0 ? intervalAt(l, t) : -1;
      return i < 0 ? null : { start: ivStart[i], end: ivEnd[i], state: stateLetters[ivState[i]], cpu: ivCpu[i],
                              by: ivBy[i] >= 0 ? whoTid[ivBy[i]] : -1 };
    },
    tip: () => (tip.hidden ? "" : tipText),
    sample: () => lastSample,
    stats: () => ({ lastDrawMs: lastDrawMs, parts: lastParts, draws: draws, scriptStart: scriptStart,
                  dataParsed: dataParsed, firstDrawAt: firstDrawAt, lanesDrawn: lastLanesDrawn,
                    intervals: nIv, lanes: nLanes, ticks: nRounds }),
    colors: () => ({ panel: colors.panel, bg: colors.bg, fg: colors.fg }),
    pixel: (x, y) => {
      const d = ctx.getImageData(Math.round(x * dpr), Math.round(y * dpr), 1, 1).data;
      return [d[0], d[1], d[2]];
    },
    redraw: () => draw(),
  };
}

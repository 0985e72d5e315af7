// hearth timeline page script (templates/timeline.js, embedded in the page `hearth timeline -o
// timeline.html` writes, render/timeline/timeline_page.h). Reads the embedded data
// (render/timeline/timeline_data.h: the lanes' intervals, slots and the samples' changes) into
// typed arrays once, then draws on a canvas, one device pixel column at a time:
// - per lane, the time each column holds in each state class (intervals' overlaps; a slot's
//   times spread over it), drawn as a stacked stripe (one colour where one state fills it);
// - the all-threads lane on top: the same times summed over the lanes shown, in threads;
// - a pool, grouped and closed: its threads' times summed, as shares of the pool;
// - sample ticks along a lane's top (a band where they are denser than the pixels).
// Pixels go into one ImageData (fast for a million intervals); text and the hover cursor are
// drawn on top (the cursor on a second canvas, so hovering never redraws the lanes).
// State in the URL (replaceState): r=FROM-TO (the view, seconds since time 0 with up to 9
// decimals; time 0 is the samples' time 0, as on the heatmap's page, so an `r` or `m` means the
// same instant on both), g=1 (pools grouped), e=N,N (pools opened, by group index), t=REGEX (the thread
// filter, searched in each lane's name).
(function () {
  "use strict";

  const NS = 1e9;
  const MIN_SPAN = 1000;  // ns: the deepest zoom, a microsecond across the plot
  const LABEL_W = 210;    // px: lane names
  const RIGHT = 14;       // px
  const LANE_H = 18;      // px: a lane's row (its bar is LANE_H - 3)
  const HEAD_H = 20;      // px: a process's or a pool's row
  const MERGED_H = 52;    // px: the all-threads lane
  const KEPT_H = 14;      // px: the slots / whole intervals band
  const CLASS_OF = { C: 0, R: 1, S: 2, D: 3, t: 4 };  // else 5
  const CLASS_NAMES = ["on CPU", "runnable", "sleeping", "blocked", "stopped", "other"];
  const STATE_WORDS = { C: "on CPU", R: "runnable", S: "sleeping", D: "blocked (uninterruptible)",
                        t: "stopped by a tracer", T: "stopped", I: "idle", X: "exiting", Z: "zombie",
                        P: "parked", "?": "not recorded" };
  const SAMPLE_WORDS = { R: "running or runnable", S: "sleeping", D: "blocked (uninterruptible)",
                         T: "stopped", t: "traced", Z: "zombie", X: "dead", I: "idle", P: "parked" };
  // The scheduler charts' colours (render/charts/chart_style.cpp state_color).
  const CLASS_COLORS = ["#4caf50", "#e85d2f", "#9ec9ec", "#9b6bc8", "#e06cb0", "#a8a8a8"];
  const STACK_ORDER = [0, 1, 3, 4, 5, 2];  // bottom up: activity first, sleep on top
  const GONE = 127;

  const scriptStart = performance.now();
  const D = JSON.parse(document.getElementById("tl-data").textContent);
  const dataParsed = performance.now();
  const span = D.span;

  // ---- decoding: in steps of about STEP_MS, so the page never stops answering for long ----

  const STEP_MS = 30;
  const tasks = [];  // each call does a bounded piece of work; true when its work is done
  function runTasks(then) {
    const t0 = performance.now();
    while (tasks.length) {
      if (tasks[0]()) tasks.shift();
      if (tasks.length && performance.now() - t0 > STEP_MS) {
        setTimeout(() => runTasks(then), 0);
        return;
      }
    }
    then();
  }
  // Base64 to bytes, a slice of the text per step.
  function base64Task(b64, done) {
    const pad = b64.endsWith("==") ? 2 : b64.endsWith("=") ? 1 : 0;
    const out = new Uint8Array(Math.max(0, b64.length / 4 * 3 - pad));
    let pos = 0, o = 0;
    return () => {
      const end = Math.min(b64.length, pos + (1 << 19));
      const s = atob(b64.slice(pos, end));
      for (let i = 0; i < s.length; i++) out[o++] = s.charCodeAt(i);
      pos = end;
      if (pos < b64.length) return false;
      done(out);
      return true;
    };
  }
  let bytes = null;
  let bp = 0;
  function varint() {
    let b = bytes[bp++];
    if (b < 128) return b;
    let v = b & 127;
    let m = 128;
    do {
      b = bytes[bp++];
      v += (b & 127) * m;
      m *= 128;
    } while (b >= 128);
    return v;
  }

  const nLanes = D.lanes.n.length;
  const whoTid = D.who.tid;
  const whoName = D.who.name;
  const laneName = whoName.slice(0, nLanes);
  const laneTid = whoTid.slice(0, nLanes);
  const laneProc = Uint32Array.from(D.lanes.proc);
  const stateLetters = D.states;
  const stateClass = new Uint8Array(Math.max(1, stateLetters.length));
  for (let i = 0; i < stateLetters.length; i++) {
    const c = CLASS_OF[stateLetters[i]];
    stateClass[i] = c === undefined ? 5 : c;
  }

  // Intervals: lane l's are [ivFirst[l], ivFirst[l + 1]).
  const ivFirst = new Uint32Array(nLanes + 1);
  for (let l = 0; l < nLanes; l++) ivFirst[l + 1] = ivFirst[l] + D.lanes.n[l];
  const nIv = ivFirst[nLanes];
  const ivStart = new Float64Array(nIv);
  const ivEnd = new Float64Array(nIv);
  const ivState = new Uint8Array(nIv);
  const ivClass = new Uint8Array(nIv);
  const ivCpu = new Int16Array(nIv);
  const ivBy = new Int32Array(nIv);
  (function decodeIntervals() {
    let data = null, pos = 0, lane = 0;
    tasks.push(base64Task(D.iv, (out) => { data = out; }));
    tasks.push(() => {
      bytes = data;
      bp = pos;
      const stop = ivFirst[Math.min(nLanes, lane + 1)] + 200000;
      for (; lane < nLanes && ivFirst[lane] < stop; lane++) {
        let end = 0;
        let cpu = -1;
        for (let i = ivFirst[lane]; i < ivFirst[lane + 1]; i++) {
          const code = bytes[bp++];
          const start = code & 128 ? end + varint() : end;
          end = start + varint();
          if (code & 32) cpu = varint() - 1;
          ivStart[i] = start;
          ivEnd[i] = end;
          ivState[i] = code & 31;
          ivClass[i] = stateClass[code & 31];
          ivCpu[i] = cpu;
          ivBy[i] = code & 64 ? varint() : -1;
        }
      }
      pos = bp;
      bytes = null;
      if (lane < nLanes) return false;
      data = null;
      return true;
    });
  })();

  // Slots: lane l's are [slFirst[l], slFirst[l + 1]); slTimes: 6 state times (ns) each.
  const slotNs = D.slot_ns;
  const slFirst = new Uint32Array(nLanes + 1);
  for (let l = 0; l < nLanes; l++) slFirst[l + 1] = slFirst[l] + D.lanes.ns[l];
  const nSl = slFirst[nLanes];
  const slStart = new Float64Array(nSl);
  const slTimes = new Float64Array(nSl * 6);
  const slSwitches = new Float64Array(nSl);
  if (nSl) {
    let data = null;
    tasks.push(base64Task(D.sl, (out) => { data = out; }));
    tasks.push(() => {
      bytes = data;
      bp = 0;
      for (let l = 0; l < nLanes; l++) {
        let k = -1;
        for (let i = slFirst[l]; i < slFirst[l + 1]; i++) {
          k += varint() + 1;
          slStart[i] = D.window[0] + k * slotNs;
          for (let c = 0; c < 6; c++) slTimes[i * 6 + c] = varint();
          slSwitches[i] = varint();
        }
      }
      bytes = data = null;
      return true;
    });
  }

  // Summaries for zoomed-out views: a lane with many intervals gets its time per class in
  // buckets of span / 2^k (about two intervals to a bucket at the finest level, then each level
  // half as many), as fractions of a bucket in 1/65535. A view whose columns are wider than a
  // level's buckets reads that level instead of the intervals: a frame costs about the columns,
  // not the intervals. Slots are summed in too.
  const PYR_MIN = 512;   // intervals: fewer are read directly
  const PYR_TOP = 64;    // buckets of the coarsest level
  const pyrLevels = new Array(nLanes).fill(null);
  const pyrBucket = new Float64Array(nLanes);
  (function buildSummaries() {
    let lane = 0;
    tasks.push(() => {
      const t0 = performance.now();
      for (; lane < nLanes && performance.now() - t0 < STEP_MS; lane++) {
        const n = ivFirst[lane + 1] - ivFirst[lane];
        if (n < PYR_MIN || !(span > 0)) continue;
        let nb = PYR_TOP;
        while (nb * 2 <= n / 2) nb *= 2;
        const bucket = span / nb;
        const f = new Float64Array(nb * 6);
        accumulate(lane, f, nb, 0, bucket, true);
        const levels = [];
        let level = new Uint16Array(nb * 6);
        for (let i = 0; i < f.length; i++) level[i] = Math.min(65535, Math.round(f[i] * 65535));
        levels.push(level);
        while (nb > PYR_TOP) {
          nb /= 2;
          const up = new Uint16Array(nb * 6);
          for (let b = 0; b < nb; b++) {
            for (let k = 0; k < 6; k++) up[b * 6 + k] = (level[b * 12 + k] + level[b * 12 + 6 + k] + 1) >> 1;
          }
          levels.push(up);
          level = up;
        }
        pyrLevels[lane] = levels;
        pyrBucket[lane] = bucket;
      }
      return lane >= nLanes;
    });
  })();
  // The all-threads lane's summary, the same way: every lane summed, at MERGED_BUCKETS buckets
  // (then halved), so a zoomed-out view computes only the lanes it shows. Valid while no
  // thread filter is set (with one, the lanes shown are summed each frame).
  const MERGED_BUCKETS = 16384;
  let mergedLevels = null;
  const mergedBucket = span / MERGED_BUCKETS;
  if (nIv > 50000 && span > 0) {
    const f = new Float64Array(MERGED_BUCKETS * 6);
    let lane = 0;
    tasks.push(() => {
      const t0 = performance.now();
      for (; lane < nLanes && performance.now() - t0 < STEP_MS; lane++) {
        accumulate(lane, f, MERGED_BUCKETS, 0, mergedBucket, false);
      }
      if (lane < nLanes) return false;
      // Threads, not a bucket's fraction: kept as floats.
      const levels = [Float32Array.from(f)];
      let nb = MERGED_BUCKETS, level = levels[0];
      while (nb > PYR_TOP) {
        nb /= 2;
        const up = new Float32Array(nb * 6);
        for (let i = 0; i < up.length; i++) {
          const b = (i / 6) | 0, k = i - b * 6;
          up[i] = (level[b * 12 + k] + level[b * 12 + 6 + k]) / 2;
        }
        levels.push(up);
        level = up;
      }
      mergedLevels = levels;
      return true;
    });
  }

  // Samples: rounds, runs (a thread in one state and stack over consecutive samples of its
  // process) and, per lane, its runs by time and the spans it was sampled over.
  const nRounds = D.rounds || 0;
  const roundTime = new Float64Array(nRounds);
  const roundProc = new Uint32Array(nRounds);
  const roundPos = new Uint32Array(nRounds);  // its index among its process's rounds
  let procRounds = [];                        // process index -> Uint32Array of rounds
  let procPeriod = [];                        // process index -> its median gap between samples
  let runThread, runStack, runState, runFrom, runTo, runProc, nRuns = 0;
  const laneRuns = new Array(nLanes);
  const laneSpans = new Array(nLanes);        // [t0, t1, t0, t1, ...]: sampled without a gap
  const frames = D.frames || [];
  let stackStart = null, stackFrames = null, threadLane = new Int32Array(0), threadRoot = null;
  for (let l = 0; l < nLanes; l++) {
    laneRuns[l] = new Uint32Array(0);
    laneSpans[l] = [];
  }
  if (nRounds) {
    const counts = D.stacks.n;
    stackStart = new Uint32Array(counts.length + 1);
    for (let i = 0; i < counts.length; i++) stackStart[i + 1] = stackStart[i] + counts[i];
    stackFrames = Uint32Array.from(D.stacks.f);
    threadLane = Int32Array.from(D.sthreads.lane);
    threadRoot = D.sthreads.root;
    const nThreads = threadLane.length;
    const cap = D.changes + 1;
    runThread = new Uint32Array(cap);
    runStack = new Uint32Array(cap);
    runState = new Uint8Array(cap);
    runFrom = new Uint32Array(cap);
    runTo = new Uint32Array(cap);
    runProc = new Uint32Array(cap);
    const open = new Int32Array(nThreads).fill(-1);
    const nProcs = D.sprocs.length;
    const procCount = new Uint32Array(nProcs);
    let data = null, pos = 0, r = 0, t = D.samples_t0;
    tasks.push(base64Task(D.sd, (out) => { data = out; }));
    tasks.push(() => {
      bytes = data;
      bp = pos;
      const stop = Math.min(nRounds, r + 20000);
      for (; r < stop; r++) {
        t += varint();
        const p = varint();
        const n = varint();
        roundTime[r] = t;
        roundProc[r] = p;
        const at = procCount[p]++;
        roundPos[r] = at;
        let thread = 0;
        for (let k = 0; k < n; k++) {
          const z = varint();
          thread += z & 1 ? -(z + 1) / 2 : z / 2;
          const code = varint();
          const state = code % 128;
          const o = open[thread];
          if (o >= 0) runTo[o] = at - 1;
          open[thread] = -1;
          if (state === GONE) continue;
          runThread[nRuns] = thread;
          runStack[nRuns] = (code - state) / 128;
          runState[nRuns] = state;
          runFrom[nRuns] = at;
          runTo[nRuns] = at;
          runProc[nRuns] = p;
          open[thread] = nRuns++;
        }
      }
      pos = bp;
      bytes = null;
      return r >= nRounds;
    });
    tasks.push(() => {
      data = null;
      for (let th = 0; th < nThreads; th++) {
        const o = open[th];
        if (o >= 0) runTo[o] = procCount[runProc[o]] - 1;
      }
      procRounds = [];
      procPeriod = [];
      for (let p = 0; p < nProcs; p++) procRounds.push(new Uint32Array(procCount[p]));
      for (let i = 0; i < nRounds; i++) procRounds[roundProc[i]][roundPos[i]] = i;
      for (let p = 0; p < nProcs; p++) {
        const rs = procRounds[p];
        // The median gap between its samples.
        const gaps = new Float64Array(Math.max(0, rs.length - 1));
        for (let i = 1; i < rs.length; i++) gaps[i - 1] = roundTime[rs[i]] - roundTime[rs[i - 1]];
        gaps.sort();
        procPeriod.push(gaps.length ? gaps[gaps.length >> 1] : Infinity);
      }
      const lists = [];
      for (let l = 0; l < nLanes; l++) lists.push([]);
      for (let i = 0; i < nRuns; i++) {
        const l = threadLane[runThread[i]];
        if (l >= 0) lists[l].push(i);
      }
      for (let l = 0; l < nLanes; l++) {
        const runs = lists[l];
        runs.sort((a, b) => runTime(a, runFrom[a]) - runTime(b, runFrom[b]));
        laneRuns[l] = Uint32Array.from(runs);
        // Spans sampled without a gap: runs that follow each other in one process.
        const spans = [];
        for (let k = 0; k < runs.length; k++) {
          const a = runs[k];
          const prev = k > 0 ? runs[k - 1] : -1;
          if (prev >= 0 && runProc[prev] === runProc[a] && runTo[prev] + 1 === runFrom[a]) {
            spans[spans.length - 1] = runTime(a, runTo[a]);
          } else {
            spans.push(runTime(a, runFrom[a]), runTime(a, runTo[a]));
          }
        }
        laneSpans[l] = spans;
      }
      return true;
    });
  }
  function runTime(run, pos) {
    return roundTime[procRounds[runProc[run]][pos]];
  }
  // The first position of RUN whose time is >= T (runTo + 1 when none).
  function runPosAtOrAfter(run, t) {
    const rounds = procRounds[runProc[run]];
    let lo = runFrom[run], hi = runTo[run] + 1;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (roundTime[rounds[mid]] < t) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }
  // The first run of LANE ending at or after T.
  function firstRunEndingAfter(runs, t) {
    let lo = 0, hi = runs.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      const r = runs[mid];
      if (runTime(r, runTo[r]) < t) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  // ---- text ----

  function thousands(n) {
    return String(Math.round(n)).replace(/\B(?=(\d{3})+(?!\d))/g, ",");
  }
  function trimmed(v, decimals) {
    let s = v.toFixed(decimals);
    if (s.indexOf(".") >= 0) s = s.replace(/0+$/, "").replace(/\.$/, "");
    return s;
  }
  // As render/timeline/time_text.cpp duration_text.
  function durationText(ns) {
    if (ns < 1000) return Math.round(ns) + " ns";
    if (ns < 1e6) return trimmed(ns / 1e3, ns < 1e4 ? 2 : 1) + " \u00b5s";
    if (ns < 1e9) return trimmed(ns / 1e6, ns < 1e7 ? 2 : 1) + " ms";
    if (ns < 60e9) return trimmed(ns / 1e9, ns < 1e10 ? 2 : 1) + " s";
    const s = Math.round(ns / 1e9);
    if (s < 3600) return Math.floor(s / 60) + " min" + (s % 60 ? " " + (s % 60) + " s" : "");
    const min = Math.round(s / 60);
    return Math.floor(min / 60) + " h" + (min % 60 ? " " + (min % 60) + " min" : "");
  }
  // What the page calls 0 s: the samples' time 0 (as on the heatmap's page), else the window's
  // start. Times inside the page are ns since the domain's start; what people read is
  // seconds since ORIGIN.
  const ORIGIN = D.origin || 0;
  // T (ns since the domain's start) in seconds since time 0 with DECIMALS decimals (ns exact).
  function secondsText(t, decimals) {
    t = Math.round(t - ORIGIN);
    const neg = t < 0;
    t = Math.abs(t);
    const whole = Math.floor(t / NS);
    let s = String(whole);
    if (decimals > 0) s += "." + String(t - whole * NS).padStart(9, "0").slice(0, decimals);
    return (neg ? "-" : "") + s;
  }
  function decimalsFor(step) {
    let d = 0;
    for (let unit = NS; d < 9 && step % unit !== 0; unit /= 10) d++;
    return d;
  }
  // The wall clock at T (local time), when the samples gave it.
  const realSec = D.real_ns !== "0" ? Number(D.real_ns.slice(0, -9) || "0") : 0;
  const realFrac = D.real_ns !== "0" ? Number(D.real_ns.slice(-9)) : 0;
  function wallClock(t, digits) {
    if (D.real_ns === "0") return "";
    const total = realFrac + Math.round(t);
    const sec = realSec + Math.floor(total / NS);
    const frac = total - Math.floor(total / NS) * NS;
    const d = new Date(sec * 1000);
    const two = (v) => String(v).padStart(2, "0");
    let s = two(d.getHours()) + ":" + two(d.getMinutes()) + ":" + two(d.getSeconds());
    if (digits > 0) s += "." + String(frac).padStart(9, "0").slice(0, digits);
    return s;
  }
  function who(index) {
    if (index < 0) return "";
    const tid = whoTid[index];
    if (tid === 0) return "the idle task";
    const name = whoName[index];
    return name ? name + " (tid " + tid + ")" : "tid " + tid;
  }
  function laneWho(l) {
    return laneName[l] === "tid " + laneTid[l] ? laneName[l] : laneName[l] + " (tid " + laneTid[l] + ")";
  }
  function procText(p) {
    const pid = D.procs.pid[p], name = D.procs.name[p];
    if (!pid) return "process not known";
    return name ? name + " (pid " + pid + ")" : "pid " + pid;
  }

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

  // Adds lane L's time per class in each device column of the view to BUF (fractions of a column).
  // DIRECT: from the intervals whatever the zoom (what the summaries are built from).
  function accumulate(l, buf, cols, v0d, colNs, direct) {
    const levels = pyrLevels[l];
    if (!direct && levels && colNs >= pyrBucket[l]) {
      let j = 0, bucket = pyrBucket[l];
      while (j + 1 < levels.length && bucket * 2 <= colNs) {
        j++;
        bucket *= 2;
      }
      accumulateBuckets(levels[j], bucket, buf, cols, v0d, colNs, 1 / 65535);
      return;
    }
    const a0 = ivFirst[l], a1 = ivFirst[l + 1];
    const vEnd = v0d + cols * colNs;
    // The first interval ending after the view's start.
    let lo = a0, hi = a1;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (ivEnd[mid] <= v0d) lo = mid + 1;
      else hi = mid;
    }
    const last = cols - 1;
    for (let i = lo; i < a1; i++) {
      const s0 = ivStart[i];
      if (s0 >= vEnd) break;
      const fs = (s0 > v0d ? s0 - v0d : 0) / colNs;
      const e0 = ivEnd[i];
      const fe = ((e0 < vEnd ? e0 : vEnd) - v0d) / colNs;
      const k = ivClass[i];
      let cs = fs | 0;
      let ce = fe | 0;
      if (ce > last) ce = last;
      if (cs > last) continue;
      if (cs === ce) {
        buf[cs * 6 + k] += fe - fs;
      } else {
        buf[cs * 6 + k] += cs + 1 - fs;
        for (let c = cs + 1; c < ce; c++) buf[c * 6 + k] += 1;
        buf[ce * 6 + k] += fe - ce;
      }
    }
    const b0 = slFirst[l], b1 = slFirst[l + 1];
    for (let i = b0; i < b1; i++) {
      const s0 = slStart[i], e0 = s0 + slotNs;
      if (e0 <= v0d || s0 >= vEnd) continue;
      const fs = (s0 > v0d ? s0 - v0d : 0) / colNs;
      const fe = ((e0 < vEnd ? e0 : vEnd) - v0d) / colNs;
      let cs = fs | 0, ce = fe | 0;
      if (ce > last) ce = last;
      for (let c = cs; c <= ce; c++) {
        const part = (c === ce ? fe : c + 1) - (c === cs ? fs : c);
        if (part <= 0) continue;
        for (let k = 0; k < 6; k++) buf[c * 6 + k] += part * slTimes[i * 6 + k] / slotNs;
      }
    }
  }

  // Adds a summary level's buckets (BUCKET ns each, no wider than a column) to BUF.
  // UNIT: what a stored value of 1 is worth.
  function accumulateBuckets(level, bucket, buf, cols, v0d, colNs, unit) {
    const nb = level.length / 6;
    const vEnd = v0d + cols * colNs;
    const b0 = Math.max(0, Math.floor(v0d / bucket)), b1 = Math.min(nb, Math.ceil(vEnd / bucket));
    const last = cols - 1;
    for (let b = b0; b < b1; b++) {
      const o = b * 6;
      const s0 = b * bucket, e0 = s0 + bucket;
      const fs = (s0 > v0d ? s0 - v0d : 0) / colNs;
      const fe = ((e0 < vEnd ? e0 : vEnd) - v0d) / colNs;
      const cs = fs | 0;
      let ce = fe | 0;
      if (ce > last) ce = last;
      // A bucket's share of its time in each class, spread over the columns it overlaps (two
      // at most) by the overlap, in columns.
      if (cs === ce) {
        const part = (fe - fs) * unit;
        for (let k = 0; k < 6; k++) {
          const v = level[o + k];
          if (v) buf[cs * 6 + k] += v * part;
        }
      } else {
        const p1 = (cs + 1 - fs) * unit, p2 = (fe - ce) * unit;
        for (let k = 0; k < 6; k++) {
          const v = level[o + k];
          if (!v) continue;
          buf[cs * 6 + k] += v * p1;
          buf[ce * 6 + k] += v * p2;
        }
      }
    }
  }

  // Each lane's columns as last computed, kept so that a pan by whole columns computes only the
  // columns it brings in, and a scroll none: lane l's are cache[l * cols * 6, ...), computed for
  // the view starting at cacheV0[l] with the geometry of generation cacheGen[l].
  const CACHE_MAX = 6e6;  // floats; more lanes x columns than this: no cache
  let cache = null, cacheCols = 0, cacheColNs = 0, cacheGeneration = 0;
  const cacheV0 = new Float64Array(nLanes);
  const cacheGen = new Uint32Array(nLanes);
  let shiftTmp = null;
  function laneColumns(l, cols, colNs) {
    if (nLanes * cols * 6 > CACHE_MAX) {
      acc.fill(0);
      accumulate(l, acc, cols, v0, colNs);
      return acc;
    }
    if (!cache || cacheCols !== cols || Math.abs(cacheColNs - colNs) > colNs * 1e-9) {
      if (!cache || cache.length !== nLanes * cols * 6) cache = new Float32Array(nLanes * cols * 6);
      cacheCols = cols;
      cacheColNs = colNs;
      cacheGeneration++;
    }
    const mine = cache.subarray(l * cols * 6, (l + 1) * cols * 6);
    const d = (v0 - cacheV0[l]) / colNs;
    const k = Math.round(d);
    if (cacheGen[l] === cacheGeneration && Math.abs(d - k) < 1e-3 && Math.abs(k) < cols) {
      if (k === 0) return mine;
      // Keep the columns still in view; compute those the pan brings in.
      const n = Math.abs(k);
      if (!shiftTmp || shiftTmp.length < n * 6) shiftTmp = new Float64Array(cols * 6);
      const tmp = shiftTmp.subarray(0, n * 6);
      tmp.fill(0);
      if (k > 0) {
        mine.copyWithin(0, n * 6);
        accumulate(l, tmp, n, v0 + (cols - n) * colNs, colNs);
        mine.set(tmp, (cols - n) * 6);
      } else {
        mine.copyWithin(n * 6, 0, (cols - n) * 6);
        accumulate(l, tmp, n, v0, colNs);
        mine.set(tmp, 0);
      }
    } else {
      acc.fill(0);
      accumulate(l, acc, cols, v0, colNs);
      mine.set(acc);
    }
    cacheV0[l] = v0;
    cacheGen[l] = cacheGeneration;
    return mine;
  }

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

  function elide(text, width) {
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
      if (xw - xs > 60) ctx.fillText("slots of " + durationText(slotNs), xs + 4, keptY + 9);
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
    if (!row || row.kind === "proc") return "";
    if (row.kind === "group") {
      const p = pixelText(row.members, x);
      return D.groups.name[row.group] + " (" + row.members.length + " threads; click its name to " +
        (opened.has(row.group) ? "close" : "open") + ")\nat " + timeText(t) + "\nthis pixel (" +
        durationText(p.colNs) + "), threads: " + (sharesText(p.buf, 1, true) || "none");
    }
    const l = row.lane;
    const lines = [laneWho(l) + " \u00b7 " + procText(laneProc[l])];
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
        lines.push("slot " + secondsText(slStart[s], 3) + " s \u2013 " + secondsText(slStart[s] + slotNs, 3) +
                   " s (slots: time per state only, not whole intervals)");
        lines.push(parts.join(" \u00b7 ") + " \u00b7 " + thousands(slSwitches[s]) + " switches");
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
    if (D.heatmap) {
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

  // ---- the view ----

  let pending = false;
  let ready = false;  // the data decoded and the first frame drawn
  function requestDraw() {
    if (pending || !ready) return;
    pending = true;
    requestAnimationFrame(() => {
      pending = false;
      draw();
      showRange();
      scheduleUrl();
    });
  }
  function setView(a, b) {
    let s = Math.max(MIN_SPAN, Math.min(span, b - a));
    if (!(s > 0)) s = Math.max(1, span);
    let from = a + (b - a - s) / 2;
    from = Math.max(0, Math.min(span - s, from));
    if (span <= MIN_SPAN) from = 0;
    v0 = from;
    v1 = from + s;
    requestDraw();
  }
  function zoomAt(t, factor) {
    setView(t - (t - v0) * factor, t + (v1 - t) * factor);
  }
  function pan(ns) {
    setView(v0 + ns, v1 + ns);
  }
  // FRACTION of the view's width in whole device columns, ns (a pan by whole columns redraws
  // only the columns it brings in).
  function columnsNs(fraction) {
    const cols = Math.max(1, Math.round(plotW() * dpr));
    return Math.round(cols * fraction) * (v1 - v0) / cols;
  }
  function showRange() {
    const d = decimalsFor(tickStep(v1 - v0, plotW(), 110));
    document.getElementById("range").textContent = "showing " + secondsText(v0, Math.min(9, d + 2)) + " s \u2013 " +
      secondsText(v1, Math.min(9, d + 2)) + " s (" + durationText(v1 - v0) + ")";
  }

  // ---- URL state ----

  let restoring = false;
  let urlTimer = 0;
  function secondsParam(t) {
    return trimmed(Math.round(t - ORIGIN) / NS, 9);
  }
  function scheduleUrl() {
    if (restoring) return;
    clearTimeout(urlTimer);
    urlTimer = setTimeout(updateUrl, 250);
  }
  function updateUrl() {
    if (!window.history || !window.URLSearchParams) return;
    try {
      const p = new URLSearchParams(window.location.search);
      for (const k of ["r", "g", "e", "t"]) p.delete(k);
      if (v0 > 0 || v1 < span) p.set("r", secondsParam(v0) + "-" + secondsParam(v1));
      if (grouped) p.set("g", "1");
      if (grouped && opened.size) p.set("e", Array.from(opened).sort((a, b) => a - b).join(","));
      if (filterText) p.set("t", filterText);
      const q = p.toString();
      window.history.replaceState(window.history.state, "", window.location.pathname + (q ? "?" + q : "") + window.location.hash);
    } catch (e) {
      // A sandboxed frame may refuse to rewrite the URL: the state stays in the page.
    }
  }
  function parseRange(s) {
    const m = /^(-?\d+(?:\.\d+)?)-(-?\d+(?:\.\d+)?)$/.exec(s || "");
    if (!m) return null;
    const a = Math.round(parseFloat(m[1]) * NS) + ORIGIN, b = Math.round(parseFloat(m[2]) * NS) + ORIGIN;
    return b > a ? [a, b] : null;
  }

  // ---- interaction ----

  const groupBox = document.getElementById("group");
  const filterEl = document.getElementById("filter");
  function relayout() {
    buildRows();
    layout();
    requestDraw();
  }
  function setGrouped(on) {
    grouped = on;
    groupBox.checked = on;
    relayout();
  }
  function setFilter(text) {
    filterText = text;
    try {
      filterRe = text ? new RegExp(text) : null;
      filterEl.setCustomValidity("");
    } catch (e) {
      filterRe = null;
      filterEl.setCustomValidity("not a regular expression");
    }
    relayout();
  }
  groupBox.addEventListener("change", () => setGrouped(groupBox.checked));
  let filterTimer = 0;
  filterEl.addEventListener("input", () => {
    clearTimeout(filterTimer);
    filterTimer = setTimeout(() => setFilter(filterEl.value), 150);
  });
  document.getElementById("whole").addEventListener("click", () => setView(0, span));

  function localXY(e) {
    const box = overlay.getBoundingClientRect();
    return [e.clientX - box.left, e.clientY - box.top];
  }
  overlay.addEventListener("wheel", (e) => {
    e.preventDefault();
    if (!ready) return;
    const unit = e.deltaMode === 1 ? 33 : e.deltaMode === 2 ? cssH : 1;
    const dx = e.deltaX * unit, dy = e.deltaY * unit;
    if (e.shiftKey) {
      wrap.scrollTop += dy || dx;
      return;
    }
    if (Math.abs(dx) > Math.abs(dy)) {
      pan(dx / plotW() * (v1 - v0));
      return;
    }
    const [x] = localXY(e);
    const t = x >= LABEL_W ? timeAt(x) : (v0 + v1) / 2;
    zoomAt(t, Math.exp(dy * 0.0025));
  }, { passive: false });

  let drag = null;
  overlay.addEventListener("mousedown", (e) => {
    if (e.button !== 0) return;
    const [x, y] = localXY(e);
    wrap.focus({ preventScroll: true });
    e.preventDefault();
    drag = { x: x, y: y, v0: v0, v1: v1, select: e.shiftKey, moved: false };
    if (!drag.select) overlay.classList.add("grab");
  });
  window.addEventListener("mousemove", (e) => {
    if (!ready) return;
    const [x, y] = localXY(e);
    if (drag) {
      if (Math.abs(x - drag.x) > 3) drag.moved = true;
      if (drag.select) {
        selection = [drag.x, x];
        drawOverlay();
      } else if (drag.moved) {
        const perPx = (drag.v1 - drag.v0) / plotW();
        setView(drag.v0 - (x - drag.x) * perPx, drag.v1 - (x - drag.x) * perPx);
      }
      return;
    }
    if (e.target !== overlay) return;
    hoverX = x;
    hoverY = y;
    showTip(x, y);
    drawOverlay();
  });
  window.addEventListener("mouseup", (e) => {
    if (!drag || !ready) return;
    const d = drag;
    drag = null;
    overlay.classList.remove("grab");
    const [x, y] = localXY(e);
    if (d.select) {
      selection = null;
      if (Math.abs(x - d.x) > 3) {
        const a = timeAt(Math.max(LABEL_W, Math.min(d.x, x))), b = timeAt(Math.min(LABEL_W + plotW(), Math.max(d.x, x)));
        setView(a, b);
      } else {
        drawOverlay();
      }
      return;
    }
    if (d.moved) return;
    click(x, y);
  });
  overlay.addEventListener("mouseleave", () => {
    hoverX = -1;
    tip.hidden = true;
    hoverTick = null;
    tipText = "";
    drawOverlay();
  });
  function click(x, y) {
    const row = rowAt(y);
    if (row && row.kind === "group" && x < LABEL_W) {
      if (opened.has(row.group)) opened.delete(row.group);
      else opened.add(row.group);
      relayout();
      return;
    }
    tooltipFor(x, y);
    if (hoverTick) showSample(hoverTick);
  }
  wrap.addEventListener("scroll", () => {
    tip.hidden = true;
    requestDraw();
  });
  wrap.addEventListener("keydown", (e) => {
    if (e.ctrlKey || e.metaKey || e.altKey || !ready) return;
    const mid = hoverX >= LABEL_W ? timeAt(hoverX) : (v0 + v1) / 2;
    switch (e.key) {
      case "+": case "=": case "w": zoomAt(mid, 1 / 1.5); break;
      case "-": case "_": case "s": zoomAt(mid, 1.5); break;
      case "ArrowLeft": case "a": pan(-columnsNs(0.2)); break;
      case "ArrowRight": case "d": pan(columnsNs(0.2)); break;
      case "0": case "Home": setView(0, span); break;
      case "g": setGrouped(!grouped); break;
      case "Escape": selection = null; tip.hidden = true; drawOverlay(); break;
      default: return;
    }
    e.preventDefault();
  });
  window.addEventListener("resize", () => {
    layout();
    requestDraw();
  });
  if (window.matchMedia) {
    const mq = window.matchMedia("(prefers-color-scheme: dark)");
    const changed = () => {
      colors = null;
      if (ready) draw();
    };
    if (mq.addEventListener) mq.addEventListener("change", changed);
    else if (mq.addListener) mq.addListener(changed);
  }

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
    }, 0);
  });

  // For tests and benchmarks (tests/browser/timeline.test.mjs, tests/bench/timeline_bench.mjs):
  // set once the first frame is drawn.
  function publish() {
    window.hearthTimeline = {
      view: () => ({ from: v0, to: v1, span: span }),
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
})();

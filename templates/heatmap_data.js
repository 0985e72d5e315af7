// The heatmap page's data (templates/heatmap_*.js, one script: render/time/heat_page.cpp joins
// them in one function scope, in the order it lists them). Decodes the embedded samples (the
// dictionary and the changes, render/time/heat_data.h) into runs: a run is one thread in one
// state and stack from one sample (round) to the round before its next change. Provides the
// rounds (roundTime, roundProc), the runs (runStart/End/Thread/Stack/State, nRuns), each
// thread's runs in time order (runAt), the cells (cellOfRound, cellStart) and time lookups
// (roundAt, nearestRound).
const NS = 1e9;
const GONE = 127;
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

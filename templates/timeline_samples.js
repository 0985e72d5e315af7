// hearth timeline page: the stack samples (rounds and runs) decoded, and each lane's runs by
// time, for the ticks and the sample panel.

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
    for (; r < nRounds; r++) {
      if ((r & 31) === 0 && stepOver()) break;
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
    // Each lane's runs: in the order they were decoded, which is the order of their first
    // rounds, so by time (the rounds' times never decrease).
    const count = new Uint32Array(nLanes);
    for (let i = 0; i < nRuns; i++) {
      const l = threadLane[runThread[i]];
      if (l >= 0) count[l]++;
    }
    for (let l = 0; l < nLanes; l++) laneRuns[l] = new Uint32Array(count[l]);
    count.fill(0);
    for (let i = 0; i < nRuns; i++) {
      const l = threadLane[runThread[i]];
      if (l >= 0) laneRuns[l][count[l]++] = i;
    }
    return true;
  });
  let spanLane = 0;
  tasks.push(() => {
    for (; spanLane < nLanes && !stepOver(); spanLane++) {
      const runs = laneRuns[spanLane];
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
      laneSpans[spanLane] = spans;
    }
    return spanLane >= nLanes;
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

// hearth timeline page (render/timeline/timeline_page.h): the data. The page's script is the
// concatenation of templates/timeline_*.js in the order timeline_page.cpp lists them, inside one
// function (one closure: the files share its names); this first one holds the constants and
// decodes the embedded data (render/timeline/timeline_data.h) into typed arrays, in tasks of
// about STEP_MS each (runTasks), so the page keeps answering while it reads.
//
// The page as a whole: reads the embedded data (the lanes' intervals, slots and the samples'
// changes) into typed arrays once, then draws on a canvas, one device pixel column at a time:
// - per lane, the time each column holds in each state class (intervals' overlaps; a slot's
//   times spread over it), drawn as a stacked stripe (one colour where one state fills it);
// - the all-threads lane on top: the same times summed over the lanes shown, in threads;
// - a pool, grouped and closed: its threads' times summed, as shares of the pool;
// - sample ticks along a lane's top (a band where they are denser than the pixels).
// Pixels go into one ImageData (fast for a million intervals); text and the hover cursor are
// drawn on top (the cursor on a second canvas, so hovering never redraws the lanes).

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

// A step's CPU time: on a loaded machine a task waits for a CPU too, so its length in time is
// a few times this.
const STEP_MS = 16;
const tasks = [];  // each call does a bounded piece of work; true when its work is done
let stepEnd = 0;   // performance.now() at which the current step should yield
// Whether the current step has used its time: a task that loops checks it between pieces.
function stepOver() {
  return performance.now() > stepEnd;
}
// Runs FN in a task of its own, next: a message to ourselves (setTimeout(0) waits 4 ms and more
// once nested, each of ~60 steps).
const stepChannel = new MessageChannel();
let stepNext = null;
stepChannel.port1.onmessage = () => {
  const fn = stepNext;
  stepNext = null;
  fn();
};
function nextStep(fn) {
  stepNext = fn;
  stepChannel.port2.postMessage(0);
}
function runTasks(then) {
  stepEnd = performance.now() + STEP_MS;
  while (tasks.length) {
    if (tasks[0]()) tasks.shift();
    if (tasks.length && stepOver()) {
      nextStep(() => runTasks(then));
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
    for (const from = lane; lane < nLanes && (lane === from || !stepOver()); lane++) {
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

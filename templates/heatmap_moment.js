// The moment view (part of the heatmap page's script, see heatmap_data.js): every thread of the
// sample nearest an instant, grouped by state and stack, waits first.
// ---- the moment view ----

// "lock" as a word of a name (pthread_mutex_lock, __lll_lock_wait, spin_lock), not inside
// one (clock, tcp_recvmsg_locked, block).
const LOCK = /futex|mutex|(^|[^a-z])(spin_?)?lock(?![a-z])|rwsem|sem_wait|semaphore|cond_?wait|condition_variable/i;
const IO = /(^|[^a-z])(e?poll|p?select|p?readv?|p?writev?|recv|send|accept|connect|fsync|fdatasync|sync_file|io_|aio|blk|bio_|submit_bio|nfs|ext4|xfs|btrfs|wait_on_page|folio_wait)/i;
const frameKind = new Int8Array(nFrames).fill(-1);  // 0 none, 1 lock, 2 I/O; -1 unknown yet
function kindOfFrame(f) {
  if (frameKind[f] < 0) frameKind[f] = LOCK.test(frames[f]) ? 1 : IO.test(frames[f]) ? 2 : 0;
  return frameKind[f];
}
function waitKind(stack) {  // 1 lock, 2 I/O, 0 neither: the frame nearest the leaf decides
  for (let i = stackStart[stack + 1]; i-- > stackStart[stack];) {
    const k = kindOfFrame(stackFrames[i]);
    if (k) return k;
  }
  return 0;
}
// The order of groups (README, "The moment view"): D first, then lock waits, I/O waits
// (not R, with such a frame), then R, then other sleeps, then the rest.
function rankOf(stateChar, stack) {
  if (stateChar === "D") return [0, "blocked (D)", "blocked", "blocked here"];
  if (stateChar !== "R") {
    const k = waitKind(stack);
    if (k === 1) return [1, "lock wait, " + stateChar, "lock", "waiting here"];
    if (k === 2) return [2, "I/O wait, " + stateChar, "io", "waiting here"];
  }
  if (stateChar === "R") return [3, "on CPU or runnable (R)", "running", "running here"];
  if (stateChar === "S") return [4, "sleeping (S)", "sleeping", "sleeping here"];
  return [5, "state " + stateChar, "other", "here"];
}

let lastMoment = null;  // for tests
function showMoment() {
  const out = document.getElementById("moment");
  const info = document.getElementById("moment-info");
  const titleEl = document.getElementById("moment-title");
  out.textContent = "";
  if (momentRound < 0 || momentRound >= nRounds) {
    titleEl.textContent = "Moment";
    info.textContent = "Click a cell: every thread's state and stack in the sample nearest to it.";
    lastMoment = null;
    return;
  }
  const t0 = performance.now();
  const r = momentRound;
  const p = roundProc[r];
  const groups = new Map();
  let threads = 0;
  for (let t = 0; t < nThreads; t++) {
    if (!pass[t] || (procPrefix.length && threadProc[t] !== p)) continue;
    const k = runAt(t, r);
    if (k < 0) continue;
    threads++;
    const key = runStack[k] * 128 + runState[k];
    let g = groups.get(key);
    if (!g) {
      const st = D.states[runState[k]];
      g = { stack: runStack[k], state: st, rank: rankOf(st, runStack[k]), runs: [], longest: 0 };
      groups.set(key, g);
    }
    g.runs.push(k);
    g.longest = Math.max(g.longest, roundTime[r] - roundTime[runStart[k]]);
  }
  const list = Array.from(groups.values());
  list.sort((a, b) => a.rank[0] - b.rank[0] || b.runs.length - a.runs.length || b.longest - a.longest ||
    a.stack - b.stack || (a.state < b.state ? -1 : a.state > b.state ? 1 : 0));
  titleEl.textContent = "Moment: " + timeText(roundTime[r]);
  info.textContent = "Sample " + thousands(r + 1) + " of " + thousands(nRounds) + " (pid " + D.procs[p] + "): " +
    thousands(threads) + " threads in " + thousands(list.length) + " groups" +
    (filterRe ? " (threads matching /" + filterText + "/)" : "") +
    ". Waits first: D, then lock waits (futex, mutex, lock, sem, condition-variable frames), I/O waits (read, write, poll, recv, send, fsync, io_, block-layer frames), then R, then other sleeps. Durations: since the first sample that saw the thread in this state and stack.";
  const html = [];
  list.forEach(function (g, index) {
    const n = g.runs.length;
    const leaf = stackStart[g.stack + 1] > stackStart[g.stack] ? frames[stackFrames[stackStart[g.stack + 1] - 1]] : "(no frames)";
    // The first groups open, the others one click away.
    html.push('<details class="group ' + g.rank[2] + '" data-threads="' + n + '" data-state="' + esc(g.state) + '"' +
      (index < 4 ? " open" : "") + ">");
    html.push('<summary class="head">' + n + (n === 1 ? " thread " : " threads ") + esc(g.rank[3]) +
      ' <span class="why">\u00b7 ' + esc(g.rank[1]) + " \u00b7 for up to " + esc(durationText(g.longest)) +
      " \u00b7 in " + esc(leaf) + "</span></summary>");
    html.push('<ol class="stack" reversed>');
    for (let i = stackStart[g.stack + 1]; i-- > stackStart[g.stack];) html.push("<li>" + esc(frames[stackFrames[i]]) + "</li>");
    html.push("</ol><ul class=\"threads\">");
    g.runs.sort((a, b) => runStart[a] - runStart[b] || runThread[a] - runThread[b]);
    for (const k of g.runs) {
      const t = runThread[k];
      const since = roundTime[r] - roundTime[runStart[k]];
      const first = threadFirstRun(t) === k;
      let how;
      if (since === 0) how = first ? "from this sample on (its first)" : "since this sample (the one before differs)";
      else how = "for " + (first ? "\u2265 " : "") + durationText(since) + (first ? " (since its first sample)" : "");
      html.push("<li>" + esc(threadLabel(t)) + ": " + esc(g.state) + " " + esc(how) + "</li>");
    }
    html.push("</ul></details>");
  });
  out.innerHTML = html.join("");
  lastMoment = { round: r, time_ns: roundTime[r], threads: threads,
                 groups: list.map((g) => ({ threads: g.runs.length, state: g.state, kind: g.rank[2],
                                            leaf: stackStart[g.stack + 1] > stackStart[g.stack]
                                              ? frames[stackFrames[stackStart[g.stack + 1] - 1]] : "" })),
                 ms: performance.now() - t0 };
}

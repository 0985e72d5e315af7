// The colour mode and the thread filter, and the cell counts they give (part of the heatmap
// page's script, see heatmap_data.js): counts[class][cell] as render/time/heat_grid.h counts.
// ---- filters and counts ----

let mode = DEFAULT_MODE;
let filterText = "";
let filterRe = null;
const pass = new Uint8Array(nThreads).fill(1);
let modeClass = -1;  // -1: every state

function setFilter(text) {
  filterText = text || "";
  filterRe = null;
  let ok = true;
  if (filterText) {
    try {
      filterRe = new RegExp(filterText);
    } catch (e) {
      ok = false;
    }
  }
  let kept = 0;
  for (let t = 0; t < nThreads; t++) {
    pass[t] = !filterRe || filterRe.test(rootText[t]) ? 1 : 0;
    kept += pass[t];
  }
  const note = document.getElementById("filter-note");
  if (note) {
    note.textContent = !ok ? "not a regular expression: every thread is shown"
      : filterRe ? kept + " of " + nThreads + " threads" : "";
    note.className = ok ? "" : "problem";
  }
}
function setMode(m) {
  mode = MODES.indexOf(m) >= 0 ? m : DEFAULT_MODE;
  modeClass = mode === "all" ? -1 : mode === "other" ? 3 : CLASS_OF[mode];
  for (const input of document.querySelectorAll("input[name=mode]")) input.checked = input.value === mode;
}
function runCounted(k) {
  return pass[runThread[k]] && (modeClass < 0 || stateClass[runState[k]] === modeClass);
}

// counts[class][cell], for the threads the filter keeps (every state class).
const counts = [0, 1, 2, 3].map(() => new Uint32Array(nCells));
let totals = new Uint32Array(nCells);
let countsVersion = 0;  // counted again: the heatmap's cells change (heatmap_grid.js)
function countCells() {
  countsVersion++;
  for (const c of counts) c.fill(0);
  for (let k = 0; k < nRuns; k++) {
    const t = runThread[k];
    if (!pass[t]) continue;
    const cnt = counts[stateClass[runState[k]]];
    const p = threadProc[t];
    const a = runStart[k], b = runEnd[k];
    if (b <= a) continue;  // two changes of one thread in one round: the first lasted no time
    const c0 = cellOfRound[a], c1 = cellOfRound[b - 1];
    if (c0 === c1) {
      cnt[c0] += roundsOf(p, a, b);
      continue;
    }
    for (let c = c0; c <= c1; c++) {
      const lo = Math.max(a, cellStart[c]), hi = Math.min(b, cellStart[c + 1]);
      if (hi > lo) cnt[c] += roundsOf(p, lo, hi);
    }
  }
  totals = new Uint32Array(nCells);
  for (const c of counts) for (let i = 0; i < nCells; i++) totals[i] += c[i];
}
function cellValue(i) {
  return modeClass < 0 ? totals[i] : counts[modeClass][i];
}

// hearth heatmap page script (embedded in the page `hearth heatmap -o heat.html` writes,
// render/time/heat_page.h): the start, run last. The page's script is the templates
// heatmap_*.js then this one, joined by heat_page.cpp into one function scope:
// - heatmap_data.js: the embedded samples decoded into rounds, runs and cells;
// - heatmap_text.js: numbers, times and names for people;
// - heatmap_counts.js: colour mode, thread filter, the cells' counts;
// - heatmap_state.js: the selection (range, baseline, moment) and the URL;
// - heatmap_grid.js: the heatmap canvas;
// - heatmap_tree.js: the path tree and a range's totals (the flamegraph's aggregation);
// - heatmap_layout.js: a range's flamegraph laid out as `hearth flame` lays it out
//   (render/flame/layout.cpp: geometry, titles, colours, pruning; hearth diff's for two ranges);
// - heatmap_flame.js: that flamegraph drawn in the page by templates/flame.js;
// - heatmap_moment.js: the moment view;
// - heatmap_input.js: mouse, keyboard and form input;
// - time_link.js, heatmap_link.js: the report's time view (when.html): one range and one instant
//   shared with the timeline and the metric charts.

// ---- start ----

(function start() {
  const infoEl = document.getElementById("info");
  const span = nRounds ? roundTime[nRounds - 1] : 0;
  infoEl.textContent = (D.source ? D.source + ": " : "") + thousands(nRounds) + " samples over " +
    durationText(span) + ", " + thousands(nThreads) + " threads, " + thousands(nRuns) + " changes; columns of " +
    durationText(colNs) + ", rows of " + durationText(rowNs) + (D.chosen ? " (for " + D.chosen + ")" : "") +
    (D.real_ns !== "0" ? "; time 0 = " + wallClock(0) : "") + ".";
  if (D.damage) {
    const el = document.getElementById("damage");
    el.textContent = "The file is damaged: " + D.damage + ". The samples before it are shown.";
    el.hidden = false;
  }
  const p = window.URLSearchParams ? new URLSearchParams(window.location.search) : null;
  restoring = true;
  try {
    setMode(p ? p.get("c") : DEFAULT_MODE);
    filterText = p ? p.get("t") || "" : "";
    filterEl.value = filterText;
    setFilter(filterText);
    geometry();
    countCells();
    range = p ? parseRange(p.get("r")) : null;
    baseline = p ? parseRange(p.get("b")) : null;
    const m = p ? parseFloat(p.get("m")) : NaN;
    momentRound = isFinite(m) && nRounds ? nearestRound(Math.round(m * NS)) : -1;
    if (range) cursor = cellsOf(range)[0];
    draw();
    if (range) showFlame();
    if (momentRound >= 0) showMoment();
  } finally {
    restoring = false;
  }
  // The path tree the flamegraphs need, built when the page is idle.
  setTimeout(buildTree, 0);
  startLink();
})();

// For tests and benchmarks (tests/browser/heatmap.test.mjs): read-only views.
window.hearthHeatmap = {
  cells: () => ({ rows: rows, columns: nColumns, rowNs: rowNs, totals: Array.from(totals),
                  byClass: counts.map((c) => Array.from(c)) }),
  cellRect: (c) => cellRect(c),
  lastFlame: () => lastFlame,
  lastMoment: () => lastMoment,
  runs: () => nRuns,
};

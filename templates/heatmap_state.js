// The page's selection and its URL (part of the heatmap page's script, see heatmap_data.js).
// State in the URL (replaceState): r=FROM-TO and b=FROM-TO (seconds since time 0: the range and
// the baseline), m=SECONDS (the moment's sample), c=all|R|D|S|other (the colour), t=REGEX (the
// thread filter, searched in each thread's root frames); c is absent for the default, R.

let range = null;      // [fromNs, toNs)
let baseline = null;   // [fromNs, toNs)
let cursor = 0;        // keyboard cell
let anchor = -1;       // keyboard selection start
let momentRound = -1;
// The report's time view (templates/time_link.js; heatmap_link.js): the link, once started, and
// the instant it gave (seconds), which the moment's sample stands for while it is shown.
let timeLink = null;
let linkedAt = null;  // [seconds, round]

// ---- URL state ----

let restoring = false;
function rangeParam(r) {
  return seconds(r[0]) + "-" + seconds(r[1]);
}
function parseRange(s) {
  const m = /^(\d+(?:\.\d+)?)-(\d+(?:\.\d+)?)$/.exec(s || "");
  if (!m) return null;
  const a = Math.round(parseFloat(m[1]) * NS), b = Math.round(parseFloat(m[2]) * NS);
  return b > a ? [a, b] : null;
}
function updateUrl() {
  if (restoring) return;
  if (timeLink) timeLink.changed();
  if (!window.history || !window.URLSearchParams) return;
  try {
    const p = new URLSearchParams(window.location.search);
    for (const k of ["r", "b", "m", "c", "t"]) p.delete(k);
    if (range) p.set("r", rangeParam(range));
    if (baseline) p.set("b", rangeParam(baseline));
    if (momentRound >= 0) p.set("m", seconds(roundTime[momentRound]));
    if (mode !== DEFAULT_MODE) p.set("c", mode);
    if (filterText) p.set("t", filterText);
    const q = p.toString();
    window.history.replaceState(window.history.state, "", window.location.pathname + (q ? "?" + q : "") + window.location.hash);
  } catch (e) {
    // Sandboxed frames may refuse to rewrite the URL: the state stays in the page.
  }
}

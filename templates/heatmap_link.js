// The heatmap in the report's time view (part of the heatmap page's script, see heatmap_data.js;
// the link itself is templates/time_link.js): the view's range is the heatmap's range (its cells
// shaded, its flamegraph drawn), the view's instant its moment (the sample nearest it, its column
// marked). A range or a moment chosen here goes to the view through updateUrl, which every change
// of the selection calls. The baseline, the colour and the filter stay this page's own.
// ---- the time view ----

function linkedRange(t) {  // seconds -> [fromNs, toNs), or null
  return t ? [Math.round(t[0] * NS), Math.round(t[1] * NS)] : null;
}
function sameRange(a, b) {
  return a === b || (a !== null && b !== null && a[0] === b[0] && a[1] === b[1]);
}
function applyLinked(s) {
  const r = linkedRange(s.t);
  const m = s.at === null || nRounds === 0 ? -1 : nearestRound(Math.round(s.at * NS));
  const newRange = !sameRange(r, range), newMoment = m !== momentRound;
  linkedAt = m >= 0 ? [s.at, m] : null;
  if (newRange) {
    range = r;
    anchor = -1;
    if (r) cursor = Math.max(0, Math.min(nCells - 1, cellsOf(r)[0]));
  }
  if (!newRange && !newMoment) return;
  momentRound = m;
  draw();
  if (newMoment) showMoment();
  // The moment shows first; the flamegraph (it takes longer) after the next paint.
  if (newRange) flameAfterPaint();
  updateUrl();
}
function describeLinked() {
  let at = null;
  if (momentRound >= 0) {
    at = linkedAt && linkedAt[1] === momentRound ? linkedAt[0] : roundTime[momentRound] / NS;
  }
  return { t: range ? [range[0] / NS, range[1] / NS] : null, at: at };
}
function startLink() {
  timeLink = hearthTimeLink(applyLinked, describeLinked);
}

// hearth timeline page: the state in the URL (replaceState): r=FROM-TO (the view, seconds since
// time 0 with up to 9 decimals), g=1 (pools grouped), e=N,N (pools opened), t=REGEX (the filter).

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

// hearth timeline page in the report's time view (the link itself is templates/time_link.js):
// the view's range is the timeline's view (it zooms there), the view's instant a line across
// the lanes. The timeline's own zoom and pan, once they rest (LINK_MS), are the view's range;
// the whole window is no range. A click on a lane (or M, at the pointer or the middle) sets the
// instant, a sample's tick its sample's time: the time view's moment view shows every thread then.

// ---- the time view ----

const LINK_MS = 500;  // ms a zoom or pan rests before it becomes the view's range
let timeLink = null;
let atNs = null;  // the view's instant, ns since the domain's start; null: none
let linkTimer = 0;
function linked() {
  return timeLink !== null && timeLink.linked();
}
function scheduleLink() {
  if (!linked()) return;
  clearTimeout(linkTimer);
  linkTimer = setTimeout(() => timeLink.changed(), LINK_MS);
}
function applyLinked(s) {
  if (s.t) {
    const a = Math.round(s.t[0] * NS) + ORIGIN, b = Math.round(s.t[1] * NS) + ORIGIN;
    if (a !== v0 || b !== v1) setView(a, b);
  } else if (v0 > 0 || v1 < span) {
    setView(0, span);
  }
  atNs = s.at === null ? null : Math.round(s.at * NS) + ORIGIN;
  drawOverlay();
}
function describeLinked() {
  return { t: v0 <= 0 && v1 >= span ? null : [(v0 - ORIGIN) / NS, (v1 - ORIGIN) / NS],
           at: atNs === null ? null : (atNs - ORIGIN) / NS };
}
// The instant at T (ns since the domain's start), told to the view at once.
function setInstant(t) {
  atNs = t;
  drawOverlay();
  clearTimeout(linkTimer);
  timeLink.changed();
}
// The instant's line, on the overlay.
function drawInstant() {
  if (atNs === null) return;
  const x = xOf(atNs);
  if (x < LABEL_W || x > LABEL_W + plotW()) return;
  octx.fillStyle = colors.accent;
  octx.fillRect(Math.round(x) - 1, 0, 2, cssH);
}
function startLink() {
  timeLink = hearthTimeLink(applyLinked, describeLinked);
}

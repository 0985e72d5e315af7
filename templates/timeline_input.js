// hearth timeline page: the view (zoom and pan, drawn once per animation frame) and the mouse,
// wheel and keyboard.

// ---- the view ----

let pending = false;
let ready = false;  // the data decoded and the first frame drawn
function requestDraw() {
  if (pending || !ready) return;
  pending = true;
  requestAnimationFrame(() => {
    pending = false;
    draw();
    showRange();
    scheduleUrl();
    scheduleLink();
  });
}
function setView(a, b) {
  let s = Math.max(MIN_SPAN, Math.min(span, b - a));
  if (!(s > 0)) s = Math.max(1, span);
  let from = a + (b - a - s) / 2;
  from = Math.max(0, Math.min(span - s, from));
  if (span <= MIN_SPAN) from = 0;
  v0 = from;
  v1 = from + s;
  requestDraw();
}
function zoomAt(t, factor) {
  setView(t - (t - v0) * factor, t + (v1 - t) * factor);
}
function pan(ns) {
  setView(v0 + ns, v1 + ns);
}
// FRACTION of the view's width in whole device columns, ns (a pan by whole columns redraws
// only the columns it brings in).
function columnsNs(fraction) {
  const cols = Math.max(1, Math.round(plotW() * dpr));
  return Math.round(cols * fraction) * (v1 - v0) / cols;
}
function showRange() {
  const d = decimalsFor(tickStep(v1 - v0, plotW(), 110));
  document.getElementById("range").textContent = "showing " + secondsText(v0, Math.min(9, d + 2)) + " s \u2013 " +
    secondsText(v1, Math.min(9, d + 2)) + " s (" + durationText(v1 - v0) + ")";
}

// ---- interaction ----

const groupBox = document.getElementById("group");
const filterEl = document.getElementById("filter");
function relayout() {
  buildRows();
  layout();
  requestDraw();
}
function setGrouped(on) {
  grouped = on;
  groupBox.checked = on;
  relayout();
}
function setFilter(text) {
  filterText = text;
  try {
    filterRe = text ? new RegExp(text) : null;
    filterEl.setCustomValidity("");
  } catch (e) {
    filterRe = null;
    filterEl.setCustomValidity("not a regular expression");
  }
  relayout();
}
groupBox.addEventListener("change", () => setGrouped(groupBox.checked));
let filterTimer = 0;
filterEl.addEventListener("input", () => {
  clearTimeout(filterTimer);
  filterTimer = setTimeout(() => setFilter(filterEl.value), 150);
});
document.getElementById("whole").addEventListener("click", () => setView(0, span));

function localXY(e) {
  const box = overlay.getBoundingClientRect();
  return [e.clientX - box.left, e.clientY - box.top];
}
overlay.addEventListener("wheel", (e) => {
  e.preventDefault();
  if (!ready) return;
  const unit = e.deltaMode === 1 ? 33 : e.deltaMode === 2 ? cssH : 1;
  const dx = e.deltaX * unit, dy = e.deltaY * unit;
  if (e.shiftKey) {
    wrap.scrollTop += dy || dx;
    return;
  }
  if (Math.abs(dx) > Math.abs(dy)) {
    pan(dx / plotW() * (v1 - v0));
    return;
  }
  const [x] = localXY(e);
  const t = x >= LABEL_W ? timeAt(x) : (v0 + v1) / 2;
  zoomAt(t, Math.exp(dy * 0.0025));
}, { passive: false });

let drag = null;
overlay.addEventListener("mousedown", (e) => {
  if (e.button !== 0) return;
  const [x, y] = localXY(e);
  wrap.focus({ preventScroll: true });
  e.preventDefault();
  drag = { x: x, y: y, v0: v0, v1: v1, select: e.shiftKey, moved: false };
  if (!drag.select) overlay.classList.add("grab");
});
window.addEventListener("mousemove", (e) => {
  if (!ready) return;
  const [x, y] = localXY(e);
  if (drag) {
    if (Math.abs(x - drag.x) > 3) drag.moved = true;
    if (drag.select) {
      selection = [drag.x, x];
      drawOverlay();
    } else if (drag.moved) {
      const perPx = (drag.v1 - drag.v0) / plotW();
      setView(drag.v0 - (x - drag.x) * perPx, drag.v1 - (x - drag.x) * perPx);
    }
    return;
  }
  if (e.target !== overlay) return;
  hoverX = x;
  hoverY = y;
  showTip(x, y);
  drawOverlay();
});
window.addEventListener("mouseup", (e) => {
  if (!drag || !ready) return;
  const d = drag;
  drag = null;
  overlay.classList.remove("grab");
  const [x, y] = localXY(e);
  if (d.select) {
    selection = null;
    if (Math.abs(x - d.x) > 3) {
      const a = timeAt(Math.max(LABEL_W, Math.min(d.x, x))), b = timeAt(Math.min(LABEL_W + plotW(), Math.max(d.x, x)));
      setView(a, b);
    } else {
      drawOverlay();
    }
    return;
  }
  if (d.moved) return;
  click(x, y);
});
overlay.addEventListener("mouseleave", () => {
  hoverX = -1;
  tip.hidden = true;
  hoverTick = null;
  tipText = "";
  drawOverlay();
});
function click(x, y) {
  const row = rowAt(y);
  if (row && row.kind === "group" && x < LABEL_W) {
    if (opened.has(row.group)) opened.delete(row.group);
    else opened.add(row.group);
    relayout();
    return;
  }
  tooltipFor(x, y);
  if (hoverTick) showSample(hoverTick);
  if (linked() && x >= LABEL_W && x <= LABEL_W + plotW()) {
    setInstant(hoverTick ? runTime(hoverTick.run, hoverTick.pos) : timeAt(x));
  }
}
wrap.addEventListener("scroll", () => {
  tip.hidden = true;
  requestDraw();
});
wrap.addEventListener("keydown", (e) => {
  if (e.ctrlKey || e.metaKey || e.altKey || !ready) return;
  const mid = hoverX >= LABEL_W ? timeAt(hoverX) : (v0 + v1) / 2;
  switch (e.key) {
    case "+": case "=": case "w": zoomAt(mid, 1 / 1.5); break;
    case "-": case "_": case "s": zoomAt(mid, 1.5); break;
    case "ArrowLeft": case "a": pan(-columnsNs(0.2)); break;
    case "ArrowRight": case "d": pan(columnsNs(0.2)); break;
    case "0": case "Home": setView(0, span); break;
    case "g": setGrouped(!grouped); break;
    case "m": if (!linked()) return; setInstant(mid); break;
    case "Escape": selection = null; tip.hidden = true; drawOverlay(); break;
    default: return;
  }
  e.preventDefault();
});
window.addEventListener("resize", () => {
  layout();
  requestDraw();
});
if (window.matchMedia) {
  const mq = window.matchMedia("(prefers-color-scheme: dark)");
  const changed = () => {
    colors = null;
    if (ready) draw();
  };
  if (mq.addEventListener) mq.addEventListener("change", changed);
  else if (mq.addListener) mq.addListener(changed);
}

// Mouse, keyboard and form input (part of the heatmap page's script, see heatmap_data.js):
// drags select a range (Shift: the baseline), a click the moment, keys move and select, the
// colour mode and the thread filter recount.
// ---- interaction ----

function refreshAll() {
  countCells();
  draw();
  showFlame();
  showMoment();
  updateUrl();
}
function cellRange(a, b) {
  const lo = Math.min(a, b), hi = Math.max(a, b);
  return [lo * rowNs, (hi + 1) * rowNs];
}
function setRange(r, asBaseline) {
  if (asBaseline) baseline = r;
  else range = r;
  draw();
  showFlame();
  updateUrl();
}
function setMoment(round) {
  momentRound = nRounds === 0 ? -1 : Math.max(-1, Math.min(nRounds - 1, round));
  draw();
  showMoment();
  updateUrl();
}
function momentNearCell(c) {
  setMoment(nearestRound(c * rowNs + rowNs / 2));
}

let drag = null;  // {from, to, baseline}
canvas.addEventListener("mousedown", function (e) {
  const c = cellAt(e);
  if (c < 0 || e.button !== 0) return;
  e.preventDefault();
  wrap.focus({ preventScroll: true });
  drag = { from: c, to: c, baseline: e.shiftKey || e.altKey };
  cursor = c;
  anchor = c;
});
canvas.addEventListener("mousemove", function (e) {
  const c = cellAt(e);
  const hover = document.getElementById("hover");
  if (c >= 0) hover.textContent = cellText(c);
  if (drag && c >= 0 && c !== drag.to) {
    drag.to = c;
    cursor = c;
    if (drag.baseline) baseline = cellRange(drag.from, drag.to);
    else range = cellRange(drag.from, drag.to);
    draw();
  }
});
canvas.addEventListener("mouseleave", function () {
  document.getElementById("hover").innerHTML = "&nbsp;";
});
window.addEventListener("mouseup", function () {
  if (!drag) return;
  const d = drag;
  drag = null;
  if (d.from !== d.to || d.baseline) {
    setRange(cellRange(d.from, d.to), d.baseline);
    return;
  }
  // A click: the moment first, painted, then the cell's flamegraph (it takes longer).
  range = cellRange(d.from, d.to);
  momentNearCell(d.from);
  flameAfterPaint();
});
let flameQueued = false;
function flameAfterPaint() {
  if (flameQueued) return;
  flameQueued = true;
  requestAnimationFrame(function () {
    setTimeout(function () {
      flameQueued = false;
      showFlame();
      updateUrl();
    }, 0);
  });
}

wrap.addEventListener("focus", draw);
wrap.addEventListener("blur", draw);
wrap.addEventListener("keydown", function (e) {
  if (e.ctrlKey || e.metaKey || e.altKey) return;
  const key = e.key;
  let move = 0;
  if (key === "ArrowUp") move = -1;
  else if (key === "ArrowDown") move = 1;
  else if (key === "ArrowLeft") move = -rows;
  else if (key === "ArrowRight") move = rows;
  if (move) {
    e.preventDefault();
    const next = cursor + move;
    if (next < 0 || next >= nCells) return;
    if (e.shiftKey) {
      if (anchor < 0) anchor = cursor;
      cursor = next;
      range = cellRange(anchor, cursor);
    } else {
      cursor = next;
      anchor = -1;
    }
    draw();
    document.getElementById("hover").textContent = cellText(cursor);
    return;
  }
  if (key === "Enter") {
    e.preventDefault();
    setRange(range && anchor >= 0 ? range : cellRange(cursor, cursor), false);
  } else if (key === "m" || key === "M") {
    e.preventDefault();
    momentNearCell(cursor);
  } else if (key === "b" || key === "B") {
    e.preventDefault();
    if (range) {
      baseline = range;
      range = null;
      anchor = -1;
      draw();
      showFlame();
      updateUrl();
    }
  } else if (key === "," || key === "<") {
    e.preventDefault();
    if (momentRound > 0) setMoment(momentRound - 1);
  } else if (key === "." || key === ">") {
    e.preventDefault();
    if (momentRound >= 0 && momentRound + 1 < nRounds) setMoment(momentRound + 1);
  } else if (key === "Escape" || key === "Esc") {
    e.preventDefault();
    range = baseline = null;
    anchor = -1;
    draw();
    showFlame();
    updateUrl();
  }
});

for (const input of document.querySelectorAll("input[name=mode]")) {
  input.addEventListener("change", function () {
    setMode(input.value);
    draw();
    showFlame();
    updateUrl();
  });
}
const filterEl = document.getElementById("filter");
let filterTimer = 0;
filterEl.addEventListener("input", function () {
  clearTimeout(filterTimer);
  filterTimer = setTimeout(function () {
    setFilter(filterEl.value);
    refreshAll();
  }, 150);
});
if (window.matchMedia) {
  const mq = window.matchMedia("(prefers-color-scheme: dark)");
  if (mq.addEventListener) mq.addEventListener("change", draw);
}
window.addEventListener("resize", function () {
  const old = cw;
  geometry();
  if (cw !== old) draw();
});

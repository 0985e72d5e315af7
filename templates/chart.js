// hearth scheduler charts script (templates/chart.js): the hover details line and the %/ms
// switch of each section. Embedded in every chart SVG inside a CDATA section, so it must never
// contain the CDATA terminator. It relies only on the scene contract in render/charts/bars.h;
// the SVG is a complete picture (the % view) without it.
(function () {
  "use strict";
  const svg = document.documentElement;

  // The section a node belongs to: N from the id "sN-..." of its layer.
  function sectionOf(node) {
    for (let n = node; n && n !== svg; n = n.parentNode) {
      const m = /^s(\d+)-/.exec(n.id || "");
      if (m) return m[1];
    }
    return null;
  }

  function titleOf(g) {
    const t = g && g.querySelector(":scope > title");
    return t ? t.textContent : null;
  }

  svg.addEventListener("mouseover", function (e) {
    const g = e.target.closest && e.target.closest("g");
    const n = g && sectionOf(g);
    const text = titleOf(g);
    const details = n !== null && document.getElementById("s" + n + "-details");
    if (details && text) details.textContent = text;
  });
  svg.addEventListener("mouseout", function (e) {
    const n = sectionOf(e.target);
    const details = n !== null && document.getElementById("s" + n + "-details");
    if (details) details.textContent = " ";
  });

  // Swaps every grid line and segment of section N between its % geometry (the rect's own,
  // kept in data-pct) and its time geometry (data-ms), and the axis labels with them.
  function setView(n, ms) {
    const nodes = svg.querySelectorAll("#s" + n + "-bars > g[data-ms], #s" + n + "-grid > g[data-ms]");
    for (const g of nodes) {
      const r = g.querySelector("rect");
      if (!g.hasAttribute("data-pct")) {
        g.setAttribute("data-pct", r.getAttribute("x") + " " + r.getAttribute("width"));
      }
      const xw = g.getAttribute(ms ? "data-ms" : "data-pct").split(" ");
      r.setAttribute("x", xw[0]);
      r.setAttribute("width", xw[1]);
      const label = g.querySelector("text");
      if (label) label.setAttribute("x", Math.round((parseFloat(xw[0]) + 3) * 10) / 10);
    }
    for (const t of svg.querySelectorAll("text.s" + n)) {
      t.classList.toggle("hide", t.classList.contains("ms") !== ms);
    }
  }

  for (const toggle of svg.querySelectorAll("text.toggle")) {
    const n = sectionOf(toggle);
    let ms = false;
    toggle.classList.remove("hide");
    toggle.addEventListener("click", function () {
      ms = !ms;
      setView(n, ms);
      toggle.textContent = ms ? "show %" : "show ms";
    });
  }

  // A link to "sched.svg#thread-42" (the report's threads table) highlights that thread's row
  // and brings it into view; on load and whenever the fragment changes.
  function showTarget() {
    for (const g of svg.querySelectorAll("g.row.target")) g.classList.remove("target");
    let id = "";
    try {
      id = decodeURIComponent(location.hash.slice(1));
    } catch (e) {
      return;  // a malformed fragment names nothing
    }
    const row = id && document.getElementById(id);
    if (!row || !row.classList.contains("row")) return;
    row.classList.add("target");
    const r = row.querySelector("rect");
    if (r && r.scrollIntoView) r.scrollIntoView({ block: "center" });
  }
  window.addEventListener("hashchange", showTarget);
  showTarget();
})();

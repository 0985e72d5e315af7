// hearth metrics chart script (templates/metrics.js), after chart.js (which shows the tooltip
// of what the pointer is over in the section's details line). Hovering an instance in a legend
// highlights that instance's lines in every panel: lines carry the class "iN", legend swatches
// "iN" too (render/charts/metrics_chart.h). Embedded in a CDATA section: never the terminator.
(function () {
  "use strict";
  const svg = document.documentElement;
  function instanceClass(node) {
    const g = node.closest && node.closest("g[id$='-legend'] > g");
    if (!g) return null;
    for (const c of g.classList) if (/^i\d+$/.test(c)) return c;
    return null;
  }
  svg.addEventListener("mouseover", function (e) {
    const c = instanceClass(e.target);
    if (!c) return;
    svg.classList.add("dim");
    for (const g of svg.querySelectorAll("g.ln." + c)) g.classList.add("hl");
  });
  svg.addEventListener("mouseout", function (e) {
    if (!instanceClass(e.target)) return;
    svg.classList.remove("dim");
    for (const g of svg.querySelectorAll("g.hl")) g.classList.remove("hl");
  });
})();

// hearth heatmap picture script (templates/heatgrid.js): a cell's title on the details line
// when hovered. Embedded in the SVG of `hearth heatmap -o heat.svg` inside a CDATA section, so
// it must never contain the CDATA terminator. The SVG is a complete picture without it.
(function () {
  "use strict";
  const details = document.getElementById("details");
  const cells = document.getElementById("cells");
  if (!details || !cells) return;
  cells.addEventListener("mouseover", function (e) {
    const g = e.target.closest && e.target.closest("g");
    const t = g && g.querySelector("title");
    if (t) details.textContent = t.textContent;
  });
  cells.addEventListener("mouseout", function () {
    details.textContent = " ";
  });
})();

// hearth timeline picture script (templates/timelanes.js): a lane's title on the details line
// when hovered. Embedded in the SVG of `hearth timeline -o timeline.svg` inside a CDATA section,
// so it must never contain the CDATA terminator. The SVG is a complete picture without it.
(function () {
  "use strict";
  const details = document.getElementById("details");
  const hover = document.getElementById("hover");
  if (!details || !hover) return;
  hover.addEventListener("mouseover", function (e) {
    const g = e.target.closest && e.target.closest("g");
    const t = g && g.querySelector("title");
    if (t) details.textContent = t.textContent;
  });
  hover.addEventListener("mouseout", function () {
    details.textContent = " ";
  });
})();

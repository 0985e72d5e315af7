// hearth metrics chart script (templates/metrics.js), after chart.js (which shows the tooltip
// of what the pointer is over in the section's details line) and time_link.js. Hovering an
// instance in a legend highlights that instance's lines in every panel: lines carry the class
// "iN", legend swatches "iN" too (render/charts/metrics_chart.h). In the report's time view
// (when.html), the chart is on the view's time axis: its range shaded and its instant marked in
// every panel; a drag over a panel's plot sets the range, a click the instant, and with the
// keyboard (the chart takes the focus) Left and Right move the instant, Shift+Left and Right widen the range, Escape
// clears both. Embedded in a CDATA section: never the terminator.
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

  // ---- the time view (templates/time_link.js) ----
  // The axis: x = plot_x + (time - t0) / span * plot_w in each panel (render/charts/metrics_chart.cpp),
  // time on the series' clock; on the view's clock once the view gave the samples' wall clock.
  const t0 = svg.getAttribute("data-t0-ns"), spanNs = Number(svg.getAttribute("data-span-ns"));
  if (typeof hearthTimeLink !== "function" || !t0 || !(spanNs > 0) ||
      svg.getAttribute("data-clock") !== "realtime") return;
  const NS_SVG = "http://www.w3.org/2000/svg";
  const plots = Array.from(svg.querySelectorAll("[data-plot]"), (r) => r.getAttribute("data-plot").split(" ").map(Number));
  let base = null;  // the view's seconds at t0
  let state = { t: null, at: null };
  let marks = null;
  const sOf = (p, x) => base + (x - p[0]) / p[2] * spanNs / 1e9;
  const xOf = (p, s) => p[0] + (s - base) * 1e9 / spanNs * p[2];
  function rectIn(p, a, b, cls) {
    const x0 = Math.max(p[0], Math.min(a, b)), x1 = Math.min(p[0] + p[2], Math.max(a, b));
    if (!(x1 >= x0)) return;
    const r = document.createElementNS(NS_SVG, "rect");
    r.setAttribute("x", x0);
    r.setAttribute("y", p[1]);
    r.setAttribute("width", Math.max(x1 - x0, cls === "when-at" ? 0 : 1));
    r.setAttribute("height", p[3]);
    r.setAttribute("class", cls);
    marks.appendChild(r);
  }
  function drawMarks(dragX) {
    if (!marks) {
      marks = document.createElementNS(NS_SVG, "g");
      marks.setAttribute("id", "when-marks");
      svg.insertBefore(marks, svg.querySelector("script"));
    }
    marks.textContent = "";
    plots.forEach(function (p, i) {
      if (dragX && dragX.panel === i) rectIn(p, dragX.a, dragX.b, "when-range");
      else if (state.t && !dragX) rectIn(p, xOf(p, state.t[0]), xOf(p, state.t[1]), "when-range");
      if (state.at !== null) {
        const x = xOf(p, state.at);
        if (x >= p[0] && x <= p[0] + p[2]) rectIn(p, x - 1, x + 1, "when-at");
      }
    });
  }
  const link = hearthTimeLink(function (s) {
    if (base === null && link.realNs()) base = Number(BigInt(t0) - BigInt(link.realNs())) / 1e9;
    if (base === null) return;
    state = s;
    if (!svg.hasAttribute("tabindex")) {
      svg.setAttribute("tabindex", "0");
      svg.classList.add("when-linked");
    }
    drawMarks(null);
  }, () => state);
  function set(s) {
    state = s;
    drawMarks(null);
    link.changed();
  }
  function local(e) {  // the pointer in the SVG's coordinates, and the panel under it
    const m = svg.getScreenCTM();
    const pt = svg.createSVGPoint();
    pt.x = e.clientX;
    pt.y = e.clientY;
    const q = m ? pt.matrixTransform(m.inverse()) : pt;
    const panel = plots.findIndex((p) => q.x >= p[0] && q.x <= p[0] + p[2] && q.y >= p[1] && q.y <= p[1] + p[3]);
    return { x: q.x, panel: panel };
  }
  let drag = null;
  svg.addEventListener("mousedown", function (e) {
    if (base === null || e.button !== 0) return;
    const q = local(e);
    if (q.panel < 0) return;
    e.preventDefault();
    svg.focus();
    drag = { panel: q.panel, a: q.x, b: q.x };
  });
  svg.addEventListener("mousemove", function (e) {
    if (!drag) return;
    const p = plots[drag.panel];
    drag.b = Math.max(p[0], Math.min(p[0] + p[2], local(e).x));
    drawMarks(drag);
  });
  window.addEventListener("mouseup", function () {
    if (!drag) return;
    const d = drag, p = plots[d.panel];
    drag = null;
    if (Math.abs(d.b - d.a) > 3) {
      set({ t: [sOf(p, Math.min(d.a, d.b)), sOf(p, Math.max(d.a, d.b))], at: state.at });
    } else {
      set({ t: state.t, at: sOf(p, d.a) });
    }
  });
  svg.addEventListener("keydown", function (e) {
    if (base === null || e.ctrlKey || e.metaKey || e.altKey) return;
    const step = spanNs / 1e9 / 100;
    const dir = e.key === "ArrowLeft" ? -1 : e.key === "ArrowRight" ? 1 : 0;
    if (dir && e.shiftKey) {
      const t = state.t || [state.at !== null ? state.at : base, state.at !== null ? state.at : base];
      set({ t: dir < 0 ? [t[0] - step, t[1]] : [t[0], t[1] + step], at: state.at });
    } else if (dir) {
      set({ t: state.t, at: (state.at !== null ? state.at : base) + dir * step });
    } else if (e.key === "Escape") {
      set({ t: null, at: null });
    } else {
      return;
    }
    e.preventDefault();
  });
})();

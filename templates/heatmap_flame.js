// The flamegraph of the selected range, drawn in the page (part of the heatmap page's script,
// see heatmap_data.js). heatmap_tree.js counts the range, heatmap_layout.js lays it out, and
// templates/flame.js draws it: heat_page.cpp joins flame.js into this script as the function
// runFlameScript(document, window, JSON), which runs once per graph against a document, a
// window and a JSON scoped to the shadow root of #flame (templates/FLAME_DOM.md, "Hosted in a
// page"). So the graph has the look, titles, zoom, search and keys of `hearth flame`, inline:
// no frame, no document per range. A new range replaces the shadow root's content and the old
// instance's listeners.

const flameHost = document.getElementById("flame");
const flameRoot = flameHost.attachShadow({ mode: "open" });
// The rules `hearth flame`'s SVG writer puts before flame.css, then flame.css.
const FLAME_STYLE = "<style>svg{display:block}\n" +
  "text{font-family:Verdana, DejaVu Sans, sans-serif;font-size:12px}\n.hide{display:none}\n" +
  document.getElementById("flame-css").textContent + "</style>";
let flameListeners = [];  // [type, listener] the running instance added to flameHost

function clearFlame() {
  for (const [type, fn] of flameListeners) flameHost.removeEventListener(type, fn);
  flameListeners = [];
  flameRoot.textContent = "";
  flameHost.hidden = true;
}

// Draws the graph: SVG markup (heatmap_layout.js: its first elements written) and its frame
// data, an object flame.js takes as it is (no JSON text between the two).
function mountFlame(svg, data) {
  // The previous graph's canvas of painted frames (flame.js) serves the next one: a new canvas
  // allocates its pixels again (~1,300 x 800 of them) at its first drawing.
  let spare = flameRoot.querySelector("foreignObject > canvas");
  if (spare) spare.remove();
  clearFlame();
  flameRoot.innerHTML = FLAME_STYLE + svg;
  flameHost.hidden = false;
  // What flame.js reads of the document, the window and JSON (FLAME_DOM.md, "Hosted in a page").
  // Keys go to the graph when it has the focus; its zoom and search stay out of the page's URL.
  const scopedDocument = {
    readyState: "complete",
    documentElement: flameRoot.querySelector("svg"),
    querySelector: (s) => flameRoot.querySelector(s),
    getElementById: (id) => flameRoot.getElementById(id),
    createElementNS: (ns, name) => {
      if (spare && name === "canvas" && ns === "http://www.w3.org/1999/xhtml") {
        const c = spare;
        spare = null;
        return c;
      }
      return document.createElementNS(ns, name);
    },
    addEventListener: () => {},
  };
  const scopedWindow = {
    location: { search: "", pathname: "", hash: "" },
    history: null,
    URLSearchParams: window.URLSearchParams,
    prompt: (text, value) => window.prompt(text, value),
    get devicePixelRatio() { return window.devicePixelRatio; },
    addEventListener: (type, fn) => {
      flameHost.addEventListener(type, fn);
      flameListeners.push([type, fn]);
    },
  };
  // #frames-data is empty: its "text" is the data itself.
  const scopedJson = { parse: (text) => (text === "" ? data : JSON.parse(text)), stringify: JSON.stringify };
  runFlameScript(scopedDocument, scopedWindow, scopedJson);
}

let lastFlame = null;  // for tests: {frames, data, ms, parts, range}
function rangeText(r) {
  return seconds(r[0]) + "\u2013" + seconds(r[1]) + " s";
}
function showFlame() {
  const section = document.getElementById("range-info");
  const titleEl = document.getElementById("range-title");
  if (!range) {
    clearFlame();
    titleEl.textContent = "Flamegraph";
    section.textContent = "Select a range of cells above." + (baseline ? " (Baseline: " + rangeText(baseline) + ".)" : "");
    lastFlame = null;
    return;
  }
  const t0 = performance.now();
  buildTree();
  const tTree = performance.now();
  const total = rangeTotals(range);
  const base = baseline ? rangeTotals(baseline) : null;
  const tTotals = performance.now();
  const what = mode === "all" ? "" : " in state " + (mode === "other" ? "other than R, D, S" : mode);
  const who = filterRe ? ", threads matching /" + filterText + "/" : "";
  if (!(total[0] > 0) || (base && !(base[0] > 0))) {
    clearFlame();
    titleEl.textContent = "Flamegraph: " + rangeText(range);
    section.textContent = "No samples" + what + who + " in " + (base && !(base[0] > 0) ? "the baseline " + rangeText(baseline) : rangeText(range)) + ".";
    lastFlame = { frames: 0, data: null, ms: performance.now() - t0, range: range.slice() };
    return;
  }
  const width = Math.max(600, Math.min(2400, flameHost.parentNode.clientWidth || 1200));
  let title, subtitle;
  if (base) {
    title = "Differential: " + rangeText(range) + " against " + rangeText(baseline);
    subtitle = "BASE " + rangeText(baseline) + " (" + thousands(base[0]) + " samples) \u2192 NEW " + rangeText(range) +
      " (" + thousands(total[0]) + " samples); widths: NEW; colour: change of inclusive share, pp";
  } else {
    title = "Stacks " + rangeText(range);
    subtitle = thousands(total[0]) + " thread-samples" + what + who;
  }
  const f = flameSvg(total, base, width, title, subtitle);
  const tLayout = performance.now();
  mountFlame(f.svg, f.data);
  const tDrawn = performance.now();
  titleEl.textContent = (base ? "Differential flamegraph: " : "Flamegraph: ") + rangeText(range);
  let info = thousands(total[0]) + " thread-samples" + what + who + ", " + thousands(f.frames) + " frames";
  if (base) {
    let onlyBase = 0;
    const T = buildTree();
    for (let i = 1; i < T.n; i++) if (base[i] > 0 && total[i] === 0 && total[T.parent[i]] > 0) onlyBase++;
    info += "; baseline " + rangeText(baseline) + ": " + thousands(base[0]) + " thread-samples; " + onlyBase +
      " paths only in the baseline (not drawn)";
  }
  section.textContent = info + ".";
  // ms: from the range to flame.js done (its elements made; the browser's style, layout and
  // paint of them come after, in the next frame).
  lastFlame = { frames: f.frames, data: f.data, ms: performance.now() - t0,
                parts: { tree: tTree - t0, totals: tTotals - tTree, layout: tLayout - tTotals, draw: tDrawn - tLayout,
                         elements: f.elements, layoutParts: f.parts }, range: range.slice() };
}

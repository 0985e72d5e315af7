// Times the heatmap page (`hearth heatmap -o heat.html`) in headless Chromium: open (load event
// to the heatmap drawn), range -> flamegraph (mouse up to the flamegraph's iframe loaded, its
// frames drawn by flame.js) for one column, the middle third of the columns and all of them,
// and instant -> moment view (moment_ms: the view's own time; click_ms: a click on a cell, which
// also draws that cell's flamegraph, to the groups written). Prints
// one JSON object of medians over RUNS fresh pages. Informational only (heatmap_bench.sh).
//
//   node heatmap_bench.mjs PAGE.html [RUNS]
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const here = path.dirname(fileURLToPath(import.meta.url));
const PLAYWRIGHT = path.join(here, "..", "browser", "node_modules", "playwright-core", "index.mjs");
const CHROMIUM = process.env.HEARTH_CHROMIUM || "/usr/bin/chromium";
const ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
              "--disable-background-networking", "--disable-component-update", "--disable-sync"];
const [pagePath, runsArg] = process.argv.slice(2);
if (!pagePath || !fs.existsSync(pagePath)) {
  console.error("usage: node heatmap_bench.mjs PAGE.html [RUNS]");
  process.exit(2);
}
const runs = parseInt(runsArg || "5", 10);
const median = (v) => {
  const s = [...v].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};

const { chromium } = await import(pathToFileURL(PLAYWRIGHT).href);
const browser = await chromium.launch({ executablePath: CHROMIUM, args: ARGS, headless: true });
const url = pathToFileURL(path.resolve(pagePath)).href;
const momentData = [];
const open = [], range = [], rangeData = [], whole = [], moment = [], frames = [], column = [], columnFrames = [];
let errors = 0;
try {
  for (let i = 0; i < runs; i++) {
    const context = await browser.newContext({ viewport: { width: 1400, height: 1000 } });
    const page = await context.newPage();
    page.on("pageerror", () => errors++);
    const t0 = Date.now();
    await page.goto(url, { waitUntil: "load" });
    await page.waitForFunction(() => window.hearthHeatmap && window.hearthHeatmap.runs() > 0);
    open.push(Date.now() - t0);
    // A drag over the middle third of the columns, in the page: mouse events, then the iframe's load.
    const timed = async (fromFrac, toFrac) => page.evaluate(async ([a, b]) => {
      const h = window.hearthHeatmap;
      const cells = h.cells();
      const canvas = document.getElementById("heat");
      const box = canvas.getBoundingClientRect();
      // A cell's middle (event coordinates are whole pixels: an edge may fall outside).
      const cw = h.cellRect(cells.rows)[0] - h.cellRect(0)[0], ch = h.cellRect(1)[1] - h.cellRect(0)[1];
      const at = (col, row) => {
        const [x, y] = h.cellRect(col * cells.rows + row);
        return { clientX: box.left + x + cw / 2, clientY: box.top + y + ch / 2, button: 0, bubbles: true };
      };
      const c0 = Math.floor(cells.columns * a), c1 = Math.max(c0, Math.floor(cells.columns * b) - 1);
      const iframe = document.getElementById("flame");
      const loaded = new Promise((resolve) => iframe.addEventListener("load", resolve, { once: true }));
      const t = performance.now();
      canvas.dispatchEvent(new MouseEvent("mousedown", at(c0, 0)));
      canvas.dispatchEvent(new MouseEvent("mousemove", at(c1, cells.rows - 1)));
      window.dispatchEvent(new MouseEvent("mouseup", at(c1, cells.rows - 1)));
      await loaded;
      const drawn = iframe.contentDocument.querySelectorAll("#frames > g").length;
      return { ms: performance.now() - t, data: h.lastFlame().ms, frames: h.lastFlame().frames, drawn,
               parts: h.lastFlame().parts };
    }, [fromFrac, toFrac]);
    const col = await timed(0.5, 0.5);  // one column (c1 = c0)
    column.push(col.ms);
    columnFrames.push(col.frames);
    const r = await timed(1 / 3, 2 / 3);
    if (process.env.HEATMAP_BENCH_VERBOSE) console.error(JSON.stringify(r));
    range.push(r.ms);
    rangeData.push(r.data);
    frames.push(r.frames);
    const w = await timed(0, 1);
    whole.push(w.ms);
    const m = await page.evaluate(() => {
      const h = window.hearthHeatmap;
      const cells = h.cells();
      const canvas = document.getElementById("heat");
      const box = canvas.getBoundingClientRect();
      const [x, y] = h.cellRect(Math.floor(cells.columns / 2) * cells.rows + 1);
      const [x2, y2] = h.cellRect((Math.floor(cells.columns / 2) + 1) * cells.rows + 2);
      const ev = { clientX: box.left + (x + x2) / 2, clientY: box.top + (y + y2) / 2, button: 0, bubbles: true };
      const t = performance.now();
      canvas.dispatchEvent(new MouseEvent("mousedown", ev));
      window.dispatchEvent(new MouseEvent("mouseup", ev));
      const groups = document.querySelectorAll("#moment .group").length;
      return { ms: performance.now() - t, groups, threads: h.lastMoment().threads, data: h.lastMoment().ms };
    });
    moment.push(m.ms);
    momentData.push(m.data);
    await context.close();
  }
} finally {
  await browser.close();
}
console.log(JSON.stringify({
  page_bytes: fs.statSync(pagePath).size, runs,
  open_ms: median(open), range_column_ms: median(column), range_column_frames: median(columnFrames),
  range_third_ms: median(range), range_third_data_ms: median(rangeData),
  range_frames: median(frames), range_whole_ms: median(whole), click_ms: median(moment), moment_ms: median(momentData), page_errors: errors,
}));

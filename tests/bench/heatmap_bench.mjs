// Times the heatmap page (`hearth heatmap -o heat.html`) in headless Chromium: open (load event
// to the heatmap drawn), range -> flamegraph (mouse up to the flamegraph's iframe loaded, its
// frames drawn by flame.js), and instant -> moment view (click to the groups written). Prints
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
const open = [], range = [], rangeData = [], whole = [], moment = [], frames = [];
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
      const at = (col, row) => {
        const [x, y] = h.cellRect(col * cells.rows + row);
        return { clientX: box.left + x + 0.5, clientY: box.top + y + 0.5, button: 0, bubbles: true };
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
      return { ms: performance.now() - t, data: h.lastFlame().ms, frames: h.lastFlame().frames, drawn };
    }, [fromFrac, toFrac]);
    const r = await timed(1 / 3, 2 / 3);
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
      const ev = { clientX: box.left + x + 0.5, clientY: box.top + y + 0.5, button: 0, bubbles: true };
      const t = performance.now();
      canvas.dispatchEvent(new MouseEvent("mousedown", ev));
      window.dispatchEvent(new MouseEvent("mouseup", ev));
      const groups = document.querySelectorAll("#moment .group").length;
      return { ms: performance.now() - t, groups, threads: h.lastMoment().threads, data: h.lastMoment().ms };
    });
    moment.push(m.ms);
    await context.close();
  }
} finally {
  await browser.close();
}
console.log(JSON.stringify({
  page_bytes: fs.statSync(pagePath).size, runs,
  open_ms: median(open), range_third_ms: median(range), range_third_data_ms: median(rangeData),
  range_frames: median(frames), range_whole_ms: median(whole), moment_ms: median(moment), page_errors: errors,
}));

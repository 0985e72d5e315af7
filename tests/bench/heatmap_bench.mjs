// Times the heatmap page (`hearth heatmap -o heat.html`) in headless Chromium: open (load event
// to the heatmap drawn); range -> flamegraph (a drag: from the button's release to the flamegraph
// painted, the next frame after flame.js took over its elements) for one column, the middle third of the columns (twice: two
// different thirds) and all of them, with the page's own split (tree, totals, layout, draw);
// instant -> moment view (click_ms: mouse down and up on a cell, which also draws that cell's
// flamegraph, to the moment's groups painted; moment_ms: the view's own time). Prints one JSON
// object of medians over RUNS fresh pages. Informational only (heatmap_bench.sh). Also times
// pages that draw the flamegraph in an iframe (older hearth): to the iframe's load, then a frame.
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
const t = { open: [], column: [], columnFrames: [], third: [], thirdScript: [], thirdFrames: [], whole: [],
            click: [], moment: [] };
const parts = [];
let errors = 0;
try {
  for (let i = 0; i < runs; i++) {
    const context = await browser.newContext({ viewport: { width: 1400, height: 1000 } });
    const page = await context.newPage();
    page.on("pageerror", () => errors++);
    const t0 = Date.now();
    await page.goto(url, { waitUntil: "load" });
    await page.waitForFunction(() => window.hearthHeatmap && window.hearthHeatmap.runs() > 0);
    t.open.push(Date.now() - t0);
    // A drag from column A * columns to B * columns, in the page: mouse events, then the next
    // painted frame (an iframe: its load first).
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
      const host = document.getElementById("flame");
      const iframe = host.localName === "iframe";
      const loaded = iframe ? new Promise((resolve) => host.addEventListener("load", resolve, { once: true })) : null;
      const painted = (w) => new Promise((resolve) => w.requestAnimationFrame(() => w.setTimeout(resolve, 0)));
      canvas.dispatchEvent(new MouseEvent("mousedown", at(c0, 0)));
      canvas.dispatchEvent(new MouseEvent("mousemove", at(c1, cells.rows - 1)));
      // From the button's release (the drag before it draws the selection only).
      const frame = iframe ? null : painted(window);
      const t = performance.now();
      window.dispatchEvent(new MouseEvent("mouseup", at(c1, cells.rows - 1)));
      const script = performance.now() - t;
      if (iframe) {
        await loaded;
        await painted(host.contentWindow);
      } else {
        await frame;
      }
      const ms = performance.now() - t;
      const root = iframe ? host.contentDocument : host.shadowRoot;
      const f = h.lastFlame();
      return { ms, script, frames: f.frames, drawn: root.querySelectorAll("#frames > g").length, parts: f.parts };
    }, [fromFrac, toFrac]);
    const col = await timed(0.5, 0.5);  // one column (c1 = c0)
    t.column.push(col.ms);
    t.columnFrames.push(col.frames);
    for (const [a, b] of [[1 / 3, 2 / 3], [0.3, 0.63]]) {
      const r = await timed(a, b);
      if (process.env.HEATMAP_BENCH_VERBOSE) console.error(JSON.stringify(r));
      t.third.push(r.ms);
      t.thirdScript.push(r.script);
      t.thirdFrames.push(r.frames);
      if (r.parts) parts.push(r.parts);
    }
    t.whole.push((await timed(0, 1)).ms);
    const m = await page.evaluate(async () => {
      const h = window.hearthHeatmap;
      const cells = h.cells();
      const canvas = document.getElementById("heat");
      const box = canvas.getBoundingClientRect();
      const [x, y] = h.cellRect(Math.floor(cells.columns / 2) * cells.rows + 1);
      const [x2, y2] = h.cellRect((Math.floor(cells.columns / 2) + 1) * cells.rows + 2);
      const ev = { clientX: box.left + (x + x2) / 2, clientY: box.top + (y + y2) / 2, button: 0, bubbles: true };
      // The frame that paints the moment: asked for first, so the next task after it is ours.
      const frame = new Promise((resolve) => requestAnimationFrame(() => setTimeout(resolve, 0)));
      const t = performance.now();
      canvas.dispatchEvent(new MouseEvent("mousedown", ev));
      window.dispatchEvent(new MouseEvent("mouseup", ev));
      await frame;
      return { ms: performance.now() - t, groups: document.querySelectorAll("#moment .group").length,
               threads: h.lastMoment().threads, data: h.lastMoment().ms };
    });
    t.click.push(m.ms);
    t.moment.push(m.data);
    await context.close();
  }
} finally {
  await browser.close();
}
const part = (k) => parts.length && parts[0][k] !== undefined ? +median(parts.map((p) => p[k])).toFixed(1) : null;
const r1 = (v) => +median(v).toFixed(1);
console.log(JSON.stringify({
  page_bytes: fs.statSync(pagePath).size, runs,
  open_ms: r1(t.open),
  range_third_ms: r1(t.third), range_third_script_ms: r1(t.thirdScript), range_third_max_ms: +Math.max(...t.third).toFixed(1),
  range_third_parts_ms: { tree: part("tree"), totals: part("totals"), layout: part("layout"), draw: part("draw") },
  range_frames: median(t.thirdFrames), range_elements: part("elements"),
  range_column_ms: r1(t.column), range_column_frames: median(t.columnFrames), range_whole_ms: r1(t.whole),
  moment_click_ms: r1(t.click), moment_ms: r1(t.moment), page_errors: errors,
}));

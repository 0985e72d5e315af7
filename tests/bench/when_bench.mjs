// Times the report's time view (when.html: the heatmap page, the timeline page and the metric
// charts framed on one time axis) in headless Chromium, against the heatmap page opened alone in
// the same run: the open (navigation to the heatmap drawn; to every picture linked), a range set
// in the view's bar -> the heatmap's flamegraph of it painted (and its script time), an instant
// -> the moment view, and the timeline's zoom frames while linked (wheel steps in and out, as
// timeline_bench.mjs) with the longest task, then zooms that rest long enough to become the
// view's range (each recomputes the heatmap's flamegraph, in the same renderer). Prints one JSON
// object of medians over RUNS fresh pages. Informational only (when_bench.sh).
//
//   node when_bench.mjs REPORT_DIR [RUNS]
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const here = path.dirname(fileURLToPath(import.meta.url));
const PLAYWRIGHT = path.join(here, "..", "browser", "node_modules", "playwright-core", "index.mjs");
const CHROMIUM = process.env.HEARTH_CHROMIUM || "/usr/bin/chromium";
const ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
              "--disable-background-networking", "--disable-component-update", "--disable-sync"];
const [dir, runsArg] = process.argv.slice(2);
if (!dir || !fs.existsSync(path.join(dir, "when.html"))) {
  console.error("usage: node when_bench.mjs REPORT_DIR [RUNS] (a report directory with when.html)");
  process.exit(2);
}
const runs = parseInt(runsArg || "5", 10);
const median = (v) => {
  const s = [...v].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};
const round = (v) => Math.round(v * 10) / 10;
// Polled by time: a frame out of view gets no animation frames.
const POLL = { timeout: 120000, polling: 10 };

const { chromium } = await import(pathToFileURL(PLAYWRIGHT).href);
const browser = await chromium.launch({ executablePath: CHROMIUM, args: ARGS, headless: true });
const frameOf = (page, name) => page.frames().find((f) => f.url().split(/[?#]/)[0].endsWith("/" + name));
const out = { alone_heat_ms: [], alone_zoom_draw_ms: [], alone_zoom_draw_max_ms: [], view_heat_ms: [], view_all_ms: [], range_painted_ms: [], range_script_ms: [],
              moment_painted_ms: [], zoom_draw_ms: [], zoom_draw_max_ms: [], zoom_longest_task_ms: [],
              rest_longest_task_ms: [] };
let errors = 0;
// In the timeline's frame (or page): 40 wheel steps in and 40 out at the pointer, each frame's
// draw time; then 3 steps that each rest 1.5 s (linked: each becomes the view's range, and the
// heatmap's flamegraph of it is computed in the same renderer); the longest tasks of both.
async function zoomLoop() {
  const long = [];
  new PerformanceObserver((list) => { for (const e of list.getEntries()) long.push(e.duration); })
    .observe({ type: "longtask" });
  const h = window.hearthTimeline, ov = document.getElementById("ov"), box = ov.getBoundingClientRect();
  const frame = () => new Promise((res) => requestAnimationFrame(() => setTimeout(res, 0)));
  const x = box.left + h.labelW + (box.width - h.labelW) * 0.4, y = box.top + h.mergedY();
  const wheel = (d) => ov.dispatchEvent(new WheelEvent("wheel", { deltaY: d, clientX: x, clientY: y, bubbles: true, cancelable: true }));
  h.setView(0, h.view().span);
  await frame();
  const draws = [];
  for (const dir of [-1, 1]) {
    for (let k = 0; k < 40; k++) {
      wheel(dir * 240);
      await frame();
      draws.push(h.stats().lastDrawMs);
    }
  }
  await new Promise((res) => setTimeout(res, 300));
  const zoomLong = Math.max(0, ...long);
  long.length = 0;
  for (let k = 0; k < 3; k++) {
    wheel(-240);
    await frame();
    await new Promise((res) => setTimeout(res, 1500));  // the link posts after 500 ms at rest
  }
  return { draws, zoomLong, restLong: Math.max(0, ...long) };
}
try {
  for (let i = 0; i < runs; i++) {
    // The heatmap page alone.
    let context = await browser.newContext({ viewport: { width: 1400, height: 1000 } });
    let page = await context.newPage();
    page.on("pageerror", () => errors++);
    let t0 = Date.now();
    await page.goto(pathToFileURL(path.join(dir, "heat.html")).href);
    await page.waitForFunction(() => window.hearthHeatmap, null, POLL);
    // Its script (at the end of the page: the heatmap drawn) done: DOMContentLoaded's end.
    out.alone_heat_ms.push(await page.evaluate(() => performance.getEntriesByType("navigation")[0].domContentLoadedEventEnd));
    await context.close();
    // The timeline page alone: its zoom frames.
    context = await browser.newContext({ viewport: { width: 1400, height: 1000 } });
    page = await context.newPage();
    await page.goto(pathToFileURL(path.join(dir, "timeline.html")).href);
    await page.waitForFunction(() => window.hearthTimeline, null, POLL);
    const ra = await page.evaluate(zoomLoop);
    const sa = [...ra.draws].sort((p, q) => p - q);
    out.alone_zoom_draw_ms.push(median(sa));
    out.alone_zoom_draw_max_ms.push(sa[sa.length - 1]);
    await context.close();

    // The view.
    context = await browser.newContext({ viewport: { width: 1400, height: 1000 } });
    page = await context.newPage();
    page.on("pageerror", () => errors++);
    t0 = Date.now();
    await page.goto(pathToFileURL(path.join(dir, "when.html")).href);
    await page.waitForFunction(() => window.hearthWhen && document.querySelector("iframe.heat"), null, POLL);
    const heatFrame = async () => { for (;;) { const f = frameOf(page, "heat.html"); if (f) return f; await page.waitForTimeout(5); } };
    const heat = await heatFrame();
    await heat.waitForFunction(() => window.hearthHeatmap, null, POLL);
    // The same in the frame, from the view's navigation (a poll from here may wait behind the
    // other frames' work in the renderer).
    const origin = await page.evaluate(() => performance.timeOrigin);
    out.view_heat_ms.push(await heat.evaluate((o) => performance.timeOrigin - o +
      performance.getEntriesByType("navigation")[0].domContentLoadedEventEnd, origin));
    await page.waitForFunction(() => window.hearthWhen.ready(), null, POLL);
    out.view_all_ms.push(Date.now() - t0);
    const timeline = frameOf(page, "timeline.html");
    await timeline.waitForFunction(() => window.hearthTimeline, null, POLL);
    const span = await heat.evaluate(() => window.hearthHeatmap.cells().columns * window.hearthHeatmap.cells().rows * window.hearthHeatmap.cells().rowNs / 1e9);

    // A range typed in the bar (the middle third) -> the heatmap's flamegraph painted, the
    // heatmap in view (out of view it draws when it comes into view).
    await page.evaluate(() => document.querySelector("iframe.heat").scrollIntoView());
    const a = Math.round(span / 3), b = Math.round(2 * span / 3);
    t0 = Date.now();
    await page.evaluate(([x, y]) => {
      document.getElementById("from").value = String(x);
      document.getElementById("to").value = String(y);
      document.getElementById("at").value = "";
      document.getElementById("when-controls").dispatchEvent(new Event("submit"));
    }, [a, b]);
    await heat.waitForFunction((x) => { const f = window.hearthHeatmap.lastFlame(); return f && f.range[0] === x * 1e9; }, a, POLL);
    await heat.evaluate(() => new Promise((res) => requestAnimationFrame(() => setTimeout(res, 0))));
    out.range_painted_ms.push(Date.now() - t0);
    out.range_script_ms.push(await heat.evaluate(() => window.hearthHeatmap.lastFlame().ms));

    // An instant -> the moment view painted.
    t0 = Date.now();
    await page.evaluate((x) => {
      document.getElementById("at").value = String(x);
      document.getElementById("when-controls").dispatchEvent(new Event("submit"));
    }, (a + b) / 2);
    await heat.waitForFunction(() => window.hearthHeatmap.lastMoment(), null, POLL);
    await heat.evaluate(() => new Promise((res) => requestAnimationFrame(() => setTimeout(res, 0))));
    out.moment_painted_ms.push(Date.now() - t0);

    // The timeline's zoom frames while linked, then zooms that rest (each one the view's range).
    await page.evaluate(() => window.scrollTo(0, 0));
    const r = await timeline.evaluate(zoomLoop);
    const s = [...r.draws].sort((p, q) => p - q);
    out.zoom_draw_ms.push(median(s));
    out.zoom_draw_max_ms.push(s[s.length - 1]);
    out.zoom_longest_task_ms.push(r.zoomLong);
    out.rest_longest_task_ms.push(r.restLong);
    await context.close();
  }
} finally {
  await browser.close();
}
const result = { runs, page_errors: errors };
for (const [k, v] of Object.entries(out)) result[k] = round(median(v));
console.log(JSON.stringify(result));

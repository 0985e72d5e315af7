// Times the timeline page (`hearth timeline -o timeline.html`) in headless Chromium: the first
// complete draw (navigation start to the end of the first frame, performance.now()), the longest
// task while loading, then zoom frames (wheel events at the pointer, from the whole window down
// to microseconds and back) and pan frames (drags and arrow keys at four zoom levels): each
// frame's draw time and the time from the event to the frame drawn, and the longest task during
// the interactions. Prints one JSON object of medians over RUNS fresh pages (a run's worst frame
// and longest task: their median over the runs, and the worst of all runs). Informational only
// (timeline_bench.sh).
//
//   node timeline_bench.mjs PAGE.html [RUNS]
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
  console.error("usage: node timeline_bench.mjs PAGE.html [RUNS]");
  process.exit(2);
}
const runs = parseInt(runsArg || "5", 10);
const median = (v) => {
  const s = [...v].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};
const round = (v) => Math.round(v * 10) / 10;

const { chromium } = await import(pathToFileURL(PLAYWRIGHT).href);
const browser = await chromium.launch({ executablePath: CHROMIUM, args: ARGS, headless: true });
const url = pathToFileURL(path.resolve(pagePath)).href;
const first = [], scriptStart = [], loadLong = [], zoomDraw = [], zoomMax = [], zoomLatency = [],
  panDraw = [], panMax = [], panLatency = [], actLong = [];
let errors = 0;
try {
  for (let i = 0; i < runs; i++) {
    const context = await browser.newContext({ viewport: { width: 1400, height: 1000 } });
    const page = await context.newPage();
    page.on("pageerror", () => errors++);
    // Long tasks from the very start (the observer is there before the page's own script).
    await page.addInitScript(() => {
      window.__long = [];
      new PerformanceObserver((list) => {
        for (const e of list.getEntries()) window.__long.push(e.duration);
      }).observe({ type: "longtask", buffered: true });
    });
    await page.goto(url, { waitUntil: "load" });
    await page.waitForFunction(() => window.hearthTimeline, null, { timeout: 120000 });
    await page.waitForTimeout(300);  // a long task is reported after it ends
    const s = await page.evaluate(() => ({ ...window.hearthTimeline.stats(), long: window.__long.slice() }));
    first.push(s.firstDrawAt);
    scriptStart.push(s.scriptStart);
    loadLong.push(Math.max(0, ...s.long));
    const r = await page.evaluate(async () => {
      window.__long.length = 0;
      const h = window.hearthTimeline;
      const ov = document.getElementById("ov");
      const box = ov.getBoundingClientRect();
      const frame = () => new Promise((res) => requestAnimationFrame(() => setTimeout(res, 0)));
      const x = box.left + h.labelW + (box.width - h.labelW) * 0.4, y = box.top + h.mergedY() + 80;
      const timed = async (fire) => {
        const t = performance.now();
        fire();
        await frame();
        return { latency: performance.now() - t, draw: h.stats().lastDrawMs };
      };
      const zoom = [], pan = [];
      // Zoom in from the whole window to its minimum, then out again: wheel events at the pointer.
      for (const dir of [-1, 1]) {
        for (let k = 0; k < 40; k++) {
          zoom.push(await timed(() => ov.dispatchEvent(new WheelEvent("wheel", {
            deltaY: dir * 240, clientX: x, clientY: y, bubbles: true, cancelable: true }))));
        }
      }
      // Pans at four zoom levels: drags of 60 px and arrow keys.
      const span = h.view().span;
      for (const frac of [1, 0.1, 0.01, 0.0001]) {
        h.setView(span * 0.3, span * (0.3 + frac));
        await frame();
        ov.dispatchEvent(new MouseEvent("mousedown", { clientX: x, clientY: y, button: 0, bubbles: true }));
        for (let k = 1; k <= 8; k++) {
          pan.push(await timed(() => window.dispatchEvent(new MouseEvent("mousemove", {
            clientX: x - 60 * k, clientY: y, bubbles: true }))));
        }
        window.dispatchEvent(new MouseEvent("mouseup", { clientX: x - 480, clientY: y, button: 0, bubbles: true }));
        const wrap = document.getElementById("wrap");
        for (let k = 0; k < 4; k++) {
          pan.push(await timed(() => wrap.dispatchEvent(new KeyboardEvent("keydown", { key: "ArrowRight", bubbles: true }))));
        }
      }
      await new Promise((res) => setTimeout(res, 300));
      return { zoom, pan, long: window.__long.slice() };
    });
    zoomDraw.push(median(r.zoom.map((z) => z.draw)));
    zoomMax.push(Math.max(...r.zoom.map((z) => z.draw)));
    zoomLatency.push(median(r.zoom.map((z) => z.latency)));
    panDraw.push(median(r.pan.map((z) => z.draw)));
    panMax.push(Math.max(...r.pan.map((z) => z.draw)));
    panLatency.push(median(r.pan.map((z) => z.latency)));
    actLong.push(Math.max(0, ...r.long));
    await context.close();
  }
} finally {
  await browser.close();
}
console.log(JSON.stringify({
  page_bytes: fs.statSync(pagePath).size, runs,
  script_start_ms: round(median(scriptStart)), first_draw_ms: round(median(first)),
  load_longest_task_ms: round(median(loadLong)),
  zoom_draw_ms: round(median(zoomDraw)), zoom_draw_max_ms: round(median(zoomMax)),
  zoom_event_to_frame_ms: round(median(zoomLatency)),
  pan_draw_ms: round(median(panDraw)), pan_draw_max_ms: round(median(panMax)),
  pan_event_to_frame_ms: round(median(panLatency)),
  interaction_longest_task_ms: round(median(actLong)),
  // The worst over every run, not the median of each run's worst.
  worst_of_all_runs: {
    zoom_draw_ms: round(Math.max(...zoomMax)), pan_draw_ms: round(Math.max(...panMax)),
    load_longest_task_ms: round(Math.max(...loadLong)),
    interaction_longest_task_ms: round(Math.max(...actLong)),
  },
  page_errors: errors,
}));

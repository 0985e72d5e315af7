// The report's time view (when.html, templates/when.js + time_link.js) in Chromium, on a real
// report directory: `hearth report` over the golden timeline recording (timed samples and
// scheduler intervals, tests/golden/inputs/timeline) and a CLOCK_REALTIME metric series
// starting 0.1 s after the samples' time 0 (tests/golden/inputs/when), and an allocation rate
// on the same clock (tests/golden/inputs/when-alloc). Checks: a range dragged
// over the heatmap is the timeline's view and the range shaded in the metric charts, at the
// same place on their axis; a range selected in the timeline, or dragged over a chart, is the
// heatmap's range (its flamegraph drawn); an instant clicked on a timeline lane or a chart opens
// the moment view with exactly the groups `hearth heatmap DIR --moment T -o -` prints, and is
// marked in every picture; the address restores the state; keyboard (the page's form, the
// heatmap's keys, the chart's keys); dark mode; file:// and `hearth serve`. No timed assertion.
//
//   node when.test.mjs HEARTH_EXE OUTDIR INPUT_DIR...
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { chromium } from "playwright-core";
import { CHROMIUM, CHROMIUM_ARGS, check, die, finish, info, luminance, near, startServe } from "./lib.mjs";

const [exe, outDir, ...inputs] = process.argv.slice(2);
if (!exe || !outDir || !inputs.length) die("usage: node when.test.mjs HEARTH_EXE OUTDIR INPUT_DIR...");
const dir = path.join(outDir, "report");
fs.rmSync(dir, { recursive: true, force: true });
fs.mkdirSync(dir, { recursive: true });
for (const input of inputs) {
  for (const f of fs.readdirSync(input)) fs.copyFileSync(path.join(input, f), path.join(dir, f));
}
execFileSync(exe, ["report", dir], { stdio: "inherit" });
for (const f of ["when.html", "heat.html", "timeline.html", "metrics.svg"]) {
  if (!fs.existsSync(path.join(dir, f))) die(`hearth report wrote no ${f}`);
}
// With an allocation rate among the inputs, the time view frames its chart too.
const withAlloc = fs.existsSync(path.join(dir, "alloc.rate.tsv"));
if (withAlloc && !fs.existsSync(path.join(dir, "alloc.rate.svg"))) die("hearth report wrote no alloc.rate.svg");
const index = fs.readFileSync(path.join(dir, "index.html"), "utf8");
check(/href="when\.html"/.test(index), "index.html links the time view");

// Polled by time, not by animation frames: a frame scrolled out of view gets none.
const TIMEOUT = { timeout: 20000, polling: 50 };
const frameOf = (page, name) => page.frames().find((f) => f.url().split(/[?#]/)[0].endsWith("/" + name));

// The page loaded and every picture linked.
async function open(page, url) {
  await page.goto(url, { waitUntil: "load" });
  await page.waitForFunction(() => window.hearthWhen && window.hearthWhen.ready(), null, TIMEOUT);
  const heat = frameOf(page, "heat.html"), timeline = frameOf(page, "timeline.html"), metrics = frameOf(page, "metrics.svg");
  await heat.waitForFunction(() => window.hearthHeatmap, null, TIMEOUT);
  await timeline.waitForFunction(() => window.hearthTimeline, null, TIMEOUT);
  return { heat, timeline, metrics };
}
const hostState = (page) => page.evaluate(() => window.hearthWhen.state());
async function waitState(page, test, what, arg = null) {
  try {
    await page.waitForFunction(test, arg, TIMEOUT);
    return true;
  } catch (e) {
    return check(false, `${what} (state ${JSON.stringify(await hostState(page))})`);
  }
}
// Where a frame's element is on the page (its content box), scrolled to just below the sticky
// bar; with SEL, where that element of the framed document is.
async function frameBox(page, name, frame, sel) {
  const box = await page.evaluate((n) => {
    const el = document.querySelector("iframe." + n);
    const bar = document.querySelector("header").getBoundingClientRect().height;
    window.scrollTo(0, el.getBoundingClientRect().top + window.scrollY - bar - 10);
    const b = el.getBoundingClientRect();
    return { x: b.left + el.clientLeft, y: b.top + el.clientTop };
  }, name);
  if (!sel) return box;
  const r = await frame.evaluate((s) => {
    const b = document.querySelector(s).getBoundingClientRect();
    return { x: b.left, y: b.top };
  }, sel);
  return { x: box.x + r.x, y: box.y + r.y };
}
async function drag(page, a, b) {
  await page.mouse.move(a.x, a.y);
  await page.mouse.down();
  await page.mouse.move((a.x + b.x) / 2, (a.y + b.y) / 2, { steps: 3 });
  await page.mouse.move(b.x, b.y, { steps: 3 });
  await page.mouse.up();
}
// The heatmap's range and moment, in ns.
const heatState = (heat) => heat.evaluate(() => {
  const f = window.hearthHeatmap.lastFlame();
  const m = window.hearthHeatmap.lastMoment();
  return { flame: f ? { from: f.range[0], to: f.range[1] } : null, moment: m ? { round: m.round, time_ns: m.time_ns } : null };
});
// The timeline's view, seconds since 0 s, and its instant.
const timelineState = (tl) => tl.evaluate(() => {
  const v = window.hearthTimeline.view(), at = window.hearthTimeline.instant();
  return { from: (v.from - v.origin) / 1e9, to: (v.to - v.origin) / 1e9, whole: v.from <= 0 && v.to >= v.span,
           at: at === null ? null : (at - v.origin) / 1e9 };
});
// READ() again until OK(value) or the test's timeout, then the last value: the host tells the
// frames of a change by postMessage, which reaches each frame when it does (never a timing).
async function eventually(read, ok) {
  const end = Date.now() + TIMEOUT.timeout;
  for (;;) {
    const v = await read();
    if (ok(v) || Date.now() > end) return v;
    await new Promise((r) => setTimeout(r, 50));
  }
}
// The metric charts' marks: per panel, the shaded range and the instant in seconds on their axis.
const metricMarks = (metrics, base) => metrics.evaluate((b) => {
  const svg = document.documentElement;
  const span = Number(svg.getAttribute("data-span-ns")) / 1e9;
  const plots = Array.from(svg.querySelectorAll("[data-plot]"), (r) => r.getAttribute("data-plot").split(" ").map(Number));
  const sOf = (p, x) => b + (x - p[0]) / p[2] * span;
  const out = plots.map(() => ({ range: null, at: null }));
  for (const r of svg.querySelectorAll("#when-marks rect")) {
    const x = Number(r.getAttribute("x")), w = Number(r.getAttribute("width")), y = Number(r.getAttribute("y"));
    const i = plots.findIndex((p) => p[1] === y && x >= p[0] - 0.01 && x <= p[0] + p[2] + 0.01);
    if (i < 0) continue;
    if (r.classList.contains("when-range")) out[i].range = [sOf(plots[i], x), sOf(plots[i], x + w)];
    else out[i].at = sOf(plots[i], x + w / 2);
  }
  return { panels: plots.length, marks: out, focusable: svg.getAttribute("tabindex") === "0" };
}, base);
// The moment view as the CLI's text (moment.test.mjs's reading of the page).
const momentText = (heat) => heat.evaluate(() => {
  const lines = [""];
  for (const g of document.querySelectorAll("#moment details.group")) {
    lines.push(g.querySelector("summary").textContent);
    for (const li of g.querySelectorAll("ol.stack li")) lines.push("    " + li.textContent);
    for (const li of g.querySelectorAll("ul.threads li")) lines.push("  " + li.textContent);
    lines.push("");
  }
  return lines.join("\n");
});
function secondsText(v) {
  const s = v.toFixed(9).replace(/0+$/, "").replace(/\.$/, "");
  return s === "-0" ? "0" : s;
}
const cliMoment = (seconds) =>
  execFileSync(exe, ["heatmap", dir, "--moment", seconds, "-o", "-"], { encoding: "utf8" }).split("\n").slice(2).join("\n");

const BASE = 0.1;  // the metric series' first time, seconds after the samples' time 0

async function checkMoment(page, heat, label) {
  const st = await hostState(page);
  await heat.waitForFunction(() => window.hearthHeatmap.lastMoment(), null, TIMEOUT);
  const shown = await momentText(heat), expected = cliMoment(secondsText(st.at));
  if (!check(shown === expected && shown.length > 10, `${label}: the moment view at ${st.at} s equals \`hearth heatmap --moment\``)) {
    info("page:\n" + shown + "\ncli:\n" + expected);
  }
}

async function run(page, url, label) {
  const errors = [];
  page.on("console", (m) => { if (m.type() === "error") errors.push(`console: ${m.text()}`); });
  page.on("pageerror", (e) => errors.push(`page error: ${e.message}`));
  const { heat, timeline, metrics } = await open(page, url);
  check(heat && timeline && metrics, `${label}: the three pictures are framed`);

  // 1. A range dragged over the heatmap: cells 12..14 (rows of 100 ms, 10 a column): 1.2-1.5 s.
  let box = await frameBox(page, "heat", heat, "#heat");
  const cell = (c) => heat.evaluate((k) => window.hearthHeatmap.cellRect(k), c);
  const [c0, c1] = [await cell(12), await cell(14)];
  await drag(page, { x: box.x + c0[0] + 2, y: box.y + c0[1] + 2 }, { x: box.x + c1[0] + 2, y: box.y + c1[1] + 2 });
  await waitState(page, () => { const s = window.hearthWhen.state(); return s.t && Math.abs(s.t[0] - 1.2) < 1e-9 && Math.abs(s.t[1] - 1.5) < 1e-9; },
                  `${label}: a heatmap drag over 1.2-1.5 s is the page's range`);
  check(/#t=1\.2,1\.5(&|$)/.test(page.url()), `${label}: the address keeps the range (${page.url().split("#")[1]})`);
  await timeline.waitForFunction(() => { const v = window.hearthTimeline.view(); return Math.abs(v.from - v.origin - 1.2e9) < 1 && Math.abs(v.to - v.origin - 1.5e9) < 1; }, null, TIMEOUT).catch(() => {});
  let tl = await timelineState(timeline);
  check(near(tl.from, 1.2, 1e-9) && near(tl.to, 1.5, 1e-9), `${label}: the timeline zoomed to the heatmap's range (${tl.from}-${tl.to} s)`);
  const shades = (a, b) => (v) => v.marks.every((m) => m.range && near(m.range[0], a, 2e-3) && near(m.range[1], b, 2e-3));
  let mm = await eventually(() => metricMarks(metrics, BASE), shades(1.2, 1.5));
  check(mm.panels >= 2 && shades(1.2, 1.5)(mm),
        `${label}: every metric chart shades 1.2-1.5 s on its own axis (${JSON.stringify(mm.marks.map((m) => m.range))})`);
  // The allocation rate (an input with alloc.rate.tsv): a metric chart of its own on the axis.
  if (withAlloc) {
    const alloc = frameOf(page, "alloc.rate.svg");
    check(alloc, `${label}: the allocation rate is framed`);
    if (alloc) {
      const am = await eventually(() => metricMarks(alloc, BASE), shades(1.2, 1.5));
      check(am.panels === 2 && shades(1.2, 1.5)(am),
            `${label}: the allocation-rate chart shades 1.2-1.5 s on its axis (${JSON.stringify(am.marks.map((m) => m.range))})`);
      const w = await page.evaluate(() => document.querySelector("iframe.alloc").getBoundingClientRect().width);
      check(w > 200, `${label}: the allocation-rate frame is as wide as its chart (${w} px)`);
    }
  }
  await heat.waitForFunction(() => window.hearthHeatmap.lastFlame(), null, TIMEOUT);

  // 2. A range selected in the timeline (Shift-drag over 0.5-0.9 s): the heatmap's range and flamegraph.
  const geo = await timeline.evaluate(() => ({ y: window.hearthTimeline.mergedY(), labelW: window.hearthTimeline.labelW }));
  const xAt = (s) => timeline.evaluate((t) => { const v = window.hearthTimeline.view(); return window.hearthTimeline.xOf(v.origin + t * 1e9); }, s);
  await frameBox(page, "timeline");  // in view: a frame out of view draws nothing
  await timeline.evaluate(() => window.hearthTimeline.setView(0, window.hearthTimeline.view().span));
  await waitState(page, () => window.hearthWhen.state().t === null, `${label}: the timeline's whole window is no range`);
  box = await frameBox(page, "timeline", timeline, "#ov");
  const [xa, xb] = [await xAt(0.5), await xAt(0.9)];
  await page.keyboard.down("Shift");
  await drag(page, { x: box.x + xa, y: box.y + geo.y }, { x: box.x + xb, y: box.y + geo.y });
  await page.keyboard.up("Shift");
  await waitState(page, () => { const s = window.hearthWhen.state(); return s.t && Math.abs(s.t[0] - 0.5) < 0.02 && Math.abs(s.t[1] - 0.9) < 0.02; },
                  `${label}: a timeline selection over 0.5-0.9 s is the page's range`);
  let st = await hostState(page);
  tl = await timelineState(timeline);
  check(st.t && near(st.t[0], tl.from, 1e-9) && near(st.t[1], tl.to, 1e-9), `${label}: the page's range is the timeline's view`);
  // Its flamegraph is drawn after a paint: when the frame is in view (none is painted out of view).
  await frameBox(page, "heat");
  await heat.waitForFunction((t) => { const f = window.hearthHeatmap.lastFlame(); return f && f.range[0] === Math.round(t[0] * 1e9) && f.range[1] === Math.round(t[1] * 1e9); },
                             st.t, TIMEOUT).catch(() => {});
  let hs = await heatState(heat);
  check(hs.flame && hs.flame.from === Math.round(st.t[0] * 1e9) && hs.flame.to === Math.round(st.t[1] * 1e9),
        `${label}: the heatmap drew the flamegraph of the timeline's range (${JSON.stringify(hs.flame)})`);
  mm = await eventually(() => metricMarks(metrics, BASE), shades(st.t[0], st.t[1]));
  check(shades(st.t[0], st.t[1])(mm), `${label}: the charts shade the timeline's range`);

  // 3. A drag over a metric chart (the first panel, 1.0-1.6 s on its axis).
  box = await frameBox(page, "metrics");
  const plot = await metrics.evaluate(() => document.querySelector("[data-plot]").getAttribute("data-plot").split(" ").map(Number));
  const span = await metrics.evaluate(() => Number(document.documentElement.getAttribute("data-span-ns")) / 1e9);
  const px = (s) => plot[0] + (s - BASE) / span * plot[2];
  await drag(page, { x: box.x + px(1.0), y: box.y + plot[1] + plot[3] / 2 }, { x: box.x + px(1.6), y: box.y + plot[1] + plot[3] / 2 });
  await waitState(page, () => { const s = window.hearthWhen.state(); return s.t && Math.abs(s.t[0] - 1.0) < 0.02 && Math.abs(s.t[1] - 1.6) < 0.02; },
                  `${label}: a chart drag over 1.0-1.6 s is the page's range`);
  st = await hostState(page);
  await timeline.waitForFunction((t) => { const v = window.hearthTimeline.view(); return Math.abs(v.from - v.origin - t[0] * 1e9) < 1; }, st.t, TIMEOUT).catch(() => {});
  tl = await timelineState(timeline);
  check(near(tl.from, st.t[0], 1e-9) && near(tl.to, st.t[1], 1e-9), `${label}: the timeline zoomed to the chart's range (${tl.from}-${tl.to})`);
  await frameBox(page, "heat");
  await heat.waitForFunction((t) => { const f = window.hearthHeatmap.lastFlame(); return f && f.range[0] === Math.round(t[0] * 1e9); }, st.t, TIMEOUT).catch(() => {});
  hs = await heatState(heat);
  check(hs.flame && hs.flame.from === Math.round(st.t[0] * 1e9) && hs.flame.to === Math.round(st.t[1] * 1e9), `${label}: the heatmap drew the chart's range`);

  // 4. An instant clicked on a timeline lane: the moment view, marked everywhere.
  box = await frameBox(page, "timeline", timeline, "#ov");
  const lane = await timeline.evaluate(() => window.hearthTimeline.laneY(101));
  const xi = await xAt(1.33);
  await page.mouse.click(box.x + xi, box.y + lane + 4);
  await waitState(page, () => Math.abs(window.hearthWhen.state().at - 1.33) < 0.01, `${label}: a click on a lane is the page's instant`);
  st = await hostState(page);
  check(near(st.at, 1.33, 0.01), `${label}: the instant is where the lane was clicked (${st.at})`);
  tl = await timelineState(timeline);
  check(tl.at !== null && near(tl.at, st.at, 1e-9), `${label}: the timeline marks the instant`);
  await checkMoment(page, heat, `${label}, a timeline click`);
  hs = await heatState(heat);
  check(hs.moment && Math.abs(hs.moment.time_ns / 1e9 - st.at) <= 0.05 + 1e-9, `${label}: the heatmap's moment is the sample nearest the instant`);
  const marks = (at) => (v) => v.marks.every((m) => m.at !== null && near(m.at, at, 2e-3));
  mm = await eventually(() => metricMarks(metrics, BASE), marks(st.at));
  check(marks(st.at)(mm), `${label}: every chart marks the instant`);

  // 5. An instant clicked on a chart: the moment view.
  box = await frameBox(page, "metrics");
  await page.mouse.click(box.x + px(0.72), box.y + plot[1] + plot[3] / 2);
  await waitState(page, () => Math.abs(window.hearthWhen.state().at - 0.72) < 0.02, `${label}: a click on a chart is the page's instant`);
  await heat.waitForFunction((t) => { const m = window.hearthHeatmap.lastMoment(); return m && Math.abs(m.time_ns / 1e9 - t) <= 0.05 + 1e-9; }, (await hostState(page)).at, TIMEOUT).catch(() => {});
  await checkMoment(page, heat, `${label}, a chart click`);
  const chartAt = (await hostState(page)).at;
  tl = await eventually(() => timelineState(timeline), (v) => v.at !== null && near(v.at, chartAt, 1e-9));
  check(tl.at !== null && near(tl.at, chartAt, 1e-9), `${label}: the timeline marks the chart's instant`);

  // 6. The address restores the state in a fresh page.
  st = await hostState(page);
  hs = await heatState(heat);
  const restored = await page.context().newPage();
  const r = await open(restored, page.url());
  const rs = await hostState(restored);
  check(JSON.stringify(rs) === JSON.stringify(st), `${label}: the address restores the state (${JSON.stringify(rs)})`);
  await frameBox(restored, "heat");
  await r.heat.waitForFunction(() => window.hearthHeatmap.lastFlame() && window.hearthHeatmap.lastMoment(), null, TIMEOUT).catch(() => {});
  const rh = await heatState(r.heat);
  check(rh.flame && rh.flame.from === Math.round(st.t[0] * 1e9) && rh.flame.to === hs.flame.to && rh.moment && hs.moment && rh.moment.round === hs.moment.round,
        `${label}: restored, the heatmap shows the range and the moment (${JSON.stringify(rh)})`);
  await r.timeline.waitForFunction((t) => { const v = window.hearthTimeline.view(); return Math.abs(v.from - v.origin - t[0] * 1e9) < 1; }, st.t, TIMEOUT).catch(() => {});
  const rt = await timelineState(r.timeline);
  check(near(rt.from, st.t[0], 1e-9) && near(rt.to, st.t[1], 1e-9) && near(rt.at, st.at, 1e-9), `${label}: restored, the timeline shows the range and the instant`);
  const rm = await metricMarks(r.metrics, BASE);
  check(rm.marks.every((m) => m.range && m.at !== null), `${label}: restored, the charts shade the range and mark the instant`);
  await restored.close();

  // 7. Keyboard: the page's form, the heatmap's keys, the chart's keys.
  await page.focus("#from");
  await page.keyboard.press("Control+A");
  await page.keyboard.type("0.3");
  await page.keyboard.press("Tab");
  await page.keyboard.press("Control+A");
  await page.keyboard.type("0.6");
  await page.keyboard.press("Tab");
  await page.keyboard.press("Control+A");
  await page.keyboard.type("1.05");
  await page.keyboard.press("Enter");
  await waitState(page, () => { const s = window.hearthWhen.state(); return s.t && s.t[0] === 0.3 && s.t[1] === 0.6 && s.at === 1.05; },
                  `${label}: typed times are the page's range and instant`);
  await timeline.waitForFunction(() => { const v = window.hearthTimeline.view(); return Math.abs(v.from - v.origin - 0.3e9) < 1; }, null, TIMEOUT).catch(() => {});
  tl = await timelineState(timeline);
  check(near(tl.from, 0.3, 1e-9) && near(tl.to, 0.6, 1e-9), `${label}: typed, the timeline zoomed`);
  await checkMoment(page, heat, `${label}, a typed instant`);
  // The heatmap's keys: Escape clears its range, Shift+Down selects, Enter draws.
  await heat.focus("#heat-wrap");
  await heat.press("#heat-wrap", "Escape");
  await waitState(page, () => window.hearthWhen.state().t === null, `${label}: Escape on the heatmap clears the page's range`);
  await heat.press("#heat-wrap", "Shift+ArrowDown");
  await heat.press("#heat-wrap", "Enter");
  await waitState(page, () => window.hearthWhen.state().t !== null, `${label}: Shift+arrow and Enter on the heatmap set the page's range`);
  // The chart's keys: it takes the focus; → moves the instant a hundredth of its span.
  const before = (await hostState(page)).at;
  await metrics.focus("svg");
  await metrics.press("svg", "ArrowRight");
  // The message from the chart's frame arrives when it arrives: wait for the instant to move.
  await waitState(page, (was) => { const at = window.hearthWhen.state().at; return at !== null && at !== was; },
                  `${label}: the chart's keys`, before);
  const after = (await hostState(page)).at;
  check(near(after - before, span / 100, 1e-6), `${label}: → on a chart moves the instant by a hundredth of its span (${before} -> ${after})`);
  check(mm.focusable, `${label}: a linked chart takes the focus`);

  // 8. Dark mode.
  const light = await page.evaluate(() => getComputedStyle(document.documentElement).backgroundColor);
  await page.emulateMedia({ colorScheme: "dark" });
  const dark = await page.evaluate(() => getComputedStyle(document.documentElement).backgroundColor);
  const heatDark = await heat.evaluate(() => getComputedStyle(document.body).backgroundColor);
  check(luminance(light) > 0.8 && luminance(dark) < 0.1 && luminance(heatDark) < 0.1, `${label}: dark mode (${light} -> ${dark}; heatmap ${heatDark})`);
  await page.emulateMedia({ colorScheme: "light" });
  check(errors.length === 0, `${label}: no console or page errors: ${errors.join(" | ")}`);
}

let error = null;
const browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS, headless: true });
let server = null;
try {
  const context = await browser.newContext({ viewport: { width: 1300, height: 900 } });
  await run(await context.newPage(), pathToFileURL(path.join(dir, "when.html")).href, "file://");
  server = await startServe(exe, [dir]);
  await run(await context.newPage(), server.url + "when.html", "http");
} catch (e) {
  error = e;
} finally {
  await browser.close();
  if (server) server.proc.kill("SIGINT");
}
finish(error);

// The timeline page (`hearth timeline -o timeline.html`, templates/timeline.js) in Chromium, on
// the hand-written recording of tests/golden/inputs/timeline (5 threads over 2 s: whole intervals
// from 1 s, 500 ms slots before, a sample every 100 ms):
// - the lanes are drawn in their states' colours (pixels read back), the all-threads lane too;
// - keyboard (+ - arrows 0 g), wheel (zoom at the pointer, Shift+wheel scrolls) and drag (pan,
//   Shift-drag zooms to a range) change the view as they say;
// - hovering a lane shows the interval under the pointer: state, duration, CPU, preemptor or
//   waker by name; a slot says it is one;
// - clicking a sample's tick shows that sample's stack, and the moment link when the heatmap is
//   beside the page;
// - the range, grouping and filter are restored from the URL; pools group and open;
// - dark mode; the page over `hearth serve`; no console errors, no requests outside;
// - with UNTRACED_DIR (the same recording, its first slot from /proc before the trace: hearth
//   watch's `# untraced`), the page says which slots are not the tracer's, in its kept text and
//   its hover.
// No timing is asserted.
//
//   node timeline.test.mjs HEARTH_EXE OUTDIR INPUT_DIR [UNTRACED_DIR]
import { execFileSync, spawn } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { chromium } from "playwright-core";
import { ACTION_TIMEOUT_MS, CHROMIUM, CHROMIUM_ARGS, check, die, finish, info, luminance } from "./lib.mjs";

const [exe, outDir, inputDir, untracedDir] = process.argv.slice(2);
if (!exe || !outDir || !inputDir) die("usage: node timeline.test.mjs HEARTH_EXE OUTDIR INPUT_DIR");
fs.mkdirSync(outDir, { recursive: true });
const pagePath = path.join(outDir, "timeline.html");
execFileSync(exe, ["timeline", inputDir, "-o", pagePath, "--heatmap", "heat.html"], { stdio: ["ignore", "ignore", "inherit"] });
// ASCII only (render/page/page_text.h): Chromium reads a page with no byte above 0x7f as 8-bit
// text, about twice as fast as one with a single character above it.
{
  const bytes = fs.readFileSync(pagePath);
  const at = bytes.findIndex((b) => b > 0x7f);
  check(at < 0, `the page is ASCII (first byte above 0x7f at ${at})`);
}
const pageUrl = pathToFileURL(path.resolve(pagePath)).href;
const NS = 1e9;
const GREEN = [0x4c, 0xaf, 0x50], RED = [0xe8, 0x5d, 0x2f], BLUE = [0x9e, 0xc9, 0xec], PURPLE = [0x9b, 0x6b, 0xc8];
const same = (a, b) => a && b && a.length === b.length && a.every((v, i) => Math.abs(v - b[i]) <= 2);

async function open(context, query, errors) {
  const page = await context.newPage();
  page.on("console", (m) => { if (m.type() === "error") errors.push(`console: ${m.text()}`); });
  page.on("pageerror", (e) => errors.push(`page error: ${e.message}`));
  page.on("request", (r) => { if (!/^(file:|data:|http:\/\/127\.0\.0\.1)/.test(r.url())) errors.push(`request outside: ${r.url()}`); });
  await page.goto(pageUrl + (query || ""), { waitUntil: "load" });
  await page.waitForFunction(() => window.hearthTimeline, null, { timeout: 20000 });
  return page;
}
const view = (page) => page.evaluate(() => window.hearthTimeline.view());
// Page coordinates of time T on lane TID (or the all-threads lane when TID is null).
async function at(page, tid, t) {
  const box = await page.locator("#ov").boundingBox();
  const [x, y] = await page.evaluate(([tid, t]) => {
    const h = window.hearthTimeline;
    return [h.xOf(t), tid === null ? h.mergedY() : h.laneY(tid)];
  }, [tid, t]);
  return { x: box.x + x, y: box.y + y, localX: x, localY: y };
}
async function settle(page) {
  await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
}
async function hoverText(page, tid, t) {
  const p = await at(page, tid, t);
  await page.mouse.move(p.x, p.y);
  return page.evaluate(() => window.hearthTimeline.tip());
}
// The colour drawn at time T on lane TID, DY px below the lane's middle.
async function pixel(page, tid, t, dy = 0) {
  const p = await at(page, tid, t);
  return page.evaluate(([x, y]) => window.hearthTimeline.pixel(x, y), [p.localX, p.localY + dy]);
}

async function main() {
  const browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS, headless: true });
  const errors = [];
  try {
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    context.setDefaultTimeout(ACTION_TIMEOUT_MS);
    const page = await open(context, "", errors);
    const stats = await page.evaluate(() => window.hearthTimeline.stats());
    check(stats.lanes === 5 && stats.intervals === 837, `5 lanes, 837 intervals (${stats.lanes}, ${stats.intervals})`);
    info(`first draw at ${Math.round(stats.firstDrawAt)} ms, a frame ${stats.lastDrawMs.toFixed(1)} ms`);
    const v = await view(page);
    check(v.from === 0 && v.to === 2 * NS, `the whole window at first (${v.from}..${v.to})`);
    const rows = await page.evaluate(() => window.hearthTimeline.rows().map((r) => r.name));
    check(JSON.stringify(rows) === JSON.stringify(["app", "flusher", "worker-1", "worker-2", "worker-3"]),
          `lanes: the main thread first, then by pool and tid (${rows.join(", ")})`);

    // Pixels: each lane in its state's colour where one state fills the column.
    check(same(await pixel(page, 100, 1.05 * NS), GREEN), "main at 1.05 s: on CPU (green)");
    check(same(await pixel(page, 100, 1.12 * NS), RED), "main at 1.12 s: runnable (red)");
    check(same(await pixel(page, 100, 1.5 * NS), BLUE), "main at 1.5 s: sleeping (blue)");
    check(same(await pixel(page, 104, 1.55 * NS), PURPLE), "flusher at 1.55 s: blocked (purple)");
    check(same(await pixel(page, 104, 0.3 * NS, 5), PURPLE) && same(await pixel(page, 104, 0.3 * NS, -5), BLUE),
          "flusher at 0.3 s, a slot 40% blocked, 59% asleep: a stripe, blocked below, sleeping above");
    const merged = await pixel(page, null, 1.5 * NS);
    check(!same(merged, [0, 0, 0]) && merged.some((c) => c > 100), `the all-threads lane is drawn (${merged})`);

    // Hover: the interval under the pointer.
    let tip = await hoverText(page, 100, 1.12 * NS);
    check(/runnable \(R\) for 50 ms/.test(tip), `hover: state and duration (${JSON.stringify(tip)})`);
    check(/CPU 0/.test(tip) && /preempted by kworker\/0:1 \(tid 77\)/.test(tip), "hover: the CPU and the preemptor by name");
    check(/from 1\.100000000 s to 1\.150000000 s/.test(tip), "hover: the interval's start and end");
    tip = await hoverText(page, 100, 1.55 * NS);
    check(/sleeping \(S\) for 500 ms/.test(tip) && /woken by worker-1 \(tid 101\)/.test(tip), `hover: the waker (${JSON.stringify(tip)})`);
    tip = await hoverText(page, 102, 1.3 * NS);
    check(/woken by the idle task/.test(tip), `hover: woken by the idle task (${JSON.stringify(tip)})`);
    tip = await hoverText(page, 100, 0.2 * NS);
    check(/slot 0\.000 s . 0\.500 s/.test(tip) && /on CPU 300 ms/.test(tip), `hover in the slots: a slot, its times (${JSON.stringify(tip)})`);
    tip = await hoverText(page, null, 1.5 * NS);
    check(/all 5 threads shown/.test(tip) && /threads: /.test(tip), `hover on the all-threads lane (${JSON.stringify(tip)})`);

    // A sample's tick: click -> its stack.
    const ticks = await page.evaluate(() => window.hearthTimeline.ticks(104));
    check(ticks.length === 20, `flusher: 20 sample ticks (${ticks.length})`);
    const tick = ticks.find((t) => Math.abs(t - 1.5 * NS) < 1);
    check(tick !== undefined, "a tick at 1.5 s");
    let p = await at(page, 104, tick);
    await page.mouse.click(p.x, p.y - 5);
    const sample = await page.evaluate(() => window.hearthTimeline.sample());
    const want = ["jbd2_log_wait_commit_[k]", "fsync", "app::Flusher::run()", "start_thread"];
    check(sample && sample.tid === 104 && sample.state === "D" && JSON.stringify(sample.frames) === JSON.stringify(want),
          `click a tick: the flusher's sample at 1.5 s, D in fsync (${JSON.stringify(sample)})`);
    const listed = await page.evaluate(() => [...document.querySelectorAll("#stack li")].map((li) => li.textContent));
    check(JSON.stringify(listed) === JSON.stringify([...want, "[flusher tid=104]"]), `the stack is listed, leaf first, then the root (${listed.join(" | ")})`);
    const moment = await page.evaluate(() => { const a = document.getElementById("moment-link"); return a && a.getAttribute("href"); });
    check(moment === "heat.html?m=1.5", `the moment link opens the heatmap at 1.5 s (${moment})`);

    // Keyboard.
    await page.mouse.move(5, 5);
    await page.focus("#wrap");
    await page.keyboard.press("+");
    await settle(page);
    let w = await view(page);
    check(Math.abs((w.to - w.from) - 2 * NS / 1.5) < 2, `+ zooms in 1.5x (${w.from}..${w.to})`);
    await page.keyboard.press("ArrowRight");
    await settle(page);
    let w2 = await view(page);
    check(Math.abs(w2.from - w.from - 0.2 * (w.to - w.from)) < 0.005 * (w.to - w.from) || w2.to === 2 * NS,
          `-> pans right by a fifth, in whole pixels (${w2.from}..${w2.to})`);
    await page.keyboard.press("-");
    await page.keyboard.press("-");
    await settle(page);
    w = await view(page);
    check(w.from === 0 && w.to === 2 * NS, `- zooms out, no further than the whole window (${w.from}..${w.to})`);
    for (let i = 0; i < 40; i++) await page.keyboard.press("+");
    await settle(page);
    w = await view(page);
    check(Math.abs(w.to - w.from - 1000) < 0.01, `+ zooms down to a microsecond (${w.to - w.from} ns)`);
    await page.keyboard.press("0");
    await settle(page);
    w = await view(page);
    check(w.from === 0 && w.to === 2 * NS, "0 shows the whole window");

    // Wheel: zoom at the pointer (the time under it stays); Shift+wheel does not zoom.
    p = await at(page, 101, 1.2 * NS);
    await page.mouse.move(p.x, p.y);
    await page.mouse.wheel(0, -400);
    await settle(page);
    w = await view(page);
    const under = await page.evaluate((x) => { const v = window.hearthTimeline.view(); return v.from + (x - window.hearthTimeline.labelW) / (window.hearthTimeline.xOf(v.to) - window.hearthTimeline.labelW) * (v.to - v.from); }, p.localX);
    check(w.to - w.from < 2 * NS && Math.abs(under - 1.2 * NS) < 0.002 * NS, `wheel zooms in at the pointer (${w.from}..${w.to}, under the pointer ${Math.round(under)})`);
    await page.keyboard.down("Shift");
    await page.mouse.wheel(0, 200);
    await page.keyboard.up("Shift");
    await settle(page);
    const w3 = await view(page);
    check(w3.from === w.from && w3.to === w.to, "Shift+wheel leaves the zoom alone");

    // Drag pans; Shift-drag zooms to the range dragged.
    await page.keyboard.press("0");
    await settle(page);
    let a = await at(page, 101, 1.0 * NS), b = await at(page, 101, 1.5 * NS);
    await page.keyboard.press("+");
    await settle(page);
    w = await view(page);
    a = await at(page, 101, 1.2 * NS);
    await page.mouse.move(a.x, a.y);
    await page.mouse.down();
    await page.mouse.move(a.x - 100, a.y, { steps: 4 });
    await page.mouse.up();
    await settle(page);
    w2 = await view(page);
    check(w2.from > w.from && Math.abs((w2.to - w2.from) - (w.to - w.from)) < 2, `drag pans (${w.from} -> ${w2.from})`);
    await page.keyboard.press("0");
    await settle(page);
    a = await at(page, 101, 1.0 * NS);
    b = await at(page, 101, 1.5 * NS);
    await page.keyboard.down("Shift");
    await page.mouse.move(a.x, a.y);
    await page.mouse.down();
    await page.mouse.move(b.x, b.y, { steps: 4 });
    await page.mouse.up();
    await page.keyboard.up("Shift");
    await settle(page);
    w = await view(page);
    check(Math.abs(w.from - 1.0 * NS) < 0.01 * NS && Math.abs(w.to - 1.5 * NS) < 0.01 * NS, `Shift-drag zooms to the range (${w.from}..${w.to})`);

    // The URL keeps the view; a fresh page restores it.
    await page.evaluate(() => window.hearthTimeline.setView(1.1e9, 1.3e9));
    await page.waitForFunction(() => /[?&]r=1\.1-1\.3(&|$)/.test(location.search), null, { timeout: 5000 }).catch(() => {});
    const q = new URL(page.url()).search;
    check(/r=1\.1-1\.3/.test(q), `the view is in the URL (${q})`);
    const restored = await open(context, "?r=1.1-1.3&g=1&e=2", errors);
    w = await view(restored);
    check(Math.abs(w.from - 1.1e9) < 1 && Math.abs(w.to - 1.3e9) < 1, `?r= restores the view (${w.from}..${w.to})`);
    let r2 = await restored.evaluate(() => window.hearthTimeline.rows());
    const group = r2.find((r) => r.kind === "group");
    check(group && group.name === "worker-*" && group.members === 3, `?g=1 groups the pool (${JSON.stringify(group)})`);
    check(r2.filter((r) => r.kind === "lane").length === 5, "?e=2 opens it: its lanes follow");
    // Close it by clicking its name.
    const gy = await restored.evaluate(() => window.hearthTimeline.groupY("worker-*"));
    const box = await restored.locator("#ov").boundingBox();
    await restored.mouse.click(box.x + 40, box.y + gy);
    await settle(restored);
    r2 = await restored.evaluate(() => window.hearthTimeline.rows());
    check(r2.filter((r) => r.kind === "lane").length === 2, `a click on the pool's name closes it (${r2.map((r) => r.name).join(", ")})`);
    await restored.waitForFunction(() => !/[?&]e=/.test(location.search), null, { timeout: 5000 }).catch(() => {});
    check(!/[?&]e=/.test(new URL(restored.url()).search), "the URL forgets the closed pool");
    // g toggles grouping from the keyboard.
    await restored.focus("#wrap");
    await restored.keyboard.press("g");
    await settle(restored);
    r2 = await restored.evaluate(() => window.hearthTimeline.rows());
    check(!r2.some((r) => r.kind === "group"), "g ungroups");
    await restored.close();

    // The thread filter, from the URL and typed.
    const filtered = await open(context, "?t=flush", errors);
    r2 = await filtered.evaluate(() => window.hearthTimeline.rows().map((r) => r.name));
    check(JSON.stringify(r2) === JSON.stringify(["flusher"]), `?t= filters the lanes (${r2})`);
    await filtered.fill("#filter", "worker-[12]");
    await filtered.waitForFunction(() => window.hearthTimeline.rows().length === 2, null, { timeout: 5000 }).catch(() => {});
    r2 = await filtered.evaluate(() => window.hearthTimeline.rows().map((r) => r.name));
    check(JSON.stringify(r2) === JSON.stringify(["worker-1", "worker-2"]), `typing a filter (${r2})`);
    await filtered.close();

    // Time 0 is the samples' time 0: a recording whose sampler started 100 ms after the
    // scheduler tracer reads 100 ms less everywhere, the URL included.
    const later = path.join(outDir, "later");
    fs.mkdirSync(later, { recursive: true });
    for (const f of fs.readdirSync(inputDir)) fs.copyFileSync(path.join(inputDir, f), path.join(later, f));
    const samplesText = fs.readFileSync(path.join(inputDir, "stacks.samples.txt"), "utf8");
    fs.writeFileSync(path.join(later, "stacks.samples.txt"), samplesText.replace("mono_ns=1000000000000", "mono_ns=1000100000000"));
    execFileSync(exe, ["timeline", later, "-o", path.join(later, "timeline.html")], { stdio: ["ignore", "ignore", "inherit"] });
    const shifted = await context.newPage();
    shifted.on("pageerror", (e) => errors.push(`page error (shifted): ${e.message}`));
    await shifted.goto(pathToFileURL(path.join(later, "timeline.html")).href + "?r=0.9-1.4", { waitUntil: "load" });
    await shifted.waitForFunction(() => window.hearthTimeline, null, { timeout: 20000 });
    w = await view(shifted);
    check(Math.abs(w.from - 1.0 * NS) < 1 && Math.abs(w.to - 1.5 * NS) < 1, `?r= is in seconds since the samples' time 0 (${w.from}..${w.to})`);
    tip = await hoverText(shifted, 100, 1.12 * NS);
    check(/from 1\.000000000 s to 1\.050000000 s/.test(tip), `times read from the samples' time 0 (${JSON.stringify(tip)})`);
    const kept = await shifted.evaluate(() => document.getElementById("kept").textContent);
    check(/from 0\.900 s to 1\.900 s/.test(kept), `the kept part in those seconds (${kept})`);
    await shifted.close();

    // Dark mode.
    await page.evaluate(() => window.hearthTimeline.setView(0, 2e9));
    await settle(page);
    const light = await page.evaluate(() => getComputedStyle(document.getElementById("wrap")).backgroundColor);
    const lightLabel = await page.evaluate(() => window.hearthTimeline.pixel(3, 110));
    await page.emulateMedia({ colorScheme: "dark" });
    // The canvas is redrawn on the media query's change event, which a loaded machine delivers
    // some frames later: wait for it to turn dark (the check below says if it never does).
    await page.waitForFunction(() => {
      const p = window.hearthTimeline.pixel(3, 110);
      return p[0] + p[1] + p[2] < 3 * 80;
    }, null, { timeout: 10000, polling: 50 }).catch(() => {});
    await settle(page);
    const dark = await page.evaluate(() => getComputedStyle(document.getElementById("wrap")).backgroundColor);
    const darkLabel = await page.evaluate(() => window.hearthTimeline.pixel(3, 110));
    const lum = (rgb) => luminance(`rgb(${rgb.join(",")})`);
    check(luminance(light) > 0.8 && luminance(dark) < 0.1, `dark mode darkens the page (${light} -> ${dark})`);
    check(lum(lightLabel) > 0.8 && lum(darkLabel) < 0.1, `dark mode redraws the canvas (${lightLabel} -> ${darkLabel})`);
    check(same(await pixel(page, 100, 1.05 * NS), GREEN), "dark mode keeps the state colours");
    await page.close();

    if (untracedDir) {
      const untracedPath = path.join(outDir, "untraced.html");
      execFileSync(exe, ["timeline", untracedDir, "-o", untracedPath], { stdio: ["ignore", "ignore", "inherit"] });
      const u = await context.newPage();
      u.on("pageerror", (e) => errors.push(`page error (untraced): ${e.message}`));
      await u.goto(pathToFileURL(path.resolve(untracedPath)).href, { waitUntil: "load" });
      await u.waitForFunction(() => window.hearthTimeline, null, { timeout: 20000 });
      const uKept = await u.evaluate(() => document.getElementById("kept").textContent);
      check(/Before 0\.500 s the slots are not the tracer's: they come from \/proc/.test(uKept),
            `untraced: the kept text says which slots came from /proc (${uKept})`);
      let uTip = await hoverText(u, 100, 0.2 * NS);
      check(/slot 0\.000 s . 0\.500 s \(from \/proc before the trace/.test(uTip) && /CPU slices/.test(uTip),
            `untraced: hover in a /proc slot says so (${JSON.stringify(uTip)})`);
      uTip = await hoverText(u, 100, 0.7 * NS);
      check(/slot 0\.500 s . 1\.000 s \(slots: time per state only/.test(uTip) && /switches/.test(uTip),
            `untraced: hover in the tracer's slot as before (${JSON.stringify(uTip)})`);
      await u.close();
    }

    // Over `hearth serve`.
    const served = await serve(context, errors);
    check(served, "the page over hearth serve draws its lanes");
  } finally {
    await browser.close();
  }
  check(errors.length === 0, `no console errors, page errors or outside requests: ${errors.join(" | ")}`);
}

function serve(context, errors) {
  return new Promise((resolve, reject) => {
    const p = spawn(exe, ["serve", outDir, "--port", "0", "--quiet"], { stdio: ["ignore", "pipe", "inherit"] });
    let out = "";
    p.stdout.on("data", async (d) => {
      out += d;
      const m = out.match(/ at (http:\/\/127\.0\.0\.1:\d+\/)/);
      if (!m) return;
      try {
        const page = await context.newPage();
        page.on("pageerror", (e) => errors.push(`page error (served): ${e.message}`));
        await page.goto(m[1] + "timeline.html?r=1-2", { waitUntil: "load" });
        await page.waitForFunction(() => window.hearthTimeline, null, { timeout: 20000 });
        const v = await page.evaluate(() => window.hearthTimeline.view());
        const st = await page.evaluate(() => window.hearthTimeline.stats());
        resolve(v.from === NS_CONST && st.lanesDrawn === 5);
      } catch (e) {
        reject(e);
      } finally {
        p.kill("SIGINT");
      }
    });
    p.on("exit", (code) => { if (!/http/.test(out)) reject(new Error(`hearth serve exited (${code}): ${out}`)); });
  });
}
const NS_CONST = 1e9;

main().then(() => finish(), (e) => finish(e));

// The heatmap page (`hearth heatmap -o heat.html`, templates/heatmap*.js) in Chromium, on a
// synthetic recording whose threads are parked in known places at known times (written here):
// - a drag over cells draws the flamegraph of exactly that time range: its frames (titles,
//   geometry, colours) equal those `hearth flame` draws from `hearth heatmap --from --to`'s
//   folded stacks of the same range, at the same width;
// - reload restores the range, the moment and the colour mode from the URL;
// - keyboard: arrows, Shift+arrows, Enter, M, '.', Escape;
// - the moment view at 2.1 s shows exactly the known groups, waits first;
// - the colour modes and the thread filter recount the cells; a second (Shift-drag) range
//   gives a differential flamegraph; dark mode; the page over `hearth serve`.
// No timing is asserted; the timings are printed.
//
//   node heatmap.test.mjs HEARTH_EXE OUTDIR
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { chromium } from "playwright-core";
import { ACTION_TIMEOUT_MS, CHROMIUM, CHROMIUM_ARGS, check, die, finish, info, luminance, startServe } from "./lib.mjs";

const [exe, outDir] = process.argv.slice(2);
if (!exe || !outDir) die("usage: node heatmap.test.mjs HEARTH_EXE OUTDIR");
fs.mkdirSync(outDir, { recursive: true });

// ---- the recording: 4 s at 50 Hz, 12 threads ----
// main (R, two stacks in turn); worker-1..5: R/S in turn, from 2.0 s to 2.3 s waiting on a
// mutex (S, futex); io-1..3: S in epoll, from 2.0 s to 2.3 s blocked in fdatasync (D);
// cpu-1..3: R in one stack from start to end.
const STALL = [2.0, 2.3];
const STACKS = {
  tickA: "_start;main;app::tick()",
  tickB: "_start;main;app::tick();app::hash(std::string const&)",
  query: "start_thread;app::Pool::run();app::Query::execute()",
  idle: "start_thread;app::Pool::run();pthread_cond_wait;futex_wait_[k]",
  lock: "start_thread;app::Pool::run();app::Table::flush();pthread_mutex_lock;__lll_lock_wait;futex_wait_[k]",
  epoll: "start_thread;app::Io::loop();epoll_wait;ep_poll_[k]",
  fsync: "start_thread;app::Wal::sync();fdatasync;jbd2_log_wait_commit_[k]",
  crunch: "start_thread;app::Crunch::run();app::Crunch::step()",
};
const THREADS = [{ tid: 100, name: "main" }];
for (let i = 1; i <= 5; i++) THREADS.push({ tid: 100 + i, name: `worker-${i}` });
for (let i = 1; i <= 3; i++) THREADS.push({ tid: 105 + i, name: `io-${i}` });
for (let i = 1; i <= 3; i++) THREADS.push({ tid: 108 + i, name: `cpu-${i}` });

function want(th, r) {
  const t = r * 0.02;
  const stall = t >= STALL[0] - 1e-9 && t < STALL[1] - 1e-9;
  if (th.name === "main") return ["R", r % 2 ? STACKS.tickB : STACKS.tickA];
  if (th.name.startsWith("worker")) return stall ? ["S", STACKS.lock] : (r + th.tid) % 2 ? ["R", STACKS.query] : ["S", STACKS.idle];
  if (th.name.startsWith("io")) return stall ? ["D", STACKS.fsync] : ["S", STACKS.epoll];
  return ["R", STACKS.crunch];
}

function writeSamples(file) {
  const lines = ["# hearth samples 1\tpid=99\tname=parked\tmono_ns=5000000000\treal_ns=0"];
  const ids = new Map();
  const cur = new Map();
  const declared = new Set();
  const samples = [];  // [time_ns, root, state, frames]
  for (let r = 0; r < 200; r++) {
    const changes = [];
    for (const th of THREADS) {
      const [state, frames] = want(th, r);
      samples.push([r * 20000000, `[${th.name} tid=${th.tid}]`, state, frames]);
      const key = state + frames;
      if (cur.get(th.tid) === key) continue;
      cur.set(th.tid, key);
      if (!declared.has(th.tid)) {
        declared.add(th.tid);
        lines.push(`t\t${th.tid}\t99\t[${th.name} tid=${th.tid}]`);
      }
      if (!ids.has(frames)) {
        ids.set(frames, ids.size);
        lines.push(`s\t${ids.get(frames)}\t${frames}`);
      }
      changes.push(`${th.tid}\t${state}\t${ids.get(frames)}`);
    }
    lines.push(`r\t${r * 20000000}\t99\tcopied=${changes.length}\treused=${THREADS.length - changes.length}\tstopped=0\tstall_ns=0`);
    lines.push(...changes);
  }
  fs.writeFileSync(file, lines.join("\n") + "\n");
  return samples;
}

// A wide recording: 100 threads, each in its own one of 80 stacks every round (10 ms apart), so
// over 32,000 paths of one sample each: the flamegraph keeps `--max-frames`' 30,000 and breaks
// the ties at the cut as `hearth flame` does; 3,000+ frames: only those >= 1 px are elements.
function writeWide(file) {
  const lines = ["# hearth samples 1\tpid=7\tname=wide\tmono_ns=1000000000\treal_ns=0"];
  for (let s = 0; s < 80; s++) lines.push(`s\t${s}\tstart_thread;app::Pool::run();app::m${s % 7}::step${s}();app::leaf${s}_a();app::leaf${s}_b(int);app::leaf${s}_c()`);
  for (let t = 0; t < 100; t++) lines.push(`t\t${1000 + t}\t7\t[w-${t} tid=${1000 + t}]`);
  for (let r = 0; r < 80; r++) {
    lines.push(`r\t${r * 10000000}\t7\tcopied=100\treused=0\tstopped=0\tstall_ns=0`);
    for (let t = 0; t < 100; t++) lines.push(`${1000 + t}\tR\t${(r + t) % 80}`);
  }
  fs.writeFileSync(file, lines.join("\n") + "\n");
}
const wideFile = path.join(outDir, "wide.samples.txt");
writeWide(wideFile);
const widePage = path.join(outDir, "wide.html");
execFileSync(exe, ["heatmap", wideFile, "-o", widePage], { stdio: ["ignore", "ignore", "inherit"] });

const samplesFile = path.join(outDir, "parked.samples.txt");
const samples = writeSamples(samplesFile);
const page1 = path.join(outDir, "heat.html");
execFileSync(exe, ["heatmap", samplesFile, "-o", page1], { stdio: ["ignore", "ignore", "inherit"] });
// ASCII only (render/page/page_text.h): Chromium reads a page with no byte above 0x7f as 8-bit
// text, about twice as fast as one with a single character above it.
{
  const bytes = fs.readFileSync(page1);
  const at = bytes.findIndex((b) => b > 0x7f);
  check(at < 0, `the page is ASCII (first byte above 0x7f at ${at})`);
}

// The frame data of a flamegraph SVG file, and of the page's flamegraph (an inline <svg> in the
// shadow root of #flame, drawn by flame.js), with what its elements show.
function svgFrames(file) {
  const text = fs.readFileSync(file, "utf8");
  const m = /<metadata id="frames-data">([\s\S]*?)<\/metadata>/.exec(text);
  const d = JSON.parse(m[1]);
  const unescape = (s) => s.replace(/&lt;/g, "<").replace(/&gt;/g, ">").replace(/&quot;/g, '"').replace(/&amp;/g, "&");
  const frames = /<g id="frames">([\s\S]*?)\n<\/g>/.exec(text)[1];
  const elements = [];  // [title, x, y, width, fill, label, label x] of each frame element
  const re = /<g[^>]*><title>([^<]*)<\/title><rect x="([\d.]+)" y="([\d.]+)" width="([\d.]+)" height="[\d.]+" fill="([^"]+)"[^>]*\/>(?:<text x="([\d.]+)" y="[\d.]+">([^<]*)<\/text>)?<\/g>/g;
  for (const e of frames.matchAll(re)) {
    elements.push([unescape(e[1]), +e[2], +e[3], +e[4], e[5], e[7] === undefined ? "" : unescape(e[7]), e[6] === undefined ? null : +e[6]]);
  }
  return { titles: d.name.map((n, i) => d.strings[n] + d.strings[d.suffix[i]]), x: d.x, y: d.y, w: d.w,
           fills: d.fill.map((f) => d.fills[f]), width: /<svg[^>]* width="([\d.]+)"/.exec(text)[1], elements };
}
async function pageFrames(page) {
  await page.waitForFunction(() => {
    const root = document.getElementById("flame").shadowRoot;
    return root && root.querySelector("#frames g");
  }, null, { timeout: 10000 });
  return page.evaluate(() => {
    const root = document.getElementById("flame").shadowRoot;
    const svg = root.querySelector("svg");
    const d = window.hearthHeatmap.lastFlame().data;  // handed to flame.js as it is (FLAME_DOM.md)
    const els = Array.from(root.querySelectorAll("#frames > g"));
    // Frames painted on the canvas behind #frames (big graphs: those narrower than the data's
    // `paint` px, FLAME_DOM.md): what was painted, as rows like the elements', and for each of
    // the first 40 at least 2 px wide the canvas pixel at its middle.
    const painter = root.querySelector("foreignObject");
    const p = painter && painter.hearthPainted;
    const canvas = painter && painter.querySelector("canvas");
    const ratio = canvas ? canvas.width / parseFloat(painter.getAttribute("width")) : 1;
    const ctx = canvas && canvas.getContext("2d");
    const painted = [], pixels = [];
    for (let k = 0; p && k < p.frames.length; k++) {
      const i = p.frames[k];
      painted.push([d.strings[d.name[i]] + d.strings[d.suffix[i]], p.x[k], d.y[i], p.w[k], d.fills[d.fill[i]], "", null]);
      if (pixels.length < 40 && p.w[k] >= 2) {
        const px = ctx.getImageData(Math.floor((p.x[k] + p.w[k] / 2) * ratio), Math.floor((d.y[i] + d.h / 2) * ratio), 1, 1).data;
        pixels.push([d.fills[d.fill[i]], "#" + Array.from(px.slice(0, 3), (v) => v.toString(16).padStart(2, "0")).join("")]);
      }
    }
    return { painted, pixels, titles: Array.from(d.name, (n, i) => d.strings[n] + d.strings[d.suffix[i]]), x: Array.from(d.x), y: Array.from(d.y),
             w: Array.from(d.w), fills: Array.from(d.fill, (f) => d.fills[f]), width: svg.getAttribute("width"),
             elements: els.length, diff: svg.getAttribute("data-diff"),
             shown: els.map((g) => {
               const r = g.querySelector("rect");
               const t = g.querySelector("text");
               return [g.querySelector("title").textContent, +r.getAttribute("x"), +r.getAttribute("y"),
                       +r.getAttribute("width"), r.getAttribute("fill"), t ? t.textContent : "", t ? +t.getAttribute("x") : null];
             }),
             bg: getComputedStyle(root.getElementById("bg")).fill,
             hosts: document.querySelectorAll("iframe").length };
  });
}
// `hearth flame` of `hearth heatmap --from --to`'s folded stacks, at WIDTH.
function expectedFrames(from, to, state, width, tag, input = samplesFile) {
  const folded = path.join(outDir, `range-${tag}.folded`);
  const svg = path.join(outDir, `range-${tag}.svg`);
  execFileSync(exe, ["heatmap", input, "--from", from, "--to", to, "--state", state, "-o", folded],
    { stdio: ["ignore", "ignore", "inherit"] });
  // The page's graphs have a subtitle (the counts): so has this one, for the same geometry.
  execFileSync(exe, ["flame", folded, "--width", width, "--subtitle", "s", "-o", svg], { stdio: ["ignore", "ignore", "inherit"] });
  return svgFrames(svg);
}
function sameArrays(a, b) {
  return a.length === b.length && a.every((v, i) => v === b[i]);
}
// The page's URL parameter K (read in the page: replaceState reaches page.url() late).
async function param(page, k) {
  return page.evaluate((key) => new URLSearchParams(window.location.search).get(key), k);
}
async function cellCenter(page, col, row) {
  return page.evaluate(([c, r]) => {
    const h = window.hearthHeatmap;
    const [x, y] = h.cellRect(c * h.cells().rows + r);
    const box = document.getElementById("heat").getBoundingClientRect();
    const cells = h.cells();
    return { x: box.left + x + 2, y: box.top + y + 2, rows: cells.rows };
  }, [col, row]);
}
async function dragCells(page, a, b, shift) {
  const p = await cellCenter(page, a[0], a[1]);
  const q = await cellCenter(page, b[0], b[1]);
  if (shift) await page.keyboard.down("Shift");
  await page.mouse.move(p.x, p.y);
  await page.mouse.down();
  await page.mouse.move((p.x + q.x) / 2, (p.y + q.y) / 2, { steps: 3 });
  await page.mouse.move(q.x, q.y, { steps: 3 });
  await page.mouse.up();
  if (shift) await page.keyboard.up("Shift");
}

async function checkRangeFlame(page, label, tag, input) {
  const r = await param(page, "r");
  check(!!r, `${label}: the range is in the URL (r=${r})`);
  if (!r) return;
  const [from, to] = r.split("-");
  const state = await param(page, "c") || "R";  // the page's colour mode: the samples it counts
  const got = await pageFrames(page);
  const want = expectedFrames(from, to, state, got.width, tag, input);
  check(got.titles.length > 5 && sameArrays(got.titles, want.titles),
    `${label}: the range flamegraph's titles equal hearth flame's on the same samples (${state}, ${from}..${to} s: ${got.titles.length} vs ${want.titles.length} frames; first difference: ${JSON.stringify(got.titles.find((t, i) => t !== want.titles[i]))})`);
  check(sameArrays(got.x, want.x) && sameArrays(got.y, want.y) && sameArrays(got.w, want.w),
    `${label}: ... and its geometry (x, y, width of every frame at width ${got.width})`);
  check(sameArrays(got.fills, want.fills), `${label}: ... and its colours`);
  const same = (a, b) => a && b && a.length === b.length && a.every((v, i) => v === b[i]);
  // What is drawn: the elements and, in a big graph, the frames painted on the canvas instead
  // (no label fits them); together, the frames hearth flame's SVG has as elements (those at least
  // 1 px wide there), with the same titles, rects, fills and labels. By position (y, then x):
  // the painted frames are not in the elements' pre-order.
  const byPlace = (a, b) => a[2] - b[2] || a[1] - b[1];
  const drawn = got.shown.concat(got.painted).sort(byPlace);
  const wanted = want.elements.slice().sort(byPlace);
  const differ = drawn.findIndex((e, i) => !same(e, wanted[i]));
  check(drawn.length === wanted.length && differ < 0,
    `${label}: the frames drawn (${got.shown.length} elements, ${got.painted.length} painted) are those hearth flame's SVG has as elements (${wanted.length}), with its titles, rects, fills and labels (first difference: ${JSON.stringify([drawn[differ], wanted[differ]])})`);
  const badPixel = got.pixels.find(([fill, px]) => fill !== px);
  check(!badPixel, `${label}: the painted frames show their fills on the canvas (${got.pixels.length} looked at; ${JSON.stringify(badPixel)})`);
  check(got.painted.every((r) => !/^.{3}/.test(r[5])), `${label}: no painted frame would have a label`);
  check(got.hosts === 0, `${label}: drawn in the page (no iframe)`);
  const timing = await page.evaluate(() => window.hearthHeatmap.lastFlame().ms);
  info(`${label}: range -> flamegraph data in ${timing.toFixed(1)} ms`);
}

// A painted frame (no element) behaves as an element under the pointer: hovering it makes its
// element (its title, the details line), a click zooms to it.
async function checkPaintedHover(page) {
  const target = await page.evaluate(() => {
    const root = document.getElementById("flame").shadowRoot;
    const p = root.querySelector("foreignObject").hearthPainted;
    const d = window.hearthHeatmap.lastFlame().data;
    let k = 0;
    while (k < p.frames.length && p.w[k] < 3) k++;
    if (k === p.frames.length) return null;
    const i = p.frames[k];
    const svg = root.querySelector("svg");
    window.scrollBy(0, svg.getBoundingClientRect().top + d.y[i] - window.innerHeight / 2);  // on screen
    const box = svg.getBoundingClientRect();
    return { x: box.left + p.x[k] + p.w[k] / 2, y: box.top + d.y[i] + d.h / 2, title: d.strings[d.name[i]] + d.strings[d.suffix[i]] };
  });
  check(!!target, "wide: a painted frame at least 3 px wide");
  if (!target) return;
  await page.mouse.move(target.x, target.y);
  const hovered = await page.evaluate((t) => {
    const root = document.getElementById("flame").shadowRoot;
    const g = Array.from(root.querySelectorAll("#frames > g")).find((e) => e.querySelector("title").textContent === t);
    return { element: !!g, hover: !!g && g.matches(":hover"), details: root.getElementById("details").textContent };
  }, target.title);
  check(hovered.element && hovered.details === "Function: " + target.title,
    `wide: hovering a painted frame makes its element, with its title (${target.title}), and the details line (${hovered.details})`);
  await page.mouse.click(target.x, target.y);
  const zoomed = await page.evaluate(() => !document.getElementById("flame").shadowRoot.getElementById("unzoom").classList.contains("hide"));
  check(zoomed, "wide: a click on it zooms");
  await page.keyboard.press("Escape");
}

// flame.js's interactions in the page's graph, as in `hearth flame`: a click zooms (details line,
// Reset Zoom), keys move, zoom and reset when the graph has the focus, Ctrl+F searches; none of
// it reaches the page's URL or the heatmap's keys.
async function checkFlameInteractions(page, label) {
  const inFlame = (fn, arg) => page.evaluate(([f, a]) => {
    const root = document.getElementById("flame").shadowRoot;
    return new Function("root", "a", f)(root, a);
  }, [fn, arg]);
  const target = await inFlame(`
    const g = Array.from(root.querySelectorAll("#frames > g")).find((e) => /^app::Crunch::run\(\)/.test(e.querySelector("title").textContent));
    if (!g) return null;
    const b = g.querySelector("rect").getBoundingClientRect();
    return { x: b.left + 2, y: b.top + b.height / 2, title: g.querySelector("title").textContent };`);
  check(!!target, `${label}: the graph has app::Crunch::run()`);
  if (!target) return;
  const full = String(Math.round((parseFloat(await inFlame(`return root.querySelector("svg").getAttribute("width");`)) - 20) * 100) / 100);
  const zoomState = () => inFlame(`
    const g = Array.from(root.querySelectorAll("#frames > g")).find((e) => /^app::Crunch::run\(\)/.test(e.querySelector("title").textContent));
    return { unzoom: !root.getElementById("unzoom").classList.contains("hide"), width: g.querySelector("rect").getAttribute("width"),
             details: root.getElementById("details").textContent,
             focus: (root.querySelector("#frames g.focus > title") || {}).textContent || null,
             matched: root.getElementById("matched").textContent,
             searchFill: root.querySelectorAll('#frames rect[fill="rgb(230,0,230)"]').length };`);
  await page.mouse.click(target.x, target.y);
  let z = await zoomState();
  check(z.unzoom && z.width === full && z.details === "Function: " + target.title,
    `${label}: a click zooms to the frame (full width ${full}, Reset Zoom shown, details "${z.details}")`);
  check(await param(page, "x") === null && await param(page, "r") !== null, `${label}: the zoom stays out of the page's URL`);
  check(await page.evaluate(() => document.activeElement && document.activeElement.id) === "flame", `${label}: the click gives the graph the focus`);
  await page.keyboard.press("Escape");
  z = await zoomState();
  check(!z.unzoom && z.width !== full, `${label}: Escape resets the zoom`);
  await page.keyboard.press("ArrowDown");  // the first arrow focuses the root
  await page.keyboard.press("ArrowUp");    // its first child: up, in a flame graph
  z = await zoomState();
  check(!!z.focus, `${label}: arrows move the keyboard focus (${z.focus})`);
  const focused = z.focus;
  await page.keyboard.press("Enter");
  z = await zoomState();
  check(focused && z.unzoom && z.details === "Function: " + focused, `${label}: Enter zooms to the focused frame (${focused})`);
  await page.keyboard.press("Escape");
  page.once("dialog", (d) => d.accept("Crunch"));
  await page.keyboard.press("Control+f");
  z = await zoomState();
  check(/^Matched: \d/.test(z.matched) && z.searchFill > 0, `${label}: Ctrl+F searches (${z.matched}, ${z.searchFill} frames in the search colour)`);
  await page.keyboard.press("Escape");
  z = await zoomState();
  check(z.searchFill === 0 && !z.unzoom, `${label}: Escape resets the search`);
  // The heatmap's keys stay the heatmap's: an arrow there moves its cursor, not the graph's focus.
  await page.focus("#heat-wrap");
  const before = (await zoomState()).focus;
  await page.keyboard.press("ArrowDown");
  check((await zoomState()).focus === before, `${label}: keys on the heatmap do not reach the graph`);
}

function watch(page, origin, errors) {
  page.on("console", (m) => { if (m.type() === "error") errors.push(`console: ${m.text()}`); });
  page.on("pageerror", (e) => errors.push(`page error: ${e.message}`));
  page.on("request", (r) => {
    const u = r.url();
    if (!u.startsWith(origin) && !u.startsWith("about:")) errors.push(`request outside: ${u}`);
  });
}

async function main() {
  const browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS, headless: true });
  let server = null;
  try {
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    context.setDefaultTimeout(ACTION_TIMEOUT_MS);
    const url = pathToFileURL(path.resolve(page1)).href;
    const errors = [];
    const page = await context.newPage();
    watch(page, "file:", errors);
    const t0 = Date.now();
    await page.goto(url, { waitUntil: "load" });
    info(`page opened in ${Date.now() - t0} ms`);

    // The cells count every thread-sample.
    const cells = await page.evaluate(() => window.hearthHeatmap.cells());
    const sum = cells.totals.reduce((a, b) => a + b, 0);
    check(cells.rows === 50 && cells.columns === 4 && cells.rowNs === 20000000,
      `50 Hz for 4 s: 1 s columns of 20 ms rows (${cells.columns} x ${cells.rows}, ${cells.rowNs} ns)`);
    check(sum === samples.length, `the cells hold every thread-sample (${sum} of ${samples.length})`);
    const dCount = samples.filter((s) => s[2] === "D").length;
    check(cells.byClass[1].reduce((a, b) => a + b, 0) === dCount, `D counts: ${dCount}`);
    const cellOf = (t) => Math.floor(t / 20000000);
    const stallCell = cellOf(2.1e9);
    check(cells.byClass[1][stallCell] === 3 && cells.byClass[1][cellOf(1.9e9)] === 0,
      "the stall's cells hold the io threads' D samples, the cells before none");

    // A drag: the flamegraph of exactly that range.
    await dragCells(page, [1, 10], [2, 20], false);
    check(await param(page, "r") === "1.2-2.42", `a drag from (1 s, +200 ms) to (2 s, +400 ms) selects 1.2..2.42 s (r=${await param(page, "r")})`);
    await checkRangeFlame(page, "drag", "drag");
    await checkFlameInteractions(page, "drag");

    // The moment at 2.1 s: a click on its cell.
    const c = await cellCenter(page, 2, 5);
    await page.mouse.click(c.x, c.y);
    const m = await page.evaluate(() => window.hearthHeatmap.lastMoment());
    check(m && m.time_ns === 2.1e9 && m.threads === 12, `a click shows the moment of the sample nearest the cell (${m && m.time_ns} ns, ${m && m.threads} threads)`);
    if (m) {
      const got = m.groups.map((g) => `${g.threads} ${g.state} ${g.kind} ${g.leaf}`);
      const want = ["3 D blocked jbd2_log_wait_commit_[k]", "5 S lock futex_wait_[k]", "3 R running app::Crunch::step()",
                    "1 R running app::hash(std::string const&)"];
      check(sameArrays(got, want), `the moment's groups, waits first: ${JSON.stringify(got)}`);
      info(`moment view in ${m.ms.toFixed(1)} ms`);
    }
    const momentText = await page.locator("#moment").innerText();
    check(/5 threads waiting here/.test(momentText), "the moment says \"5 threads waiting here\"");
    check(/\[worker-1 tid=101\] \(tid 101\): S for 100 ms/.test(momentText), "a worker has waited for 100 ms (since 2.0 s)");
    check(/\[cpu-1 tid=109\] \(tid 109\): R for ≥ 2\.1 s \(since its first sample\)/.test(momentText),
      "a thread unchanged since the start says so");
    check(await param(page, "m") === "2.1", `the moment is in the URL (m=${await param(page, "m")})`);

    // Colour mode and reload: the URL restores range, moment and mode.
    await page.check("input[name=mode][value=D]");
    check(await param(page, "c") === "D", "the colour mode is in the URL (c=D)");
    await page.reload({ waitUntil: "load" });
    const restored = await page.evaluate(() => ({
      mode: document.querySelector("input[name=mode]:checked").value,
      moment: window.hearthHeatmap.lastMoment() && window.hearthHeatmap.lastMoment().time_ns,
      flame: window.hearthHeatmap.lastFlame(),
    }));
    check(restored.mode === "D" && restored.moment === 2.1e9 && restored.flame && restored.flame.frames > 0,
      `reload restores mode, moment and range (${JSON.stringify({ mode: restored.mode, moment: restored.moment })})`);
    const dFlame = await pageFrames(page);
    const [dFrom, dTo] = (await param(page, "r")).split("-").map((v) => Math.round(parseFloat(v) * 1e9));
    check(dFlame.titles[0] === `all (${samples.filter((s) => s[2] === "D" && s[0] >= dFrom && s[0] < dTo).length} samples, 100%)`,
      `in mode D the flamegraph counts only D samples (${dFlame.titles[0]})`);
    await checkRangeFlame(page, "mode D", "blocked");
    await page.check("input[name=mode][value=all]");
    await checkRangeFlame(page, "all samples", "all");
    // The fourth graph of this page: the earlier ones' listeners are gone (one key, one action).
    await checkFlameInteractions(page, "fourth graph");

    // A second range (Shift-drag): a differential flamegraph against it.
    await dragCells(page, [0, 10], [1, 0], true);
    check(await param(page, "b") === "0.2-1.02", `Shift-drag selects the baseline (b=${await param(page, "b")})`);
    const diff = await pageFrames(page);
    check(diff.diff === "new" && diff.titles.every((t) => / pp(; only in NEW)?\)$/.test(t)),
      "two ranges: a differential flamegraph (data-diff=new, titles with pp)");
    const flushAt = diff.titles.findIndex((t) => t.startsWith("app::Table::flush() "));
    check(flushAt >= 0 && /only in NEW/.test(diff.titles[flushAt]) && parseInt(diff.fills[flushAt].slice(1, 3), 16) > parseInt(diff.fills[flushAt].slice(5, 7), 16),
      `the stall's lock path is new and red (${diff.titles[flushAt]} ${diff.fills[flushAt]})`);

    // Keyboard, on a fresh page.
    await page.goto(url, { waitUntil: "load" });
    await page.focus("#heat-wrap");
    await page.keyboard.press("ArrowRight");
    for (let i = 0; i < 10; i++) await page.keyboard.press("ArrowDown");
    for (let i = 0; i < 4; i++) await page.keyboard.press("Shift+ArrowDown");
    await page.keyboard.press("Enter");
    check(await param(page, "r") === "1.2-1.3", `Shift+arrows then Enter select 1.2..1.3 s (r=${await param(page, "r")})`);
    await checkRangeFlame(page, "keyboard", "keys");
    await page.focus("#heat-wrap");
    await page.keyboard.press("m");
    const mk = await param(page, "m");
    await page.keyboard.press(".");
    check(mk === "1.28" && await param(page, "m") === "1.3", `M shows the moment at the cursor, '.' the next sample (m=${mk}, then ${await param(page, "m")})`);
    await page.keyboard.press("Escape");
    check(await param(page, "r") === null && await page.locator("#flame").isHidden(), "Escape clears the range");

    // The thread filter.
    await page.fill("#filter", "io-");
    await page.waitForFunction(() => /3 of 12 threads/.test(document.getElementById("filter-note").textContent), null, { timeout: 5000 });
    const io = await page.evaluate(() => window.hearthHeatmap.cells().totals.reduce((a, b) => a + b, 0));
    check(io === 600 && await param(page, "t") === "io-", `the filter keeps the io threads' 600 samples (${io}, t=${await param(page, "t")})`);

    // Dark mode.
    await page.goto(url + "?r=1.2-2.42", { waitUntil: "load" });
    await page.emulateMedia({ colorScheme: "dark" });
    // The page redraws its canvas on the media query's change event, which a loaded machine
    // delivers some frames later: wait for the canvas to turn dark (the check below says if not).
    await page.waitForFunction(() => {
      const d = document.getElementById("heat").getContext("2d").getImageData(2, 2, 1, 1).data;
      return d[0] + d[1] + d[2] < 3 * 80;
    }, null, { timeout: 10000, polling: 50 }).catch(() => {});
    const bodyBg = await page.evaluate(() => getComputedStyle(document.body).backgroundColor);
    const canvasBg = await page.evaluate(() => {
      const c = document.getElementById("heat");
      const d = c.getContext("2d").getImageData(2, 2, 1, 1).data;
      return `rgb(${d[0]}, ${d[1]}, ${d[2]})`;
    });
    const flameBg = (await pageFrames(page)).bg;
    check(luminance(bodyBg) < 0.1 && luminance(canvasBg) < 0.1, `dark mode: page and heatmap dark (${bodyBg}, ${canvasBg})`);
    check(luminance(flameBg) < 0.1, `dark mode: the flamegraph too (${flameBg})`);
    check(errors.length === 0, `file://: no console errors, page errors or requests: ${errors.join(" | ")}`);

    // The wide recording: the cut at 30,000 frames, lazy elements.
    await page.goto(pathToFileURL(path.resolve(widePage)).href + "?r=0-0.8", { waitUntil: "load" });
    const wide = await pageFrames(page);
    check(wide.titles.length === 30000 && wide.elements < wide.titles.length && wide.painted.length > 100,
      `wide: 30,000 frames kept, ${wide.elements} of them elements, ${wide.painted.length} painted on the canvas`);
    await checkRangeFlame(page, "wide", "wide", wideFile);
    await checkPaintedHover(page);

    // Through `hearth serve`.
    const s = await startServe(exe, [outDir]);
    server = s.proc;
    const served = await context.newPage();
    const httpErrors = [];
    watch(served, s.url.replace(/\/$/, ""), httpErrors);
    await served.emulateMedia({ colorScheme: "light" });
    await served.goto(new URL("heat.html", s.url).href, { waitUntil: "load" });
    await dragCells(served, [3, 0], [3, 49], false);
    await checkRangeFlame(served, "http", "http");
    check(httpErrors.length === 0, `http: no console errors, page errors or outside requests: ${httpErrors.join(" | ")}`);
  } finally {
    await browser.close();
    if (server) server.kill("SIGINT");
  }
}

main().then(() => finish(), (e) => finish(e));

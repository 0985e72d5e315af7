// Browser benchmark of flamegraph SVGs: how long headless Chromium takes to show them and to
// react to zoom, Reset Zoom and search, for hearth's SVG and its peers' SVGs of the same input.
// Information only: the exit status says whether the benchmark ran, never whether a goal was met.
// Usually run through browser_bench.sh, which makes the inputs and the SVGs.
//
// usage: node tests/bench/browser_bench.mjs [--runs N] [--search REGEX] [--depth D | --frame TITLE]
//            [--settle MS] [--json FILE] --input NAME TOOL=FILE.svg [TOOL=FILE.svg ...]
//            [--input NAME TOOL=FILE.svg ...]
//
// TOOL is a label: "hearth", "flamegraph.pl" and "inferno" get ratios and the issue's figures;
// the first SVG of an input is the one the zoom target is chosen from (see chooseTarget).
// Every run opens each SVG in a fresh browser context (new page, new renderer, empty caches)
// and measures, in this order, with a pause of --settle ms (default 300) between steps:
//  1. first complete paint: from navigation start (performance.timeOrigin of the SVG document)
//     until (a) the window load event has fired, (b) every timer of <= 100 ms that the page's
//     own scripts set before that has run (inferno re-fits all labels in a setTimeout(0) from
//     its onload handler), then (c) two requestAnimationFrame callbacks have run: the second
//     one starts only once the frame begun by the first (style, layout, paint) is done. The
//     load event alone (navigation timing loadEventEnd) is printed below it.
//  2. zoom: performance.now() before dispatching a bubbling click on the target frame's <rect>
//     until the second requestAnimationFrame callback after the click handler returned; the
//     handler's own (synchronous) time is printed below it. Checked: the target is then as
//     wide as the root frame.
//  3. unzoom: the same for a click on #unzoom ("Reset Zoom"). Checked: the target is back to
//     its width before the zoom.
//  4. search: a click on #search opens window.prompt, answered through playwright's
//     page.on("dialog") with --search REGEX; measured from prompt() returning the term (a
//     wrapper around window.prompt takes the time) until the second requestAnimationFrame;
//     the dialog round trip through the DevTools protocol (click to prompt() returning) is
//     printed below it. #matched ("Matched: N%") is shown per tool as a cross-check.
// Each figure is the median over the runs. Runs alternate the order of the tools.
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const here = path.dirname(fileURLToPath(import.meta.url));
const PLAYWRIGHT = process.env.HEARTH_PLAYWRIGHT ||
  path.join(here, "..", "browser", "node_modules", "playwright-core", "index.mjs");
const CHROMIUM = process.env.HEARTH_CHROMIUM || "/usr/bin/chromium";
// shared/ENVIRONMENT.md: without the background-networking flags Chromium floods the closed
// network with connection attempts.
const CHROMIUM_ARGS = [
  "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
  "--disable-background-networking", "--disable-component-update", "--disable-sync",
];
// The issue's figures (#14, item 3: 10k stacks, quiet machine, medians of 3), in ms, quoted
// next to ours.
const ISSUE = {
  paint: { hearth: 3200, "flamegraph.pl": 3400, inferno: 4500 },
  zoom: { hearth: 270, "flamegraph.pl": 5300, inferno: 690 },
};

function die(msg) {
  console.error(`browser_bench: ${msg}`);
  process.exit(2);
}

function parseArgs(argv) {
  const o = { runs: 5, search: "Session|Table", frame: null, depth: null, settle: 300, json: null, inputs: [] };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    const val = () => {
      if (i + 1 >= argv.length) die(`${a} needs a value`);
      return argv[++i];
    };
    if (a === "--runs") o.runs = Number(val());
    else if (a === "--search") o.search = val();
    else if (a === "--frame") o.frame = val();
    else if (a === "--depth") o.depth = Number(val());
    else if (a === "--settle") o.settle = Number(val());
    else if (a === "--json") o.json = val();
    else if (a === "--input") o.inputs.push({ name: val(), svgs: [] });
    else if (/^[^=]+=./.test(a) && o.inputs.length) {
      const k = a.indexOf("=");
      o.inputs[o.inputs.length - 1].svgs.push({ tool: a.slice(0, k), file: path.resolve(a.slice(k + 1)) });
    } else if (a === "-h" || a === "--help") {
      console.error(fs.readFileSync(fileURLToPath(import.meta.url), "utf8").split("\n").slice(5, 8)
        .map((l) => l.replace(/^\/\/ ?/, "")).join("\n"));
      process.exit(2);
    } else die(`unknown argument '${a}' (--help)`);
  }
  if (!Number.isInteger(o.runs) || o.runs < 1) die("--runs needs a positive integer");
  if (o.depth !== null && !(Number.isInteger(o.depth) && o.depth >= 1)) die("--depth needs a positive integer");
  if (!Number.isFinite(o.settle) || o.settle < 0) die("--settle needs a number of ms");
  if (!o.inputs.length) die("no --input NAME TOOL=FILE.svg given");
  for (const inp of o.inputs) {
    if (!inp.svgs.length) die(`--input ${inp.name} has no TOOL=FILE.svg`);
    for (const s of inp.svgs) if (!fs.existsSync(s.file)) die(`no such file: ${s.file}`);
  }
  try {
    new RegExp(o.search);
  } catch (e) {
    die(`--search: ${e.message}`);
  }
  return o;
}

const median = (a) => {
  const s = a.filter((v) => Number.isFinite(v)).sort((p, q) => p - q);
  if (!s.length) return NaN;
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

// ---- in the page ----

// Installed before any of the SVG's own scripts (addInitScript): notes the load event, counts
// the page's pending short timers, and resolves window.__hb.done at the first complete paint.
function initScript() {
  const hb = { load: null, painted: null, pending: 0, loadSeen: false, finishing: false };
  window.__hb = hb;
  let resolve;
  hb.done = new Promise((r) => (resolve = r));
  const setT = window.setTimeout;
  const clearT = window.clearTimeout;
  const ids = new Set();
  const maybeFinish = () => {
    if (!hb.loadSeen || hb.pending > 0 || hb.finishing) return;
    hb.finishing = true;
    requestAnimationFrame(() => requestAnimationFrame(() => {
      hb.painted = performance.now();
      resolve(hb.painted);
    }));
  };
  window.setTimeout = function (fn, delay, ...rest) {
    if (hb.finishing || typeof fn !== "function" || (Number(delay) || 0) > 100) {
      return setT.call(window, fn, delay, ...rest);
    }
    hb.pending++;
    const id = setT.call(window, function () {
      ids.delete(id);
      hb.pending--;
      try {
        return fn.apply(this, rest);
      } finally {
        maybeFinish();
      }
    }, delay);
    ids.add(id);
    return id;
  };
  window.clearTimeout = function (id) {
    if (ids.delete(id)) {
      hb.pending--;
      maybeFinish();
    }
    return clearT.call(window, id);
  };
  window.addEventListener("load", () => {
    hb.loadSeen = true;
    hb.load = performance.now();
    maybeFinish();
  });
}

// Every frame of the graph: [title, x, y, width] of its <rect>, in user units. Frames are the
// elements under #frames that hold a <title> and a <rect> (hearth's #threads legend is outside),
// or, in hearth's SVG, every frame of #frames-data (templates/FLAME_DOM.md), elements or not.
function listFramesInPage() {
  const frames = document.getElementById("frames");
  const out = [];
  if (!frames) return JSON.stringify(out);
  const dataEl = document.getElementById("frames-data");
  if (dataEl) {
    const d = JSON.parse(dataEl.textContent);
    for (let i = 0; i < d.x.length; i++) {
      out.push([d.strings[d.name[i]] + d.strings[d.suffix[i]], d.x[i], d.y[i], d.w[i]]);
    }
    return JSON.stringify(out);
  }
  for (const t of frames.querySelectorAll("title")) {
    const g = t.parentElement;
    let r = null;
    for (const c of g.children) if (c.localName === "rect") r = c;
    if (!r) continue;
    const b = r.getBBox();
    out.push([t.textContent, b.x, b.y, b.width]);
  }
  return JSON.stringify(out);
}

async function clickInPage({ what, title }) {
  const raf2 = () => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)));
  const frames = document.getElementById("frames");
  const rectOf = (pred) => {
    for (const t of frames.querySelectorAll("title")) {
      if (!pred(t.textContent)) continue;
      for (const c of t.parentElement.children) if (c.localName === "rect") return c;
    }
    return null;
  };
  const target = rectOf((s) => s === title);
  const root = rectOf((s) => s.startsWith("all ("));
  const el = what === "zoom" ? target : document.getElementById("unzoom");
  if (!target || !root || !el) return { error: `no ${!target ? "target frame" : !root ? "root frame" : "#unzoom"}` };
  const before = target.getBoundingClientRect().width;
  const t0 = performance.now();
  el.dispatchEvent(new MouseEvent("click", { bubbles: true, cancelable: true, view: window }));
  const t1 = performance.now();
  await raf2();
  const t2 = performance.now();
  return {
    handler: t1 - t0,
    painted: t2 - t0,
    before,
    after: target.getBoundingClientRect().width,
    root: root.getBoundingClientRect().width,
  };
}

async function searchInPage() {
  const raf2 = () => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)));
  const btn = document.getElementById("search");
  if (!btn) return { error: "no #search" };
  const real = window.prompt;
  let back = NaN;
  window.prompt = function () {
    const r = real.apply(window, arguments);
    back = performance.now();
    return r;
  };
  try {
    const t0 = performance.now();
    btn.dispatchEvent(new MouseEvent("click", { bubbles: true, cancelable: true, view: window }));
    const t1 = performance.now();
    await raf2();
    const t2 = performance.now();
    const m = document.getElementById("matched");
    return {
      prompted: Number.isFinite(back),
      dialog: back - t0,
      handler: t1 - back,
      painted: t2 - back,
      matched: m ? m.textContent.trim() : "",
    };
  } finally {
    window.prompt = real;
  }
}

// ---- choosing the zoom target ----

// A mid-depth frame that a reader would click: take the frames of the first SVG that are wide
// enough to carry a label (>= 3 characters at the default 12 px font, 0.59 em per character:
// 21.24 px), and their median depth, counted from the root ("all") by y; at that depth, the
// frame with the most frames below it whose title occurs exactly once in every SVG of the input
// (so each tool zooms into the same frame). --depth D picks the depth instead, --frame TITLE
// the frame.
const LABEL_MIN_WIDTH = 3 * 12 * 0.59;

function chooseTarget(lists, forced, forcedDepth) {
  const counts = lists.map((l) => {
    const m = new Map();
    for (const f of l) m.set(f[0], (m.get(f[0]) || 0) + 1);
    return m;
  });
  const unique = (t) => counts.every((m) => m.get(t) === 1);
  const ref = lists[0];
  const root = ref.find((f) => f[0].startsWith("all (")) || ref.reduce((a, b) => (b[3] > a[3] ? b : a));
  let fh = Infinity;
  for (const f of ref) {
    const d = Math.abs(f[2] - root[2]);
    if (d > 0.5 && d < fh) fh = d;
  }
  const fr = ref.map(([title, x, y, w]) => ({ title, x, w, depth: Math.round(Math.abs(y - root[2]) / fh) }));
  const maxDepth = Math.max(...fr.map((f) => f.depth));
  const below = (f) => fr.filter((g) => g.depth > f.depth && g.x >= f.x - 0.01 && g.x < f.x + f.w - 0.01).length;
  const describe = (f, why) => ({ title: f.title, depth: f.depth, maxDepth, below: below(f), share: f.w / root[3], why });
  if (forced) {
    const f = fr.find((g) => g.title === forced);
    if (!f) die(`--frame: no frame titled ${JSON.stringify(forced)} in the first SVG`);
    if (!unique(forced)) die(`--frame: ${JSON.stringify(forced)} is not exactly once in every SVG`);
    return describe(f, "--frame");
  }
  let mid = forcedDepth;
  let why = `--depth ${forcedDepth}`;
  if (mid === null) {
    const depths = fr.filter((f) => f.w >= LABEL_MIN_WIDTH).map((f) => f.depth).sort((a, b) => a - b);
    mid = depths[depths.length >> 1];
    why = `median depth of the ${depths.length} labelled frames`;
  }
  const deeper = fr.filter((f) => f.depth > mid).map((f) => f.x).sort((a, b) => a - b);
  const lowerBound = (v) => {
    let lo = 0, hi = deeper.length;
    while (lo < hi) {
      const m = (lo + hi) >> 1;
      if (deeper[m] < v) lo = m + 1;
      else hi = m;
    }
    return lo;
  };
  const cands = fr.filter((f) => f.depth === mid && unique(f.title))
    .map((f) => ({ f, below: lowerBound(f.x + f.w - 0.01) - lowerBound(f.x - 0.01) }))
    .sort((a, b) => b.below - a.below || a.f.x - b.f.x);
  if (!cands.length) die(`no frame at depth ${mid} has a title unique in every SVG; use --frame TITLE`);
  return describe(cands[0].f, `${why}; most frames below; title unique in every SVG`);
}

// ---- driving the browser ----

async function openSvg(browser, file, viewport, onDialog) {
  const context = await browser.newContext({ viewport });
  await context.addInitScript(initScript);
  const page = await context.newPage();
  const errors = [];
  page.on("pageerror", (e) => errors.push(e.message));
  page.on("dialog", (d) => onDialog(d));
  return { context, page, errors };
}

async function measureOnce(browser, svg, target, opts, viewport) {
  let answered = 0;
  const onDialog = async (d) => {
    answered++;
    if (d.type() === "prompt") await d.accept(opts.search);
    else await d.dismiss();
  };
  const { context, page, errors } = await openSvg(browser, svg.file, viewport, onDialog);
  const r = { notes: [] };
  try {
    await page.goto(pathToFileURL(svg.file).href, { waitUntil: "load", timeout: 600000 });
    const p = await page.evaluate(async () => {
      await window.__hb.done;
      const nav = performance.getEntriesByType("navigation")[0];
      return { painted: window.__hb.painted, load: nav ? nav.loadEventEnd : window.__hb.load };
    });
    r.paint = p.painted;
    r.load = p.load;

    await sleep(opts.settle);
    const z = await page.evaluate(clickInPage, { what: "zoom", title: target.title });
    if (z.error) throw new Error(`zoom: ${z.error}`);
    r.zoom = z.painted;
    r.zoomHandler = z.handler;
    r.widthBefore = z.before;
    if (!(z.after >= 0.98 * z.root)) r.notes.push(`zoom: target ${z.after.toFixed(1)} px wide, root ${z.root.toFixed(1)} px`);

    await sleep(opts.settle);
    const u = await page.evaluate(clickInPage, { what: "unzoom", title: target.title });
    if (u.error) throw new Error(`unzoom: ${u.error}`);
    r.unzoom = u.painted;
    r.unzoomHandler = u.handler;
    if (Math.abs(u.after - z.before) > Math.max(1, 0.02 * z.before)) {
      r.notes.push(`unzoom: target ${u.after.toFixed(1)} px wide, was ${z.before.toFixed(1)} px`);
    }

    await sleep(opts.settle);
    const s = await page.evaluate(searchInPage);
    if (s.error) throw new Error(`search: ${s.error}`);
    if (!s.prompted || !answered) r.notes.push("search: no prompt");
    r.search = s.painted;
    r.searchDialog = s.dialog;
    r.matched = s.matched;
  } catch (e) {
    r.error = String(e && e.message ? e.message : e).split("\n")[0];
  } finally {
    if (errors.length) r.notes.push(`page errors: ${errors.slice(0, 3).join(" | ")}`);
    await context.close();
  }
  return r;
}

// Frames and height of one SVG, read in its own context.
async function inspect(browser, svg) {
  const { context, page } = await openSvg(browser, svg.file, { width: 1280, height: 900 }, (d) => d.dismiss());
  try {
    await page.goto(pathToFileURL(svg.file).href, { waitUntil: "load", timeout: 600000 });
    await page.evaluate(() => window.__hb.done);
    const frames = JSON.parse(await page.evaluate(listFramesInPage));
    const height = await page.evaluate(() => document.documentElement.getBoundingClientRect().height);
    return { frames, height };
  } finally {
    await context.close();
  }
}

// ---- report ----

const ms = (v) => (Number.isFinite(v) ? v.toFixed(0) : "-");
const ratio = (a, b) => (Number.isFinite(a) && Number.isFinite(b) && b > 0 ? (a / b).toFixed(3) : "-");
const pad = (s, n) => String(s).padStart(n);
const padEnd = (s, n) => String(s).padEnd(n);
const clip = (s, n) => ([...s].length > n ? [...s].slice(0, n - 1).join("") + "\u2026" : s);

function report(inp, target, info, res, opts) {
  const tools = inp.svgs.map((s) => s.tool);
  const med = {};
  for (const t of tools) {
    med[t] = {};
    for (const k of ["paint", "load", "zoom", "zoomHandler", "unzoom", "unzoomHandler", "search", "searchDialog"]) {
      med[t][k] = median(res[t].map((r) => r[k]));
    }
  }
  const peers = tools.filter((t) => t !== "hearth");
  const hasHearth = tools.includes("hearth");
  console.log("");
  console.log(`== ${inp.name}`);
  for (const s of inp.svgs) {
    console.log(`  ${padEnd(s.tool, 14)} ${(fs.statSync(s.file).size / 1e6).toFixed(2)} MB, ` +
      `${info[s.tool].frames.length.toLocaleString("en-US")} frames  ${s.file}`);
  }
  const name = target.title.slice(0, target.title.lastIndexOf(" (")) || target.title;
  console.log(`  zoom target: ${JSON.stringify(clip(name, 90))}`);
  console.log(`    depth ${target.depth} of ${target.maxDepth}, ${target.below.toLocaleString("en-US")} frames below, ` +
    `${(100 * target.share).toFixed(2)}% of the width (${target.why})`);
  console.log(`  search: /${opts.search}/ -> ` +
    tools.map((t) => `${t} "${(res[t].find((r) => r.matched) || {}).matched || "-"}"`).join(", "));
  console.log("");
  const w0 = 34;
  const head = [padEnd(`median of ${opts.runs} runs, ms`, w0), ...tools.map((t) => pad(t, 14))];
  if (hasHearth) for (const p of peers) head.push(pad(`hearth/${p === "flamegraph.pl" ? "fg.pl" : p}`, 15));
  head.push("  issue (this machine kind)");
  console.log(head.join(""));
  console.log("-".repeat(head.join("").length));
  const row = (label, k, issueKey) => {
    const cells = [padEnd(label, w0), ...tools.map((t) => pad(ms(med[t][k]), 14))];
    if (hasHearth) for (const p of peers) cells.push(pad(ratio(med.hearth[k], med[p][k]), 15));
    if (issueKey) {
      cells.push("  " + Object.entries(ISSUE[issueKey]).map(([t, v]) => `${t} ${(v / 1000).toFixed(1)} s`).join(", "));
    }
    console.log(cells.join(""));
  };
  row("first complete paint", "paint", "paint");
  row("  of which: load event", "load");
  row("zoom: click -> painted", "zoom", "zoom");
  row("  of which: click handler", "zoomHandler");
  row("unzoom (Reset Zoom) -> painted", "unzoom");
  row("  of which: click handler", "unzoomHandler");
  row("search: prompt answer -> painted", "search");
  row("  (dialog round trip, not in it)", "searchDialog");

  for (const t of tools) {
    const bad = res[t].filter((r) => r.error || r.notes.length);
    for (const r of bad) console.log(`  ${t}: ${[r.error, ...r.notes].filter(Boolean).join("; ")}`);
  }

  // Goals from the issue, next to the figures: information, never a verdict on the build.
  if (!hasHearth) return med;
  const h = med.hearth;
  const verdict = (ok) => (ok ? "met" : "MISSED");
  console.log("");
  console.log("  goal \"first complete paint <= half of flamegraph.pl's\" (information only):");
  if (med["flamegraph.pl"]) {
    const f = med["flamegraph.pl"].paint;
    console.log(`    vs flamegraph.pl in this run:  ${ms(h.paint)} ms vs ${ms(f)} ms, ` +
      `hearth/fg.pl ${ratio(h.paint, f)} (<= 0.5)  ${verdict(h.paint <= 0.5 * f)}`);
  } else {
    console.log("    vs flamegraph.pl in this run:  not run (no flamegraph.pl SVG)");
  }
  console.log("  goal \"zoom repaint <= half of inferno's\" (information only):");
  if (med.inferno) {
    console.log(`    vs inferno in this run:  ${ms(h.zoom)} ms vs ${ms(med.inferno.zoom)} ms, ` +
      `hearth/inferno ${ratio(h.zoom, med.inferno.zoom)} (<= 0.5)  ${verdict(h.zoom <= 0.5 * med.inferno.zoom)}`);
  } else {
    console.log("    vs inferno in this run:  not run (no inferno SVG)");
  }
  console.log(`    vs the issue's inferno figure (${(ISSUE.zoom.inferno / 1000).toFixed(2)} s): ${ms(h.zoom)} ms (<= ${ISSUE.zoom.inferno / 2} ms)  ${verdict(h.zoom <= ISSUE.zoom.inferno / 2)}`);
  const fg = med["flamegraph.pl"];
  const issueRatio = ISSUE.zoom.inferno / ISSUE.zoom["flamegraph.pl"];
  if (fg && med.inferno) {
    console.log(`    (inferno / flamegraph.pl zoom: ${ratio(med.inferno.zoom, fg.zoom)} in this run, ` +
      `${issueRatio.toFixed(4)} in the issue's figures)`);
  } else if (fg) {
    // No inferno here: estimate its zoom from flamegraph.pl's in this run and the issue's ratio.
    const lim = 0.5 * issueRatio;
    console.log(`    estimated via flamegraph.pl in this run (issue: inferno = ${issueRatio.toFixed(4)} x ` +
      `flamegraph.pl): hearth/fg.pl ${ratio(h.zoom, fg.zoom)} (<= ${lim.toFixed(4)})  ${verdict(h.zoom <= lim * fg.zoom)}`);
  }
  return med;
}

// ---- main ----

async function main() {
  const opts = parseArgs(process.argv.slice(2));
  if (!fs.existsSync(CHROMIUM)) die(`${CHROMIUM} not found: apt-get install chromium, or set HEARTH_CHROMIUM`);
  if (!fs.existsSync(PLAYWRIGHT)) {
    die(`${PLAYWRIGHT} not found: run tests/browser/run.sh once (npm ci), or set HEARTH_PLAYWRIGHT`);
  }
  const { chromium } = await import(pathToFileURL(PLAYWRIGHT).href);
  const browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS, headless: true });
  const out = { chromium: browser.version(), runs: opts.runs, search: opts.search, inputs: [] };
  try {
    console.error(`browser_bench: Chromium ${browser.version()}, ${opts.runs} runs`);
    for (const inp of opts.inputs) {
      const info = {};
      for (const s of inp.svgs) info[s.tool] = await inspect(browser, s);
      const target = chooseTarget(inp.svgs.map((s) => info[s.tool].frames), opts.frame, opts.depth);
      // Tall enough to show every SVG whole, so "complete paint" paints all of it.
      const viewport = { width: 1280, height: Math.max(900, ...inp.svgs.map((s) => Math.ceil(info[s.tool].height) + 20)) };
      const res = Object.fromEntries(inp.svgs.map((s) => [s.tool, []]));
      for (let run = 0; run < opts.runs; run++) {
        const order = inp.svgs.map((_, i) => inp.svgs[(i + run) % inp.svgs.length]);
        for (const s of order) {
          const r = await measureOnce(browser, s, target, opts, viewport);
          res[s.tool].push(r);
          console.error(`browser_bench: ${inp.name} run ${run + 1}/${opts.runs} ${s.tool}: ` +
            (r.error ? `ERROR ${r.error}` : `paint ${ms(r.paint)}, zoom ${ms(r.zoom)}, unzoom ${ms(r.unzoom)}, search ${ms(r.search)} ms`));
        }
      }
      const med = report(inp, target, info, res, opts);
      out.inputs.push({
        name: inp.name, viewport, target,
        svgs: inp.svgs.map((s) => ({ ...s, bytes: fs.statSync(s.file).size, frames: info[s.tool].frames.length })),
        runs: res, medians: med,
      });
    }
  } finally {
    await browser.close();
  }
  if (opts.json) fs.writeFileSync(opts.json, JSON.stringify(out, null, 1) + "\n");
  console.log("");
  console.log("Ratios are hearth's time / the peer's (below 1: hearth is faster). Information only.");
}

main().catch((e) => {
  console.error(`browser_bench: ${e && e.stack ? e.stack : e}`);
  process.exit(1);
});

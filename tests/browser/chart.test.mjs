// Headless-browser test of the scheduler charts script and style (templates/chart.js, chart.css)
// on real `hearth chart` output: node chart.test.mjs FILE.svg [--grouped] (run.sh --chart wraps
// it). The SVG↔script contract is render/charts/bars.h: section N's ids start "sN-"; texts
// sN-title, sN-details (hover line), sN-toggle (the %/ms switch, hidden until the script shows
// it); layers sN-grid, sN-bars, sN-legend; in a two-view section every grid line and segment
// <g> carries data-ms="X W" (its time geometry) while the rect's own x/width are the % view;
// axis labels have classes "sN pct" / "sN ms" and the other view's are "hide".
// Checked against the SVG's own numbers (durations and shares in the tooltips, axis ticks),
// never against the script's: hover, the % / ms switch, the runnable tooltip's preemptors
// (against the Preemptors section), pooled threads with --grouped, dark mode. No timed asserts.
import { check, near, info, text, runTest, checkSource, contrast, luminance } from "./lib.mjs";

const svgPath = process.argv[2];
const grouped = process.argv.includes("--grouped");
const UNIT = { ns: 1, "µs": 1e3, ms: 1e6, s: 1e9 };
const DUR = "([0-9]+(?:\\.[0-9]+)?) (ns|µs|ms|s)(?=[ ,)]|$)";

// The first "D unit (P%" of a tooltip: the segment's time and its share of the bar.
function durationOf(title) {
  const m = new RegExp(` ${DUR}(?: \\(([0-9.]+)%)?`).exec(title);
  if (!m) return null;
  const decimals = (m[1].split(".")[1] || "").length;
  return { ns: parseFloat(m[1]) * UNIT[m[2]], ulp: 0.5 * 10 ** -decimals * UNIT[m[2]], pct: m[3] ? parseFloat(m[3]) : null };
}

// Everything the checks need from the page, read in one go.
async function readSections(page) {
  return page.evaluate(() => {
    const svg = document.documentElement;
    const n = parseInt(svg.getAttribute("data-sections"), 10);
    const shown = (e) => getComputedStyle(e).display !== "none";
    const num = (e, a) => parseFloat(e.getAttribute(a));
    const lbls = Array.from(document.querySelectorAll("svg > text.lbl"), (t) => ({ text: t.textContent, y: num(t, "y") }));
    const out = [];
    for (let s = 0; s < n; s++) {
      const id = (x) => document.getElementById(`s${s}-${x}`);
      const seg = (g) => {
        const r = g.querySelector("rect");
        const t = g.querySelector("text");
        return {
          cls: g.getAttribute("class") || "",
          title: (g.querySelector(":scope > title") || {}).textContent || "",
          x: num(r, "x"), w: num(r, "width"), y: num(r, "y"), h: num(r, "height"),
          xAttr: r.getAttribute("x"), wAttr: r.getAttribute("width"),
          ms: g.getAttribute("data-ms"),
          label: t ? t.textContent : null, lx: t ? t.getAttribute("x") : null,
        };
      };
      const toggle = id("toggle");
      out.push({
        present: ["title", "details", "grid", "bars", "legend"].filter((x) => id(x)),
        details: id("details") ? id("details").textContent : null,
        toggle: toggle ? { shown: shown(toggle), text: toggle.textContent } : null,
        bars: id("bars") ? Array.from(id("bars").querySelectorAll(":scope > g"), seg) : [],
        grid: id("grid") ? Array.from(id("grid").querySelectorAll(":scope > g"), seg) : [],
        legend: id("legend") ? Array.from(id("legend").querySelectorAll(":scope > g"), seg) : [],
        axis: [],
        lbls,
      });
    }
    // Axis labels: the centred texts just below each section's last bar (time-only sections'
    // have no class; two-view sections' are "sN pct" / "sN ms").
    const centred = Array.from(document.querySelectorAll("svg > text[text-anchor=middle]"), (t) => ({
      cls: t.getAttribute("class") || "", text: t.textContent, x: num(t, "x"), y: num(t, "y"), shown: shown(t),
    }));
    // The last rows may have nothing drawn (preemptors of a few µs: under a pixel), so the
    // bottom is the lowest of the section's bars and its row labels.
    const tops = out.map((sec) => Math.min(...sec.bars.map((b) => b.y)));
    for (const [k, sec] of out.entries()) {
      const next = k + 1 < out.length ? tops[k + 1] : Infinity;
      const labels = lbls.filter((l) => l.y > tops[k] && l.y < next).map((l) => l.y);
      const bottom = Math.max(...sec.bars.map((b) => b.y + b.h), ...labels);
      sec.axis = centred.filter((t) => t.y > bottom && t.y < bottom + 20);
    }
    return out;
  });
}

// Axis ticks shown now: [{x, ns}] for a time axis, [{x, pct}] for a percent axis.
function ticks(sec) {
  return sec.axis.filter((a) => a.shown).map((a) => {
    const m = new RegExp(`^${DUR}$`).exec(a.text);
    if (a.text === "0") return { x: a.x, ns: 0, pct: 0 };
    if (m) return { x: a.x, ns: parseFloat(m[1]) * UNIT[m[2]] };
    const p = /^([0-9]+)%$/.exec(a.text);
    return { x: a.x, pct: p ? Number(p[1]) : NaN };
  });
}

// Rows of a section: segments grouped by y, left to right.
function rows(sec) {
  const by = new Map();
  for (const b of sec.bars) {
    if (!by.has(b.y)) by.set(b.y, []);
    by.get(b.y).push(b);
  }
  return [...by.values()];
}

// Geometry of the view shown: time (every width ∝ its duration, on the axis's scale, bars
// starting at the axis's 0) or percent (every bar spans 0%..100%, widths ∝ shares).
function checkGeometry(sec, n, view, what) {
  const t = ticks(sec);
  const bad = [];
  const x0 = t.length ? t[0].x : NaN;
  if (view === "ms") {
    const last = t[t.length - 1];
    if (!(t.length >= 2 && t.every((k) => Number.isFinite(k.ns)) && last.ns > 0)) {
      check(false, `${what}: s${n} shows a time axis (${JSON.stringify(t)})`);
      return;
    }
    const k = (last.x - x0) / last.ns;  // px per ns
    for (const tk of t) if (!near(tk.x, x0 + k * tk.ns, 0.15)) bad.push(`tick ${tk.ns} ns at ${tk.x}`);
    for (const row of rows(sec)) {
      let x = x0;
      for (const s of row) {
        const d = durationOf(s.title);
        if (!d) { bad.push(`no duration in ${s.title}`); continue; }
        if (!near(s.w, d.ns * k, 0.15 + d.ulp * k)) bad.push(`${s.title}: width ${s.w}, want ${(d.ns * k).toFixed(1)}`);
        if (!near(s.x, x, 0.15)) bad.push(`${s.title}: x ${s.x}, want ${x.toFixed(1)}`);
        x = s.x + s.w;
      }
    }
    const lines = sec.grid.filter((g) => g.w > 0).map((g) => g.x + 0.5);
    if (lines.length !== t.length || !lines.every((x, i) => near(x, t[i].x, 0.15))) bad.push(`grid lines ${lines} vs ticks ${t.map((k) => k.x)}`);
  } else {
    const full = t.length === 5 && t[4].pct === 100 ? t[4].x - x0 : NaN;
    if (!check(t.map((k) => k.pct).join() === "0,25,50,75,100", `${what}: s${n} shows a percent axis (${JSON.stringify(t)})`)) return;
    for (const row of rows(sec)) {
      let x = x0;
      for (const s of row) {
        const d = durationOf(s.title);
        if (!d || d.pct === null) { bad.push(`no share in ${s.title}`); continue; }
        if (!near(s.w, (d.pct / 100) * full, 0.6)) bad.push(`${s.title}: width ${s.w}, want ${((d.pct / 100) * full).toFixed(1)}`);
        if (!near(s.x, x, 0.15)) bad.push(`${s.title}: x ${s.x}, want ${x.toFixed(1)}`);
        x = s.x + s.w;
      }
      if (!near(x, x0 + full, 0.6)) bad.push(`bar at y ${row[0].y} ends at ${x}, not at 100% (${x0 + full})`);
    }
    const lines = sec.grid.filter((g) => g.w > 0).map((g) => g.x + 0.5);
    if (lines.length !== 5 || !lines.every((x, i) => near(x, t[i].x, 0.15))) bad.push(`grid lines ${lines} vs ticks ${t.map((k) => k.x)}`);
  }
  for (const s of sec.bars) {
    if (s.label !== null && s.lx !== String(Math.round((s.x + 3) * 10) / 10)) bad.push(`label of ${s.title} at ${s.lx}, rect at ${s.x}`);
  }
  check(bad.length === 0, `${what}: s${n} ${view} view geometry (${bad.length} problems): ${bad.slice(0, 5).join("; ")}`);
}

// Hovers the middle of segment I of section N (its rect, or its label when AT_LABEL).
async function hoverSegment(page, n, i, atLabel = false) {
  const g = page.locator(`#s${n}-bars > g`).nth(i);
  await g.scrollIntoViewIfNeeded();
  const box = await (atLabel ? g.locator("text") : g.locator("rect")).boundingBox();
  await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2);
}

async function allDetails(page, count) {
  const out = [];
  for (let n = 0; n < count; n++) out.push(await text(page, `#s${n}-details`));
  return out;
}

await runTest(svgPath, "chart.test.mjs", async (page, { url, source }) => {
  checkSource(source, "chart.js");
  await page.goto(url, { waitUntil: "load" });
  const root = await page.evaluate(() => ({
    cls: document.documentElement.getAttribute("class") || "",
    n: parseInt(document.documentElement.getAttribute("data-sections"), 10),
  }));
  check(root.cls.split(/\s+/).includes("chart"), `root <svg> has class chart (${root.cls})`);
  if (!check(root.n > 0, `data-sections names the sections (${root.n})`)) return;
  const orig = await readSections(page);
  info(`${svgPath}: ${root.n} sections, ${orig.map((s) => s.bars.length).join("+")} segments`);

  // The contract, and the start-up state the script makes.
  const twoView = [];
  for (const [n, sec] of orig.entries()) {
    check(sec.present.length === 5, `s${n} has title, details, grid, bars and legend (${sec.present})`);
    check(sec.bars.length > 0, `s${n} has segments`);
    const withMs = sec.bars.filter((b) => b.ms !== null).length;
    check(withMs === 0 || withMs === sec.bars.length, `s${n}: every segment or none carries data-ms (${withMs}/${sec.bars.length})`);
    if (withMs) {
      twoView.push(n);
      check(sec.toggle && sec.toggle.shown && sec.toggle.text === "show ms", `s${n}: the script shows the toggle "show ms" (${JSON.stringify(sec.toggle)})`);
      check(new RegExp(`id="s${n}-toggle" class="[^"]*\\bhide\\b`).test(source), `s${n}: the toggle is hidden in the static picture`);
      checkGeometry(sec, n, "pct", "at start");
    } else {
      check(sec.toggle === null, `s${n}: a time-only section has no toggle`);
      checkGeometry(sec, n, "ms", "at start");
    }
    check(sec.details.trim() === "", `s${n}: details line empty at start`);
  }
  check(twoView.length > 0, "at least one section has the % / ms switch");

  // Hover: every section's widest segment, then one at its label, then a legend swatch.
  for (const [n, sec] of orig.entries()) {
    const i = sec.bars.reduce((b, s, k) => (s.w > sec.bars[b].w ? k : b), 0);
    await hoverSegment(page, n, i);
    const d = await allDetails(page, root.n);
    check(d[n] === sec.bars[i].title, `hover on s${n} segment ${i} shows its tooltip in s${n}-details: ${JSON.stringify(d[n])}`);
    check(d.every((t, k) => k === n || t.trim() === ""), `hover on s${n} leaves the other details lines empty: ${JSON.stringify(d)}`);
    const stroke = await page.evaluate((k) => getComputedStyle(document.querySelectorAll(`#s${k}-bars > g > rect`)[0]).stroke, n);
    info(`s${n} hover stroke ${stroke}`);
    const labelled = sec.bars.findIndex((s) => s.label);
    if (labelled >= 0) {
      await hoverSegment(page, n, labelled, true);
      check((await text(page, `#s${n}-details`)) === sec.bars[labelled].title, `hover on a segment's label (s${n}) shows that segment's tooltip`);
    }
    await page.mouse.move(1, 1);
    check((await text(page, `#s${n}-details`)).trim() === "", `s${n}: mouse out clears the details line`);
  }
  if (orig[0].legend.length) {
    const sw = page.locator("#s0-legend > g > rect").first();
    await sw.scrollIntoViewIfNeeded();
    const box = await sw.boundingBox();
    await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2);
    check((await text(page, "#s0-details")) === orig[0].legend[0].title, "hover on a legend swatch shows its name");
    await page.mouse.move(1, 1);
  }

  // The % / ms switch, section by section; the other sections do not move.
  for (const n of twoView) {
    await page.click(`#s${n}-toggle`);
    let now = await readSections(page);
    const sec = now[n];
    const bad = sec.bars.concat(sec.grid).filter((s) => s.ms !== null && `${s.xAttr} ${s.wAttr}` !== s.ms);
    check(bad.length === 0, `ms view: s${n}'s rects take their data-ms geometry (${bad.length} differ)`);
    check(sec.toggle.text === "show %", `s${n} toggle reads "show %" (${sec.toggle.text})`);
    check(sec.axis.filter((a) => a.shown).every((a) => /\bms\b/.test(a.cls)) && sec.axis.some((a) => a.shown) &&
      orig[n].axis.filter((a) => a.shown).every((a) => /\bpct\b/.test(a.cls)),
      `ms view: s${n} shows the time labels only`);
    checkGeometry(sec, n, "ms", "after show ms");
    check(now.every((o, k) => k === n || JSON.stringify(o.bars) === JSON.stringify(orig[k].bars)), `show ms on s${n} leaves other sections alone`);
    // Hover still works in the time view.
    const i = sec.bars.reduce((b, s, k) => (s.w > sec.bars[b].w ? k : b), 0);
    await hoverSegment(page, n, i);
    check((await text(page, `#s${n}-details`)) === sec.bars[i].title, `ms view: hover on s${n} shows the tooltip`);
    await page.mouse.move(1, 1);

    await page.click(`#s${n}-toggle`);
    now = await readSections(page);
    const back = now[n].bars.concat(now[n].grid).map((s) => `${s.xAttr} ${s.wAttr} ${s.lx}`);
    const was = orig[n].bars.concat(orig[n].grid).map((s) => `${s.xAttr} ${s.wAttr} ${s.lx}`);
    check(JSON.stringify(back) === JSON.stringify(was), `show % restores s${n}'s original geometry and labels`);
    check(now[n].toggle.text === "show ms", `s${n} toggle reads "show ms" again`);
    const axis = (a) => JSON.stringify(a.map((t) => [t.text, t.x, t.shown]));
    check(axis(now[n].axis) === axis(orig[n].axis), `show % restores s${n}'s percent labels`);
  }

  // Rows: each bar's label names the thread (or pool) of its tooltips.
  const badRows = [];
  let pools = 0;
  for (const [n, sec] of orig.entries()) {
    if (!sec.bars.some((b) => /^(oncpu|runnable|sleeping|blocked|stopped|other)$/.test(b.cls))) continue;
    for (const row of rows(sec)) {
      const lbl = sec.lbls.find((l) => l.y > row[0].y && l.y < row[0].y + row[0].h);
      const pool = lbl && /^(.*) ×([0-9]+)$/.exec(lbl.text);
      const one = lbl && /^(.*) ([0-9]+)$/.exec(lbl.text);
      const who = pool ? `${pool[1]} (${pool[2]} threads)` : one ? `${one[2]} ${one[1]}` : null;
      if (pool) pools++;
      if (!who || !row.every((s) => s.title.startsWith(who + ": "))) badRows.push(`s${n} row y=${row[0].y} label ${lbl && lbl.text}`);
    }
  }
  check(badRows.length === 0, `each states bar's label names its tooltips' thread (${badRows.length} problems): ${badRows.slice(0, 4)}`);
  if (grouped) check(pools > 0, `--group-threads: pooled bars ("NAME ×N") are drawn (${pools})`);
  else check(pools === 0, `without --group-threads no pooled bar (${pools})`);
  // Stopped time (a tracer's ptrace stops, version-2 states files): its own segments, named in
  // their tooltips as in the legend ("stopped (traced, t)" -> "stopped (traced)").
  const stopped = orig.flatMap((sec) => sec.bars).filter((b) => b.cls === "stopped");
  if (stopped.length) {
    const named = orig.flatMap((sec) => sec.legend).map((l) => l.title || "").find((l) => /^stopped /.test(l));
    check(!!named, `a stopped segment has its legend entry (${named})`);
    const name = (named || "").replace(/ \(t\)$/, "").replace(/, t\)$/, ")");
    const bad = stopped.filter((b) => !b.title.includes(`: ${name} `));
    check(bad.length === 0, `stopped tooltips say "${name}" (${stopped.length} segments): ${bad.slice(0, 2).map((b) => b.title)}`);
  }

  // The runnable segments list their preemptors, as the Preemptors section counts them.
  const took = new Map();  // victim -> [{p, ns, n}]
  for (const sec of orig) {
    for (const b of sec.bars) {
      const m = new RegExp(`^(.*?)(?: \\(pid [0-9]+\\))? took ${DUR} from (.*) in ([0-9,]+) preemptions$`).exec(b.title);
      if (!m) continue;
      if (!took.has(m[4])) took.set(m[4], []);
      took.get(m[4]).push({ p: m[1], d: `${m[2]} ${m[3]}`, n: m[5] });
    }
  }
  check(took.size > 0, "the Preemptors section names victims");
  const runnable = orig.flatMap((sec, n) => sec.bars.map((b, i) => ({ ...b, n, i }))).filter((b) => b.cls === "runnable");
  check(runnable.length > 0, "runnable segments are drawn");
  const badP = [];
  let listed = 0;
  for (const r of runnable) {
    const who = r.title.slice(0, r.title.indexOf(": runnable "));
    const m = / · preempted by (.*?)(?: · |$)/.exec(r.title);
    if (!m) {
      if (took.has(who) && !grouped) badP.push(`${who}: no preemptors listed, the Preemptors section has ${took.get(who).length}`);
      continue;
    }
    listed++;
    const items = [...m[1].matchAll(new RegExp(`(?:^|, )(.+?) ${DUR} \\(([0-9,]+)×\\)`, "g"))];
    let sum = 0;
    let prev = Infinity;
    for (const it of items) {
      const ns = parseFloat(it[2]) * UNIT[it[3]];
      sum += ns;
      if (ns > prev * 1.0001) badP.push(`${who}: preemptors not listed by time`);
      prev = ns;
      if (grouped) continue;  // pools differ: the Preemptors section pools across all victims
      const t = (took.get(who) || []).find((e) => e.p === it[1]);
      if (!t || t.d !== `${it[2]} ${it[3]}` || t.n !== it[4]) badP.push(`${who}: "${it[0]}" vs Preemptors section ${JSON.stringify(t)}`);
    }
    const others = new RegExp(`, \\+[0-9]+ others ${DUR}$`).exec(m[1]);
    if (others) sum += parseFloat(others[1]) * UNIT[others[2]];
    const rd = durationOf(r.title);
    if (items.length === 0 || sum > rd.ns * 1.01 + 1e6) badP.push(`${who}: preemptors ${items.length}, ${sum} ns of ${rd.ns} runnable`);
  }
  check(listed > 0 && badP.length === 0, `runnable tooltips list their preemptors (${listed} lists, ${badP.length} problems): ${badP.slice(0, 4).join("; ")}`);
  const r0 = runnable.filter((r) => r.title.includes("preempted by")).sort((a, b) => b.w - a.w)[0];
  if (r0) {
    await hoverSegment(page, r0.n, r0.i);
    const d = await text(page, `#s${r0.n}-details`);
    check(d === r0.title && d.includes(" · preempted by "), `hover on a runnable segment shows its preemptors: ${JSON.stringify(d)}`);
    await page.mouse.move(1, 1);
  }

  // Dark mode: background, texts, grid, segment labels; readable in both schemes.
  const colours = () => page.evaluate(() => {
    const fill = (e) => (e ? getComputedStyle(e).fill : null);
    const seg = document.querySelector("[id$='-bars'] > g > text");
    let bg = fill(document.getElementById("bg"));
    if (/^url/.test(bg)) bg = getComputedStyle(document.querySelector("#background stop")).stopColor;
    return {
      bg,
      title: fill(document.getElementById("title")),
      lbl: fill(document.querySelector("svg > text.lbl")),
      details: fill(document.getElementById("s0-details")),
      sub: fill(document.querySelector("svg > text.sub")),
      toggle: fill(document.querySelector("text.toggle")),
      axis: fill(document.querySelector("text.s0")),
      grid: fill(document.querySelector("[id$='-grid'] rect")),
      segLabel: fill(seg),
      segFill: seg ? seg.parentNode.querySelector("rect").getAttribute("fill") : null,
    };
  });
  await page.emulateMedia({ colorScheme: "light" });
  const light = await colours();
  await page.emulateMedia({ colorScheme: "dark" });
  const dark = await colours();
  info(`light ${JSON.stringify(light)}`);
  info(`dark ${JSON.stringify(dark)}`);
  check(light.bg !== dark.bg && luminance(dark.bg) < 0.05, `#bg turns dark (${light.bg} -> ${dark.bg})`);
  check(light.title !== dark.title, `text colour changes in dark mode (${light.title} -> ${dark.title})`);
  for (const [scheme, c] of [["light", light], ["dark", dark]]) {
    for (const k of ["title", "lbl", "details", "sub", "axis"]) {
      check(contrast(c.bg, c[k]) >= 4.5, `${scheme}: ${k} text readable on the background (${c[k]} on ${c.bg})`);
    }
    check(contrast(c.bg, c.toggle) >= 3, `${scheme}: the toggle readable (${c.toggle} on ${c.bg})`);
    check(contrast(c.bg, c.grid) >= 1.2, `${scheme}: grid lines visible (${c.grid} on ${c.bg})`);
    if (c.segLabel) {
      const segRgb = await page.evaluate((f) => {
        const e = document.createElementNS("http://www.w3.org/2000/svg", "rect");
        e.setAttribute("fill", f);
        document.documentElement.appendChild(e);
        const v = getComputedStyle(e).fill;
        e.remove();
        return v;
      }, c.segFill);
      check(contrast(segRgb, c.segLabel) >= 3, `${scheme}: segment labels readable on their segment (${c.segLabel} on ${segRgb})`);
    }
  }
  await page.emulateMedia({ colorScheme: "light" });

  // Link targets (the report's threads table links "sched.svg#thread-TID"): each thread's row
  // has a unique id; a fragment naming one highlights that row only, on load and on hashchange.
  const anchors = await page.evaluate(() =>
    Array.from(document.querySelectorAll("g.row[id^='thread-']"), (g) => g.id));
  if (check(anchors.length > 0 && new Set(anchors).size === anchors.length, `anchors carry unique thread ids (${anchors.length})`)) {
    const highlighted = () => page.evaluate(() =>
      Array.from(document.querySelectorAll("g.row.target"), (g) => ({
        id: g.id, opacity: parseFloat(getComputedStyle(g.querySelector("rect")).fillOpacity),
      })));
    const target = anchors[Math.floor(anchors.length / 2)];
    await page.goto("about:blank");
    await page.goto(`${url}#${target}`, { waitUntil: "load" });
    let h = await highlighted();
    check(h.length === 1 && h[0].id === target && h[0].opacity > 0.3, `#${target} highlights that row only: ${JSON.stringify(h)}`);
    const other = anchors[0] === target ? anchors[anchors.length - 1] : anchors[0];
    await page.evaluate((id) => { location.hash = id; }, other);
    await page.waitForFunction((id) => {
      const g = document.querySelector("g.row.target");
      return g !== null && g.id === id;
    }, other);
    h = await highlighted();
    check(h.length === 1 && h[0].id === other, `hashchange moves the highlight to #${other}: ${JSON.stringify(h)}`);
    // The band holds its thread's label (the label is drawn at the row's height).
    const holds = await page.evaluate((id) => {
      const g = document.getElementById(id);
      const b = g.querySelector("rect").getBBox();
      const name = g.querySelector("title").textContent;
      const lbl = Array.from(document.querySelectorAll("svg > text.lbl"))
        .find((t) => t.textContent === name || (t.textContent.endsWith("…") && name.startsWith(t.textContent.slice(0, -1))));
      const y = lbl ? parseFloat(lbl.getAttribute("y")) : NaN;
      return { name, found: !!lbl, inside: y > b.y && y < b.y + b.height };
    }, other);
    check(holds.found && holds.inside, `the highlighted band holds its thread's label: ${JSON.stringify(holds)}`);
    await page.evaluate(() => { location.hash = "%E0%A4%A"; });  // malformed: nothing, no error
  }
});

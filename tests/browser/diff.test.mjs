// Headless-browser test of a differential flamegraph (`hearth diff BASE NEW`): the flamegraph
// script and style (templates/flame.js, flame.css) on the document FLAME_DOM.md describes for
// diffs. node diff.test.mjs FILE.svg BASE.folded NEW.folded (run.sh --diff wraps it).
// Every interaction of flame.test.mjs (flame.lib.mjs), then the diff's own facts, checked against
// counts computed here from the two folded inputs: each title's count, share and change in
// percentage points; hover shows them; frames only on the drawn side (and only they) carry
// class `only` and an outline that survives hover-out, zoom and search; the removed-paths strip
// (#missing) lists exactly the paths missing from the drawn side and is visible (on screen, not
// covered) in light and dark mode. Nothing asserts on time.
import fs from "node:fs";
import { check, near, info, text, runTest, contrast } from "./lib.mjs";
import { a11yChecks } from "./a11y.lib.mjs";
import { flameChecks, readFrames, buildTree, hasClass, clickFrame, searchVia, DIFF_TITLE_RE } from "./flame.lib.mjs";

const [svgPath, basePath, newPath] = process.argv.slice(2);
if (!basePath || !newPath) {
  console.error("usage: node diff.test.mjs FILE.svg BASE.folded NEW.folded");
  process.exit(2);
}

// ---- the diff's numbers, from the folded inputs ----

// Frame names as the flamegraph shows them: annotation suffixes stripped, thread roots
// "[comm tid=N]" without the tid (a diff pairs threads by name).
function frameName(f, depth) {
  const n = f.replace(/_\[[kijw]\]$/, "");
  return depth === 0 ? n.replace(/^\[(.*) tid=[0-9]+\]$/, "[$1]") : n;
}

// Inclusive count of every path prefix ("a;b;c"), and the total.
function readFolded(file) {
  const counts = new Map();
  let total = 0;
  for (const line of fs.readFileSync(file, "utf8").split("\n")) {
    const m = /^(.*) ([0-9]+)$/.exec(line.trim());
    if (!m) continue;
    const n = Number(m[2]);
    total += n;
    const names = m[1].split(";").map(frameName);
    for (let d = 1; d <= names.length; d++) {
      const key = names.slice(0, d).join(";");
      counts.set(key, (counts.get(key) || 0) + n);
    }
  }
  return { counts, total };
}

const share = (p, key) => (key === "" ? 100 : (100 * (p.counts.get(key) || 0)) / p.total);
const thousands = (n) => String(n).replace(/\B(?=(\d{3})+(?!\d))/g, ",");

// ---- checks ----

function pathOf(fr, i) {
  const names = [];
  for (let j = i; j > 0; j = fr[j].parent) names.unshift(fr[j].name);
  return names.join(";");
}

function expectedFor(key, drawn, other, side) {
  const count = key === "" ? drawn.total : drawn.counts.get(key) || 0;
  const d = side === "new" ? share(drawn, key) - share(other, key) : share(other, key) - share(drawn, key);
  const only = key !== "" && !other.counts.has(key);
  return { count, pct: key === "" ? 100 : share(drawn, key), d, only };
}

function matches(m, e, side) {
  return m && Number(m[2].replace(/,/g, "")) === e.count && near(parseFloat(m[4]), e.pct, 0.0051) &&
    near(parseFloat(m[5]), e.d, 0.0051) && (m[5] !== "0.00" || near(e.d, 0, 0.005)) &&
    (e.d <= 0.005 || m[5].startsWith("+")) &&
    (m[6] || "") === (e.only ? `; only in ${side === "new" ? "NEW" : "BASE"}` : "");
}

await runTest(svgPath, "diff.test.mjs", async (page, ctx) => {
  const { meta, orig } = await flameChecks(page, ctx);
  await a11yChecks(page, { url: ctx.url, meta, orig });
  const side = meta.diff;
  if (!check(side === "new" || side === "base", `root has data-diff="new" or "base" (${side})`)) return;
  // The checks below address frames by their element's position: they need every frame to be
  // an element, as in graphs of up to 3,000 frames (FLAME_DOM.md); flameChecks covers the rest.
  if (!check(!(orig[0].lazy > 0), `every frame is an element (lazy ${orig[0].lazy}): use a diff of at most 3,000 frames`)) return;
  const base = readFolded(basePath);
  const neu = readFolded(newPath);
  const drawn = side === "new" ? neu : base;
  const other = side === "new" ? base : neu;
  check(meta.total === drawn.total, `data-total ${meta.total} is the drawn side's total ${drawn.total}`);

  // Titles, classes and outlines, frame by frame, against the folded inputs.
  await page.goto(ctx.url);
  await page.mouse.move(1, 1);
  const fr = orig;
  const outline = await page.evaluate(() =>
    Array.from(document.querySelectorAll("#frames rect"), (r) => {
      const cs = getComputedStyle(r);
      return { attr: r.getAttribute("stroke"), sw: r.getAttribute("stroke-width"), stroke: cs.stroke, width: cs.strokeWidth };
    }));
  const bad = [];
  let onlyCount = 0;
  for (let i = 0; i < fr.length; i++) {
    const key = i === 0 ? "" : pathOf(fr, i);
    const e = expectedFor(key, drawn, other, side);
    const m = DIFF_TITLE_RE.exec(fr[i].title);
    if (!matches(m, e, side)) {
      bad.push(`#${i} ${JSON.stringify(fr[i].title)}: want ${e.count}, ${e.pct.toFixed(2)}%, ${e.d.toFixed(2)} pp${e.only ? ", only" : ""}`);
    }
    if (hasClass(fr[i], "only") !== e.only) bad.push(`#${i} ${key}: class only ${hasClass(fr[i], "only")}, want ${e.only}`);
    if (e.only) {
      onlyCount++;
      const o = outline[i];
      if (!o.attr || !o.sw) bad.push(`#${i} only frame without stroke attributes`);
      if (o.stroke === "none" || parseFloat(o.width) < 1) bad.push(`#${i} only frame outline not drawn (${o.stroke} ${o.width})`);
    } else if (outline[i].attr) {
      bad.push(`#${i} frame on both sides has a stroke`);
    }
  }
  check(bad.length === 0, `titles, class only and outlines follow BASE and NEW (${bad.length} problems): ${bad.slice(0, 6).join("; ")}`);
  info(`${onlyCount} frames only in ${side.toUpperCase()}`);
  check(onlyCount > 0, "the input has frames only on the drawn side (the outline is tested)");

  // Hover: the details line of a frame that changed, and of a new frame.
  const changed = fr.findIndex((f, i) => i > 0 && f.w > 30 && !hasClass(f, "only") &&
    Math.abs(expectedFor(pathOf(fr, i), drawn, other, side).d) >= 0.01);
  const onlyIdx = fr.findIndex((f) => hasClass(f, "only") && f.w > 10);
  for (const i of [changed, onlyIdx]) {
    if (!check(i > 0, "a frame to hover")) continue;
    await page.locator("#frames rect").nth(i).hover();
    const d = (await text(page, "#details")) || "";
    const m = /^Function: (.*)$/s.exec(d);
    const t = m && DIFF_TITLE_RE.exec(m[1]);
    const e = expectedFor(pathOf(fr, i), drawn, other, side);
    check(t && t[1] === fr[i].name && matches(t, e, side),
      `hover on #${i} shows "NAME (N samples, P%; D pp)": ${JSON.stringify(d)}, want ${fr[i].name} ${thousands(e.count)} ${e.pct.toFixed(2)}% ${e.d.toFixed(2)} pp`);
    if (hasClass(fr[i], "only")) {
      const hovered = await page.evaluate((k) => getComputedStyle(document.querySelectorAll("#frames rect")[k]).stroke, i);
      info(`only frame's stroke while hovered: ${hovered}`);
    }
  }

  // The outline after hover-out, a zoom and reset, and a search.
  const strokes = () => page.evaluate(() =>
    Array.from(document.querySelectorAll("#frames g.only > rect"), (r) => {
      const cs = getComputedStyle(r);
      return `${cs.stroke} ${cs.strokeWidth}`;
    }));
  const before = outline.filter((o, i) => hasClass(fr[i], "only")).map((o) => `${o.stroke} ${o.width}`);
  await page.mouse.move(1, 1);
  check(JSON.stringify(await strokes()) === JSON.stringify(before), `only frames keep their outline after hover-out: ${before}`);
  if (onlyIdx > 0) {
    await clickFrame(page, fr[onlyIdx].parent);
    await page.mouse.move(1, 1);
    const zs = await page.evaluate((k) => {
      const cs = getComputedStyle(document.querySelectorAll("#frames rect")[k]);
      return `${cs.stroke} ${cs.strokeWidth}`;
    }, onlyIdx);
    const k = fr.slice(0, onlyIdx).filter((f) => hasClass(f, "only")).length;
    check(zs === before[k], `an only frame keeps its outline when zoomed (${zs}, was ${before[k]})`);
    await page.click("#unzoom");
    await page.mouse.move(1, 1);
    check(JSON.stringify(await strokes()) === JSON.stringify(before), "only frames keep their outline after Reset Zoom");
    const term = fr[onlyIdx].name.replace(/[^A-Za-z0-9_:]+.*$/, "");
    await searchVia(page, term);
    const after = await readFrames(page);
    check(after[onlyIdx].fill !== fr[onlyIdx].fill, `search for ${term} highlights the only frame`);
    check(JSON.stringify(await strokes()) === JSON.stringify(before), "only frames keep their outline while highlighted");
    await page.click("#search");
  }

  // The removed-paths strip: exactly the paths missing from the drawn side, visible.
  const expected = [];
  for (const [key, n] of other.counts) {
    const parent = key.includes(";") ? key.slice(0, key.lastIndexOf(";")) : "";
    if (!drawn.counts.has(key) && (parent === "" || drawn.counts.has(parent))) expected.push({ key, n });
  }
  const strip = await page.evaluate(() => {
    const g = document.getElementById("missing");
    if (!g) return null;
    const vb = document.documentElement.viewBox.baseVal;
    return Array.from(g.querySelectorAll(":scope > g"), (e) => {
      const r = e.querySelector("rect");
      const b = r.getBoundingClientRect();
      const cx = b.left + b.width / 2;
      const cy = b.top + b.height / 2;
      const cs = getComputedStyle(r);
      return {
        title: (e.querySelector("title") || {}).textContent,
        box: [b.left, b.top, b.width, b.height],
        inView: b.width > 0 && b.height > 0 && b.left >= 0 && b.top >= 0 && b.right <= innerWidth &&
          r.getBBox().y + r.getBBox().height <= vb.y + vb.height && r.getBBox().x + r.getBBox().width <= vb.x + vb.width,
        onTop: document.elementFromPoint(cx, cy) === r,
        shown: cs.display !== "none" && cs.visibility === "visible" && parseFloat(cs.opacity) > 0.9 &&
          cs.fill !== "none",
      };
    });
  });
  if (check(strip !== null, "#missing (the removed-paths strip) is present")) {
    const sideName = side === "new" ? "BASE" : "NEW";
    check(strip.length === expected.length && expected.length > 0,
      `#missing lists ${strip.length} paths; ${expected.length} are only in ${sideName}`);
    const sharesOk = expected.every(({ key, n }) => strip.some((s) => {
      const m = /^(.*) \(([0-9,]+) samples, ([0-9.]+)%; ([+-]?[0-9.]+) pp\)$/.exec(s.title || "");
      const pct = (100 * n) / other.total;
      return m && m[1] === key && Number(m[2].replace(/,/g, "")) === n && near(parseFloat(m[3]), pct, 0.0051) &&
        near(Math.abs(parseFloat(m[4])), pct, 0.0051) && m[4].startsWith(side === "new" ? "-" : "+");
    }));
    check(sharesOk, `#missing titles name each removed path with its count and share: ${JSON.stringify(strip.map((s) => s.title))}`);
    for (const [k, s] of strip.entries()) {
      check(s.shown && s.inView && s.onTop, `removed path ${k} is drawn on screen and not covered: ${JSON.stringify(s)}`);
    }
    const heading = await page.evaluate(() =>
      Array.from(document.querySelectorAll("svg > text"), (t) => t.textContent).find((t) => /^(?:Removed|Added) paths/.test(t)) || null);
    check(heading !== null && heading.endsWith(`: ${expected.length}`), `strip heading counts the paths: ${JSON.stringify(heading)}`);

    // Text sizes as drawn (the base `text{font-size}` rule must not win over the smaller ones):
    // the colour key's labels 2 px and the strip's lines 1 px below the 12 px base size.
    const sizes = await page.evaluate(() => {
      const texts = Array.from(document.querySelectorAll("svg > text"));
      const px = (t) => (t ? getComputedStyle(t).fontSize : null);
      return {
        key: px(texts.find((t) => t.textContent === "not significant")),
        line: px(texts.find((t) => / pp {2}[0-9.]+% {2}/.test(t.textContent))),
        heading: px(texts.find((t) => /^(?:Removed|Added) paths/.test(t.textContent))),
      };
    });
    check(sizes.key === "10px" && sizes.line === "11px" && sizes.heading === "12px",
      `key labels 10px, strip lines 11px, heading 12px: ${JSON.stringify(sizes)}`);

    // Dark mode: the strip's text stays readable on the dark background.
    await page.emulateMedia({ colorScheme: "dark" });
    const dark = await page.evaluate(() => {
      const t = Array.from(document.querySelectorAll("svg > text")).find((e) => /^(?:Removed|Added) paths/.test(e.textContent));
      const r = document.querySelector("#missing rect");
      const b = r.getBoundingClientRect();
      return {
        bg: getComputedStyle(document.getElementById("bg")).fill,
        text: t ? getComputedStyle(t).fill : null,
        onTop: document.elementFromPoint(b.left + b.width / 2, b.top + b.height / 2) === r,
      };
    });
    check(contrast(dark.bg, dark.text) >= 4.5, `removed-paths heading readable in dark mode (${dark.text} on ${dark.bg})`);
    check(dark.onTop, "removed path still drawn in dark mode");
    await page.emulateMedia({ colorScheme: "light" });
  }
});

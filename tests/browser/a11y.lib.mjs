// Accessibility checks of the flamegraph page (templates/flame.js, flame.css): the keyboard
// moves the document's focus through the frames as the picture reads (roving tabindex), the
// table of functions (an ARIA table in the SVG) holds the data computed here from the frames'
// titles and sorts by its headers, the colour-blind-safe palette keeps its colours apart under
// simulated deuteranopia (computed here, Machado 2009), and axe-core (npm) finds no serious or
// critical violation. Used by flame.test.mjs; axeCheck also by report.test.mjs.
import fs from "node:fs";
import { createRequire } from "node:module";
import { check, info, text, query } from "./lib.mjs";
import { readFrames, checkZoomed, checkRestored, checkSearch, searchVia, escapeRegExp, hasClass } from "./flame.lib.mjs";

const require = createRequire(import.meta.url);
const AXE_SOURCE = fs.readFileSync(require.resolve("axe-core/axe.min.js"), "utf8");

// ---- axe-core ----

// Runs axe-core on PAGE's document; checks that no violation is serious or critical and prints
// the others. Returns the violations.
export async function axeCheck(page, label) {
  await page.evaluate(AXE_SOURCE);
  const json = await page.evaluate(async () => {
    const r = await window.axe.run(document);
    return JSON.stringify({
      passes: r.passes.length,
      violations: r.violations.map((v) => ({
        id: v.id, impact: v.impact, help: v.help, nodes: v.nodes.length,
        target: v.nodes.slice(0, 3).map((n) => n.target.join(" ")),
      })),
    });
  });
  const { passes, violations } = JSON.parse(json);
  info(`${label}: axe-core ${passes} rules passed, ${violations.length} violated`);
  check(passes > 0, `${label}: axe-core checked the document (${passes} rules passed)`);
  const bad = violations.filter((v) => v.impact === "serious" || v.impact === "critical");
  for (const v of violations) info(`${label}: axe ${v.impact} ${v.id} (${v.nodes} nodes: ${v.target.join(", ")}): ${v.help}`);
  check(bad.length === 0, `${label}: axe-core finds no serious or critical violation (${bad.map((v) => `${v.id} on ${v.nodes}`).join("; ")})`);
  return violations;
}

// ---- colour vision ----

// Machado, Oliveira & Fernandes (2009), deuteranopia at severity 1, on linear RGB.
const DEUTERANOPIA = [
  [0.367322, 0.860646, -0.227968],
  [0.280085, 0.672501, 0.047413],
  [-0.01182, 0.04294, 0.968881],
];

function parseColour(s) {
  let m = /^#([0-9a-f]{2})([0-9a-f]{2})([0-9a-f]{2})$/i.exec(s.trim());
  if (m) return [1, 2, 3].map((k) => parseInt(m[k], 16));
  m = /^rgb\(\s*(\d+)\s*,\s*(\d+)\s*,\s*(\d+)\s*\)$/.exec(s.trim());
  if (m) return [1, 2, 3].map((k) => Number(m[k]));
  throw new Error(`colour ${s}`);
}

const toLinear = (c) => {
  const v = c / 255;
  return v <= 0.04045 ? v / 12.92 : Math.pow((v + 0.055) / 1.055, 2.4);
};

function lab(linear) {
  const [r, g, b] = linear;
  const x = (0.4124 * r + 0.3576 * g + 0.1805 * b) / 0.95047;
  const y = 0.2126 * r + 0.7152 * g + 0.0722 * b;
  const z = (0.0193 * r + 0.1192 * g + 0.9505 * b) / 1.08883;
  const f = (t) => (t > 0.008856 ? Math.cbrt(t) : 7.787 * t + 16 / 116);
  return [116 * f(y) - 16, 500 * (f(x) - f(y)), 200 * (f(y) - f(z))];
}

// CIELAB distance (CIE76) of two colours as a deuteranope sees them (MATRIX null: as anyone).
export function cvdDistance(a, b, matrix = DEUTERANOPIA) {
  const see = (c) => {
    const l = parseColour(c).map(toLinear);
    if (!matrix) return lab(l);
    return lab(matrix.map((row) => Math.min(1, Math.max(0, row[0] * l[0] + row[1] * l[1] + row[2] * l[2]))));
  };
  const p = see(a), q = see(b);
  return Math.hypot(p[0] - q[0], p[1] - q[1], p[2] - q[2]);
}

// WCAG contrast ratio of a colour against black (the frames' labels).
function contrastWithBlack(c) {
  const [r, g, b] = parseColour(c).map(toLinear);
  return (0.2126 * r + 0.7152 * g + 0.0722 * b + 0.05) / 0.05;
}

// Asserted minimums (CIELAB units under simulated deuteranopia): any two entries, entries next
// to each other in the palette's order, the search colour against every entry.
export const MIN_PAIR = 15;
export const MIN_ADJACENT = 40;
export const MIN_SEARCH = 30;

export function checkPaletteVision(fills, searchFill, label) {
  let pair = Infinity, adjacent = Infinity, search = Infinity, worst = "";
  for (let i = 0; i < fills.length; i++) {
    adjacent = Math.min(adjacent, cvdDistance(fills[i], fills[(i + 1) % fills.length]));
    search = Math.min(search, cvdDistance(searchFill, fills[i]));
    for (let j = i + 1; j < fills.length; j++) {
      const d = cvdDistance(fills[i], fills[j]);
      if (d < pair) {
        pair = d;
        worst = `${fills[i]}/${fills[j]}`;
      }
    }
  }
  info(`${label}: under simulated deuteranopia, closest pair ${pair.toFixed(1)} (${worst}), neighbours >= ${adjacent.toFixed(1)}, search colour >= ${search.toFixed(1)} CIELAB units`);
  check(fills.length >= 5, `${label}: at least 5 colours (${fills.length})`);
  check(pair >= MIN_PAIR, `${label}: every two colours >= ${MIN_PAIR} apart under deuteranopia (${pair.toFixed(1)}, ${worst})`);
  check(adjacent >= MIN_ADJACENT, `${label}: neighbouring colours >= ${MIN_ADJACENT} apart under deuteranopia (${adjacent.toFixed(1)})`);
  check(search >= MIN_SEARCH, `${label}: the search colour >= ${MIN_SEARCH} from every colour under deuteranopia (${search.toFixed(1)})`);
  const dark = fills.filter((f) => contrastWithBlack(f) < 4.5);
  check(dark.length === 0, `${label}: black labels keep a 4.5:1 contrast on every colour (${dark.join(", ")})`);
}

// ---- page helpers ----

// The frame index of the document's focused element when it is a frame, else -1 (or the
// element's id, for buttons).
async function activeFrame(page) {
  return page.evaluate(`(() => {
    const a = document.activeElement;
    if (!a || a.parentNode !== document.getElementById("frames")) return a && a.id ? a.id : -1;
    const data = JSON.parse(document.getElementById("frames-data").textContent);
    const written = [];
    for (let i = 0; i < data.w.length; i++) if (!(data.lazy > 0) || data.w[i] >= data.lazy) written.push(i);
    let k = 0;
    for (const g of document.querySelectorAll("#frames > g")) {
      const i = g.hasAttribute("data-i") ? Number(g.getAttribute("data-i")) : written[k++];
      if (g === a) return i;
    }
    return -1;
  })()`);
}

// "NAME, COUNT COUNTNAME, PCT%": the accessible name a frame's title makes.
export function accessibleName(title) {
  const k = title.lastIndexOf(" (");
  if (k < 0) return title;
  return title.slice(0, k) + ", " + title.slice(k + 2, -1).replace(/; /g, ", ");
}

// Self and total counts per function name from the frames' titles, in frame Z's subtree (the
// root excluded; a frame inside a frame of the same name counts once in its total).
export function functionTable(orig, z = 0) {
  const rows = new Map();
  const countOf = (f) => parseFloat(/ \(([0-9][0-9,]*(?:\.[0-9]+)?) /.exec(f.title.slice(f.title.lastIndexOf(" (")))[1].replace(/,/g, ""));
  for (let i = Math.max(z, 1); i < orig[z].end; i++) {
    const f = orig[i];
    let r = rows.get(f.name);
    if (!r) rows.set(f.name, (r = { name: f.name, self: 0, total: 0 }));
    let kids = 0;
    for (let j = i + 1; j < f.end; j++) if (orig[j].parent === i) kids += countOf(orig[j]);
    r.self += countOf(f) - kids;
    let nested = false;
    for (let p = f.parent; p > 0 && p >= z; p = orig[p].parent) if (orig[p].name === f.name) nested = true;
    if (!nested) r.total += countOf(f);
  }
  return { rows, all: countOf(orig[0]) };
}

async function readTable(page) {
  return page.evaluate(() => {
    const t = document.getElementById("table");
    if (!t) return null;
    const rows = Array.from(t.querySelectorAll(":scope > [role=row]"), (r) =>
      Array.from(r.querySelectorAll("[role=cell], [role=columnheader]"), (c) => c.textContent));
    const sort = Array.from(t.querySelectorAll("[role=columnheader]"), (c) => c.getAttribute("aria-sort"));
    return { rows, sort, role: t.getAttribute("role"), note: (t.querySelector(".note") || {}).textContent };
  });
}

const num = (s) => parseFloat(s.replace(/[,%]/g, ""));

function checkSorted(rows, col, desc, what) {
  let bad = 0;
  for (let k = 2; k < rows.length; k++) {
    const a = col === 0 ? rows[k - 1][0] : num(rows[k - 1][col]);
    const b = col === 0 ? rows[k][0] : num(rows[k][col]);
    if (desc ? a < b : a > b) bad++;
  }
  check(bad === 0, `${what}: rows in order (${bad} out of order)`);
}

// ---- the checks ----

export async function a11yChecks(page, { url, meta, orig }) {
  const toChild = meta.inverted ? "ArrowDown" : "ArrowUp";
  const toParent = meta.inverted ? "ArrowUp" : "ArrowDown";
  const { height, countname } = await page.evaluate(() => ({
    height: document.documentElement.getAttribute("height"),
    countname: document.documentElement.getAttribute("data-countname") || "samples",
  }));

  // Keyboard: Tab reaches the graph; the root frame holds the tab stop.
  await page.goto(url);
  let reached = -1;
  for (let k = 0; k < 10 && reached !== 0; k++) {
    await page.keyboard.press("Tab");
    reached = await activeFrame(page);
  }
  check(reached === 0, `Tab reaches the graph's root frame (focus on ${reached})`);
  check((await text(page, "#details")) === `${meta.nametype} ${orig[0].title}`, "the focused root's title in #details");
  const rootName = accessibleName(orig[0].title);
  check(await page.getByRole("button", { name: rootName, exact: true }).count() === 1,
    `the focused frame's accessible name is "${rootName}"`);
  const tabStops = await page.evaluate(() => document.querySelectorAll('#frames > g[tabindex="0"]').length);
  check(tabStops === 1, `one frame in the tab order (${tabStops})`);

  // The child key goes to the first drawn child, the parent key back, as the picture reads.
  const firstDrawnChild = (i) => {
    for (let c = i + 1; c < orig[i].end; c = orig[c].end) if (!orig[c].absent) return c;
    return -1;
  };
  let cur = 0;
  const path = [0];
  for (let d = 0; d < 3; d++) {
    const c = firstDrawnChild(cur);
    if (c < 0) break;
    await page.keyboard.press(toChild);
    cur = c;
    path.push(c);
  }
  check((await activeFrame(page)) === cur, `${toChild} walks the first drawn children (want #${cur}, focus on #${await activeFrame(page)})`);
  check((await text(page, "#details")) === `${meta.nametype} ${orig[cur].title}`, "the focused frame's title in #details, as on hover");
  check(await page.getByRole("button", { name: accessibleName(orig[cur].title), exact: true }).count() === 1,
    "the focused frame's accessible name says function, samples and share");
  await page.keyboard.press(toParent);
  check((await activeFrame(page)) === orig[cur].parent, `${toParent} moves to the parent (#${orig[cur].parent})`);

  // Frames that are not drawn are skipped: a frame whose first child has no element, reached
  // by keys from the root (Home): the child key, then right along the drawn siblings.
  const keysTo = (target) => {
    const keys = ["Home"];
    const chain = [];
    for (let p = target; p > 0; p = orig[p].parent) chain.unshift(p);
    let at = 0;
    for (const next of chain) {
      const first = firstDrawnChild(at);
      if (first < 0 || orig[next].absent) return null;
      keys.push(toChild);
      for (let c = orig[first].end; c <= next; c = orig[c].end) if (!orig[c].absent) keys.push("ArrowRight");
      at = next;
    }
    return keys;
  };
  let skip = -1, route = null;
  for (let i = 0; i < orig.length; i++) {
    const f = orig[i];
    if (f.absent || !(f.end > i + 1 && orig[i + 1].absent && firstDrawnChild(i) > 0)) continue;
    const k = keysTo(i);
    if (k && (!route || k.length < route.length)) {
      skip = i;
      route = k;
    }
  }
  if (skip > 0) {
    for (const k of route) await page.keyboard.press(k);
    check((await activeFrame(page)) === skip, `keys from the root reach #${skip} (${route.length} keys; focus on #${await activeFrame(page)})`);
    await page.keyboard.press(toChild);
    const want = firstDrawnChild(skip);
    check((await activeFrame(page)) === want, `${toChild} skips children too narrow to draw (from #${skip} to #${want}, focus on #${await activeFrame(page)})`);
  } else {
    info("no frame with an undrawn first child: skipping not exercised");
  }

  // Enter zooms the focused frame and keeps the focus; Escape unzooms, then clears the search.
  const z = path.length > 2 ? path[2] : path[path.length - 1];
  for (const k of keysTo(z)) await page.keyboard.press(k);
  await page.keyboard.press("Enter");
  checkZoomed(await readFrames(page), orig, z, meta, "Enter zooms the focused frame");
  check((await activeFrame(page)) === z, "the zoomed frame keeps the focus");
  const word = (orig[z].name.match(/[A-Za-z_][A-Za-z0-9_]{2,}/) || [null])[0];
  if (word) {
    const term = escapeRegExp(word);
    check(await searchVia(page, term, { key: "/" }), "/ opens the search");
    const re = new RegExp(term);
    checkSearch(await readFrames(page), orig, re, await text(page, "#matched"), "/ search", z);
    await page.keyboard.press("Escape");
    const fr = await readFrames(page);
    checkSearch(fr, orig, re, await text(page, "#matched"), "first Escape keeps the search");
    check(!fr[z].hidden && !hasClass(fr[0], "parent"), "first Escape unzooms");
    check((await activeFrame(page)) === z, "the focused frame keeps the focus after unzoom");
    await page.keyboard.press("Escape");
    checkSearch(await readFrames(page), orig, null, null, "second Escape clears the search");
  } else {
    await page.keyboard.press("Escape");
  }
  checkRestored(await readFrames(page), orig, "Escape");
  await page.keyboard.press("Escape");
  check(await page.evaluate(() => !document.querySelector("#frames g.focus")), "a last Escape drops the frame's outline");

  // Table of functions, by the keyboard: Enter on the Table button.
  await page.focus("#tablebtn");
  await page.keyboard.press("Enter");
  let t = await readTable(page);
  if (check(t && t.role === "table", "Enter on Table shows the table of functions (role table)")) {
    check(await page.evaluate(() => document.getElementById("tablebtn").getAttribute("aria-pressed")) === "true", "Table is pressed");
    check(await page.evaluate(() => getComputedStyle(document.getElementById("frames")).display === "none"), "the graph is hidden under the table");
    check(query(page).get("t") === "1", `URL keeps the table: ${page.url()}`);
    const { rows, all } = functionTable(orig);
    const body = t.rows.slice(1);
    check(body.length === Math.min(rows.size, 2000), `a row per function (${body.length} of ${rows.size})`);
    let bad = [];
    for (const r of body) {
      const e = rows.get(r[0]);
      if (!e) { bad.push(`unknown ${r[0]}`); continue; }
      if (num(r[1]) !== Math.round(e.self) || num(r[3]) !== Math.round(e.total)) bad.push(`${r[0]}: ${r[1]}/${r[3]} want ${e.self}/${e.total}`);
      if (Math.abs(num(r[2]) - (100 * e.self) / all) > 0.006 || Math.abs(num(r[4]) - (100 * e.total) / all) > 0.006) bad.push(`${r[0]}: ${r[2]}/${r[4]}`);
    }
    check(bad.length === 0, `table rows equal the self and total counts from the titles (${bad.length} wrong: ${bad.slice(0, 3).join("; ")})`);
    checkSorted(t.rows, 3, true, "table sorted by total at first");
    check(t.sort[3] === "descending" && t.sort[1] === "none", `aria-sort marks the total column (${t.sort})`);
    const a11yRows = await page.getByRole("row").count();
    check(a11yRows === t.rows.length, `the accessibility tree has the table's rows (${a11yRows})`);
    const selfHeader = page.getByRole("columnheader", { name: `Self ${countname}`, exact: true });
    await selfHeader.click();
    t = await readTable(page);
    checkSorted(t.rows, 1, true, "click on Self sorts by self, descending");
    check(t.sort[1] === "descending", "aria-sort follows the click");
    await page.getByRole("columnheader", { name: `Self ${countname}`, exact: true }).click();
    t = await readTable(page);
    checkSorted(t.rows, 1, false, "a second click sorts ascending");
    await page.getByRole("columnheader", { name: "Function", exact: true }).focus();
    await page.keyboard.press("Enter");
    t = await readTable(page);
    checkSorted(t.rows, 0, false, "Enter on Function sorts by name");
    // A search narrows the rows.
    const word2 = [...rows.keys()].map((nm) => (nm.match(/[A-Za-z_][A-Za-z0-9_]{3,}/) || [null])[0]).find((w) => w);
    if (word2) {
      await searchVia(page, escapeRegExp(word2), { key: "Control+f" });
      t = await readTable(page);
      const want = [...rows.keys()].filter((nm) => new RegExp(escapeRegExp(word2)).test(nm)).length;
      check(t.rows.length - 1 === Math.min(want, 2000) && t.rows.slice(1).every((r) => r[0].includes(word2)),
        `a search for ${word2} narrows the table to the ${want} matching functions (${t.rows.length - 1})`);
    }
    await axeCheck(page, "flamegraph with the table");
    await page.keyboard.press("Escape");
    check((await readTable(page)) === null, "Escape closes the table");
    check(await page.evaluate(() => getComputedStyle(document.getElementById("frames")).display !== "none"), "the graph is back");
    check(await page.evaluate(() => document.documentElement.getAttribute("height")) === height,
      "the SVG's height is back");
    await page.goto(`${url}?t=1`);
    check((await readTable(page)) !== null, "?t=1 opens the table");
    // Zoomed: the table holds the zoomed frame's subtree.
    const zt = orig.findIndex((f, i) => i > 0 && !f.absent && f.end - i > 3 && f.end - i < orig.length / 2);
    if (zt > 0) {
      await page.goto(`${url}?x=${orig[zt].xAttr}&y=${orig[zt].yAttr}&t=1`);
      const sub = functionTable(orig, zt);
      const tz = await readTable(page);
      const got = tz ? tz.rows.slice(1) : [];
      const wrong = got.filter((r) => { const e = sub.rows.get(r[0]); return !e || num(r[1]) !== Math.round(e.self) || num(r[3]) !== Math.round(e.total); });
      check(got.length === Math.min(sub.rows.size, 2000) && wrong.length === 0,
        `zoomed into #${zt}, the table lists its subtree's ${sub.rows.size} functions (${got.length} rows, ${wrong.length} wrong)`);
    }
  }

  // Colour-blind-safe palette.
  await page.goto(url);
  const paletteBtn = await page.$("#palette");
  if (meta.diff) {
    check(!paletteBtn, "no palette toggle on a differential graph");
  } else if (check(!!paletteBtn, "the page has a colour-blind palette toggle")) {
    await page.click("#palette");
    const { fills, searchFill } = await page.evaluate(() => {
      const b = document.getElementById("palette");
      return { fills: b.hearthFills, searchFill: b.hearthSearchFill };
    });
    checkPaletteVision(fills, searchFill, "colour-blind-safe palette");
    // For comparison (not asserted): the written palette's colours, as a deuteranope sees them.
    const written = [...new Set(orig.map((f) => f.fill))].slice(0, 60);
    let closest = Infinity;
    for (let i = 0; i < written.length; i++) for (let j = i + 1; j < written.length; j++) closest = Math.min(closest, cvdDistance(written[i], written[j]));
    info(`the written palette (${written.length} colours sampled): closest pair ${closest.toFixed(1)} CIELAB units under deuteranopia`);
    const fr = await readFrames(page);
    const byName = new Map();
    let bad = [];
    for (let i = 0; i < fr.length; i++) {
      if (fr[i].absent) continue;
      if (!fills.includes(fr[i].fill)) bad.push(`#${i} fill ${fr[i].fill}`);
      const seen = byName.get(orig[i].name);
      if (seen && seen !== fr[i].fill) bad.push(`${orig[i].name} in ${seen} and ${fr[i].fill}`);
      byName.set(orig[i].name, fr[i].fill);
    }
    check(bad.length === 0, `every frame in the safe palette, one colour per function (${bad.slice(0, 3).join("; ")})`);
    const legend = await page.evaluate(() => Array.from(document.querySelectorAll("#threads > g"), (g) => ({
      x: parseFloat(g.getAttribute("data-x")), fill: g.querySelector("rect").getAttribute("fill") })));
    const off = legend.filter((e) => {
      const t = orig.findIndex((f) => f.depth === 1 && Math.abs(f.x - e.x) < 0.05);
      return t < 0 || fr[t].fill !== e.fill;
    });
    check(off.length === 0, `the thread legend's swatches follow their frames (${off.length} of ${legend.length} differ)`);
    check(await page.evaluate(() => document.getElementById("palette").getAttribute("aria-pressed")) === "true", "the toggle is pressed");
    check(query(page).get("p") === "safe", `URL keeps the palette: ${page.url()}`);
    await axeCheck(page, "flamegraph in the safe palette");
    await page.goto(`${url}?p=safe`);
    const again = await readFrames(page);
    check(again.every((f, i) => f.absent || f.fill === fr[i].fill), "?p=safe restores the palette");
    await page.focus("#palette");
    await page.keyboard.press(" ");
    const back = await readFrames(page);
    const wrong = back.filter((f, i) => !f.absent && f.fill !== orig[i].fill).length;
    check(wrong === 0, `Space on the toggle brings the written fills back (${wrong} differ)`);
  }
  await page.goto(url);
  await axeCheck(page, "flamegraph");
  // The check can fail: a frame made a nameless slider is a critical violation.
  await page.evaluate(() => {
    const g = document.querySelector("#frames > g");
    g.setAttribute("role", "slider");
    g.removeAttribute("aria-label");
    g.querySelector("title").remove();
  });
  const planted = await page.evaluate(async () => (await window.axe.run(document)).violations.map((v) => v.impact));
  check(planted.includes("critical"), `axe-core reports a planted violation (${planted})`);
  await page.goto(url);
}

// The flamegraph contract (templates/FLAME_DOM.md) implemented independently of flame.js, and
// the checks of every interaction of the script (templates/flame.js, flame.css) on one page:
// flameChecks(page, {url, source}) drives Chromium like a user would (hover, click, prompt,
// keys) and checks every result against values computed here from the SVG's own rects and the
// contract's label algorithm. Used by flame.test.mjs (`hearth flame`) and diff.test.mjs
// (`hearth diff`, the same document with diff titles). Timings are information only.
import { check, near, info, text, displayed, query, checkSource } from "./lib.mjs";

export const SEARCH_FILL = "rgb(230,0,230)";
// ---- the contract, implemented here independently of flame.js ----

// Outermost OPEN…CLOSE groups: empty -> OPEN CLOSE, KEEP -> unchanged, else OPEN…CLOSE.
export function collapseGroups(name, open, close, keep) {
  const out = [];
  let inner = [];
  let level = 0;
  for (const c of name) {
    if (c === close && level === 0) return name;
    if (c === open) {
      if (level++ > 0) inner.push(c);
    } else if (c === close) {
      if (--level > 0) {
        inner.push(c);
      } else {
        const content = inner.join("");
        out.push(open + (content === "" ? "" : content === keep ? content : "\u2026") + close);
        inner = [];
      }
    } else if (level > 0) {
      inner.push(c);
    } else {
      out.push(c);
    }
  }
  return level === 0 ? out.join("") : name;
}

export function expectedLabel(name, width, meta) {
  const chars = Math.floor(width / (meta.fontsize * meta.fontwidth));
  if (chars < 3) return "";
  const noParams = collapseGroups(name, "(", ")", "anonymous namespace");
  const noTemplates = collapseGroups(noParams, "<", ">", null);
  for (const c of [name, noParams, noTemplates]) {
    if ([...c].length <= chars) return c;
  }
  return [...noTemplates].slice(0, chars - 2).join("") + "..";
}

export const TITLE_RE = /^(.*) \(([0-9][0-9,]*(?:\.[0-9]+)?) (\S+), ([0-9.]+)%(?:; [+-]?[0-9.]+%)?\)$/s;
// `hearth diff` (data-diff="new" or "base"): NAME (COUNT COUNTNAME, PCT%; D pp[; only in SIDE]).
export const DIFF_TITLE_RE =
  /^(.*) \(([0-9][0-9,]*(?:\.[0-9]+)?) (\S+), ([0-9.]+)%; ((?:\+|-)?[0-9]+\.[0-9]{2}) pp(; only in (?:NEW|BASE))?\)$/s;

export function nameOf(title) {
  const i = title.lastIndexOf(" (");
  return i >= 0 ? title.slice(0, i) : title;
}

// Depth, parent and subtree end (one past) of each frame, from y and the pre-order.
export function buildTree(fr, meta) {
  const y0 = fr[0].y;
  const stack = [];
  for (let i = 0; i < fr.length; i++) {
    const d = (meta.inverted ? fr[i].y - y0 : y0 - fr[i].y) / meta.frameheight;
    fr[i].depth = Math.round(d);
    fr[i].depthExact = d;
    fr[i].name = nameOf(fr[i].title);
    while (stack.length && fr[stack[stack.length - 1]].depth >= fr[i].depth) {
      fr[stack.pop()].end = i;
    }
    fr[i].parent = stack.length ? stack[stack.length - 1] : -1;
    stack.push(i);
  }
  while (stack.length) fr[stack.pop()].end = fr.length;
}

export function ancestors(fr, i) {
  const a = [];
  for (let p = fr[i].parent; p >= 0; p = fr[p].parent) a.push(p);
  return a;
}

export function escapeRegExp(s) {
  return s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

// Share (%) of the root's width covered by frames whose name matches RE: union of x ranges.
export function matchedShare(fr, re) {
  const iv = fr.filter((f) => re.test(f.name)).map((f) => [f.x, f.x + f.w]);
  iv.sort((a, b) => a[0] - b[0]);
  let sum = 0;
  let cur = null;
  let pieces = 0;
  for (const [a, b] of iv) {
    if (cur && a <= cur[1] + 1e-6) {
      cur[1] = Math.max(cur[1], b);
    } else {
      if (cur) sum += cur[1] - cur[0];
      cur = [a, b];
      pieces++;
    }
  }
  if (cur) sum += cur[1] - cur[0];
  return { pct: (100 * sum) / fr[0].w, pieces };
}

// ---- page helpers ----

export async function readMeta(page) {
  return page.evaluate(() => {
    const s = document.documentElement;
    const n = (a, d) => (s.hasAttribute(a) ? parseFloat(s.getAttribute(a)) : d);
    const vb = (s.getAttribute("viewBox") || "").trim().split(/[\s,]+/);
    return {
      width: vb.length === 4 ? parseFloat(vb[2]) : n("width", NaN),
      xpad: n("data-xpad", NaN),
      fontsize: n("data-fontsize", NaN),
      fontwidth: n("data-fontwidth", NaN),
      frameheight: n("data-frameheight", NaN),
      inverted: s.getAttribute("data-inverted") === "1",
      nametype: s.getAttribute("data-nametype") || "Function:",
      total: n("data-total", NaN),
      classes: s.getAttribute("class") || "",
      diff: s.getAttribute("data-diff"),
    };
  });
}

// In the page: the frame index of every <g> child of #frames, in document order. By the
// contract (FLAME_DOM.md, "Frame data"), the elements the SVG wrote are the frames at least
// `lazy` px wide (all of them when lazy is 0), in pre-order; those flame.js created carry data-i.
const FRAME_INDEXES = `(() => {
  const data = JSON.parse(document.getElementById("frames-data").textContent);
  const written = [];
  for (let i = 0; i < data.w.length; i++) if (!(data.lazy > 0) || data.w[i] >= data.lazy) written.push(i);
  let k = 0;
  return Array.from(document.querySelectorAll("#frames > g"),
    (g) => (g.hasAttribute("data-i") ? Number(g.getAttribute("data-i")) : written[k++]));
})()`;

// Every frame of the frame data, in pre-order, with what its element (if any) shows: frames
// without an element are `absent` (and hidden), with their geometry and fill from the data.
// (Serialised as one JSON string: playwright's own transfer of 25,000 objects is 10x slower.)
export async function readFrames(page) {
  const json = await page.evaluate(`(() => {
    const frames = document.getElementById("frames");
    const data = JSON.parse(document.getElementById("frames-data").textContent);
    const index = ${FRAME_INDEXES};
    const hidden = (e) => {
      for (; e && e !== frames; e = e.parentNode) if (getComputedStyle(e).display === "none") return true;
      return false;
    };
    const cls = new Map();
    for (let k = 0; k + 1 < data.class.length; k += 2) cls.set(data.class[k], data.class[k + 1]);
    const out = data.x.map((x, i) => ({
      absent: true, hidden: true, kids: "", label: "", tx: NaN,
      title: data.strings[data.name[i]] + data.strings[data.suffix[i]],
      x, y: data.y[i], w: data.w[i], xAttr: String(x), yAttr: String(data.y[i]),
      fill: data.fills[data.fill[i]], cls: cls.get(i) || "", lazy: data.lazy,
    }));
    const gs = frames.querySelectorAll(":scope > g");
    for (let k = 0; k < gs.length; k++) {
      const g = gs[k];
      const i = index[k];
      const r = g.querySelector("rect");
      const t = g.querySelector("text");
      const title = g.querySelector("title");
      if (!(i >= 0 && i < out.length) || !out[i].absent) {
        out.push({ stray: true, title: title ? title.textContent : "" });
        continue;
      }
      Object.assign(out[i], {
        absent: false,
        created: g.hasAttribute("data-i"),
        kids: Array.from(g.children, (c) => c.localName).join(","),
        title: title ? title.textContent : "",
        x: r ? parseFloat(r.getAttribute("x")) : NaN,
        y: r ? parseFloat(r.getAttribute("y")) : NaN,
        w: r ? parseFloat(r.getAttribute("width")) : NaN,
        xAttr: r ? r.getAttribute("x") : null,
        yAttr: r ? r.getAttribute("y") : null,
        fill: r ? r.getAttribute("fill") : null,
        cls: g.getAttribute("class") || "",
        label: t ? t.textContent : "",
        tx: t ? parseFloat(t.getAttribute("x")) : NaN,
        hidden: hidden(g),
      });
    }
    return JSON.stringify(out);
  })()`);
  const fr = JSON.parse(json);
  const stray = fr.filter((f) => f.stray);
  check(stray.length === 0, `every element in #frames is a frame of the data, once (${stray.length} are not: ${stray.slice(0, 3).map((f) => f.title).join("; ")})`);
  return fr.filter((f) => !f.stray);
}

// The <rect> of frame I (which must have an element), for playwright's mouse.
export async function rectOf(page, i) {
  const k = await page.evaluate(`${FRAME_INDEXES}.indexOf(${i})`);
  check(k >= 0, `frame #${i} has an element`);
  return page.locator("#frames > g > rect").nth(k);
}

// The frame index of the <g> with class focus, or -1.
export async function focusedFrame(page) {
  return page.evaluate(`(() => {
    const index = ${FRAME_INDEXES};
    const gs = Array.from(document.querySelectorAll("#frames > g"));
    const k = gs.findIndex((g) => g.classList.contains("focus"));
    return k < 0 ? -1 : index[k];
  })()`);
}

export function hasClass(f, c) {
  return f.cls.split(/\s+/).includes(c);
}

// ---- checks ----

export function checkStatic(fr, meta) {
  check(meta.classes.split(/\s+/).includes("flame"), "root <svg> has class flame");
  for (const k of ["xpad", "fontsize", "fontwidth", "frameheight", "width"]) {
    check(Number.isFinite(meta[k]), `svg data attribute for ${k} present`);
  }
  check(fr.length > 0 && fr[0].name === "all", "frame 0 is the root 'all'");
  const titleRe = meta.diff ? DIFF_TITLE_RE : TITLE_RE;
  let bad = [];
  for (let i = 0; i < fr.length; i++) {
    const f = fr[i];
    // Elements for the frames at least `lazy` px wide, or all; the others are data only.
    if (f.absent !== (f.lazy > 0 && !(f.w >= f.lazy))) bad.push(`#${i} (${f.w} px) ${f.absent ? "has no element" : "has an element"}, lazy ${f.lazy}`);
    if (!f.absent && !/^title,rect(,text)?$/.test(f.kids)) bad.push(`#${i} children ${f.kids}`);
    if (!titleRe.test(f.title)) bad.push(`#${i} title ${JSON.stringify(f.title)}`);
    if (!near(f.depthExact, f.depth, 0.01)) bad.push(`#${i} y not on the frame grid`);
    if (i > 0) {
      const p = fr[f.parent];
      if (!p || f.depth !== p.depth + 1) bad.push(`#${i} depth ${f.depth} under ${p && p.depth}`);
      else if (f.x < p.x - 0.15 || f.x + f.w > p.x + p.w + 0.15) bad.push(`#${i} outside parent`);
    }
    if (f.label !== "" && !near(f.tx, f.x + 3, 0.15)) bad.push(`#${i} label x ${f.tx} rect x ${f.x}`);
    // The writer fits with its unrounded width; accept labels right for either side of 0.05.
    const ok = [f.w, f.w - 0.05, f.w + 0.05].some((w) => expectedLabel(f.name, w, meta) === f.label);
    if (!ok) {
      bad.push(`#${i} label ${JSON.stringify(f.label)} != ${JSON.stringify(expectedLabel(f.name, f.w, meta))}`);
    }
  }
  check(bad.length === 0, `static SVG follows FLAME_DOM.md (${bad.length} problems): ${bad.slice(0, 8).join("; ")}`);
  if (Number.isFinite(meta.total)) {
    const m = titleRe.exec(fr[0].title);
    check(m && near(parseFloat(m[2].replace(/,/g, "")), meta.total, 1e-6), "root count equals data-total");
  }
}

// Whether a frame WIDTH px wide is drawn by the contract: yes, no, or "either" when it is so
// close to the lazy width that the script's rounding decides.
function drawnAt(width, lazy) {
  if (!(lazy > 0) || width >= lazy + 0.01) return true;
  return width <= lazy - 0.01 ? false : "either";
}

// After a zoom to frame z: geometry, classes, labels of every frame. Frames of the subtree are
// drawn when at least `lazy` px wide at the new scale, or when RE (the search) matches them.
export function checkZoomed(fr, orig, z, meta, what, re = null) {
  const full = meta.width - 2 * meta.xpad;
  const scale = full / orig[z].w;
  const anc = new Set(ancestors(orig, z));
  const bad = [];
  for (let i = 0; i < fr.length; i++) {
    const f = fr[i];
    const inside = i >= z && i < orig[z].end;
    if (inside) {
      const ex = meta.xpad + (orig[i].x - orig[z].x) * scale;
      const ew = orig[i].w * scale;
      const drawn = re && re.test(orig[i].name) ? true : drawnAt(ew, f.lazy);
      if (drawn === true && (f.hidden || hasClass(f, "parent"))) bad.push(`#${i} in subtree not shown plainly`);
      if (drawn === false && !f.hidden) bad.push(`#${i} drawn ${ew.toFixed(2)} px wide, narrower than ${f.lazy} px`);
      if (!f.hidden && (!near(f.x, ex, 0.5) || !near(f.w, ew, 0.5))) bad.push(`#${i} at ${f.x}+${f.w}, want ${ex}+${ew}`);
    } else if (anc.has(i)) {
      if (f.hidden || !hasClass(f, "parent")) bad.push(`#${i} ancestor not dimmed`);
      if (!near(f.x, meta.xpad, 0.5) || !near(f.w, full, 0.5)) bad.push(`#${i} ancestor not full width`);
    } else if (!f.hidden) {
      bad.push(`#${i} outside the zoomed range but shown`);
    }
    if (!f.hidden) {
      const want = expectedLabel(orig[i].name, f.w, meta);
      if (f.label !== want) bad.push(`#${i} label ${JSON.stringify(f.label)} want ${JSON.stringify(want)}`);
      if (f.label !== "" && !near(f.tx, f.x + 3, 0.05)) bad.push(`#${i} label x ${f.tx} rect x ${f.x}`);
    }
  }
  check(bad.length === 0, `${what}: every frame placed, classed and labelled (${bad.length} problems): ${bad.slice(0, 8).join("; ")}`);
}

export function checkRestored(fr, orig, what) {
  const bad = [];
  for (let i = 0; i < fr.length; i++) {
    const f = fr[i];
    const o = orig[i];
    if (o.absent) {
      if (!f.hidden) bad.push(`#${i} (${o.w} px, no element at first) is drawn`);
      continue;
    }
    if (f.hidden || hasClass(f, "parent") || hasClass(f, "hide")) bad.push(`#${i} still hidden/dimmed`);
    if (f.x !== o.x || f.w !== o.w) bad.push(`#${i} at ${f.x}+${f.w}, was ${o.x}+${o.w}`);
    if (f.label !== o.label) bad.push(`#${i} label ${JSON.stringify(f.label)} was ${JSON.stringify(o.label)}`);
  }
  check(bad.length === 0, `${what}: original geometry and labels (${bad.length} problems): ${bad.slice(0, 8).join("; ")}`);
}

export async function clickFrame(page, i) {
  await (await rectOf(page, i)).click();
}

// Answers the next window.prompt with TERM, then clicks SELECTOR (or presses KEY).
export async function searchVia(page, term, { selector = "#search", key = null } = {}) {
  let asked = false;
  page.once("dialog", async (d) => {
    asked = d.type() === "prompt";
    await d.accept(term);
  });
  if (key) await page.keyboard.press(key);
  else await page.click(selector);
  await page.waitForFunction(() => true);  // let the dialog handler run
  return asked;
}

// Fills after a search for RE (null: none) while zoomed into frame Z: every match in view is
// drawn in SEARCH_FILL, also those too narrow to be drawn otherwise; the share counts every
// frame of the data, drawn or not.
export function checkSearch(fr, orig, re, matchedText, what, z = 0) {
  const bad = [];
  let narrow = 0;
  for (let i = 0; i < fr.length; i++) {
    const hit = re && re.test(orig[i].name);
    const want = hit ? SEARCH_FILL : orig[i].fill;
    if (hit && i >= z && i < orig[z].end) {
      if (fr[i].hidden) bad.push(`#${i} matches but is not drawn`);
      else if (orig[i].absent) narrow++;
    }
    if (!fr[i].absent && fr[i].fill !== want) bad.push(`#${i} fill ${fr[i].fill} want ${want}`);
  }
  if (narrow) info(`${what}: ${narrow} matches narrower than ${fr[0].lazy} px drawn`);
  check(bad.length === 0, `${what}: fills (${bad.length} problems): ${bad.slice(0, 5).join("; ")}`);
  if (!re) return;
  const { pct, pieces } = matchedShare(orig, re);
  const m = /^Matched: ([0-9.]+)%$/.exec((matchedText || "").trim());
  // 0.1 as asked, plus the rects' own rounding (0.05 px per merged range).
  const tol = 0.1 + (100 * 0.05 * pieces) / orig[0].w;
  check(m && near(parseFloat(m[1]), pct, tol),
    `${what}: #matched ${JSON.stringify(matchedText)} should be ${pct.toFixed(2)}% ± ${tol.toFixed(2)}`);
}

// ---- every interaction on one page ----

// Loads URL and checks the static SVG, hover, zoom, search, keyboard, URL state, thread legend
// and dark mode; returns the SVG's meta data and frames as first read.
export async function flameChecks(page, { url, source }) {
  checkSource(source, "flame.js");
  let t0 = Date.now();
  await page.goto(url, { waitUntil: "load" });
  info(`load ${Date.now() - t0} ms`);
  const meta = await readMeta(page);
  const orig = await readFrames(page);
  buildTree(orig, meta);
  const full = meta.width - 2 * meta.xpad;
  const maxDepth = Math.max(...orig.map((f) => f.depth));
  info(`${decodeURIComponent(new URL(url).pathname)}: ${orig.length} frames, depth ${maxDepth}, ${(source.length / 1024).toFixed(0)} KiB`);
  check(orig.length > 1, "more than one frame");
  checkStatic(orig, meta);
  check(!(await displayed(page, "#unzoom")), "#unzoom hidden at start");

  // Hover.
  const wide = (i) => orig[i].w > 30;
  const hoverIdx = orig.findIndex((f, i) => f.depth >= 2 && wide(i));
  if (check(hoverIdx > 0, "a frame wide enough to hover")) {
    await (await rectOf(page, hoverIdx)).hover();
    check((await text(page, "#details")) === `${meta.nametype} ${orig[hoverIdx].title}`,
      `hover shows "${meta.nametype} TITLE" in #details (got ${JSON.stringify(await text(page, "#details"))})`);
    await page.mouse.move(1, 1);
    check((await text(page, "#details")).trim() === "", "mouse out clears #details");
  }

  // Zoom: the frame at depth >= 2 with the largest subtree that is narrower than the root.
  let z = -1;
  for (let i = 1; i < orig.length; i++) {
    if (orig[i].depth < 2 || orig[i].w > full - 1 || !wide(i)) continue;
    if (z < 0 || orig[i].end - i > orig[z].end - z) z = i;
  }
  if (check(z > 0, "a frame to zoom into")) {
    await clickFrame(page, z);
    const fr = await readFrames(page);
    check(near(fr[z].x, meta.xpad, 0.5) && near(fr[z].w, full, 0.5),
      `zoomed frame spans the width (x=${fr[z].x} w=${fr[z].w}, want ${meta.xpad}+${full})`);
    check(hasClass(fr[0], "parent"), "root has class parent after zoom");
    const outside = orig.findIndex((f, i) => i > 0 && !(i >= z && i < orig[z].end) && !ancestors(orig, z).includes(i));
    check(outside > 0 && fr[outside].hidden, `a frame outside the zoomed range (#${outside}) is hidden`);
    checkZoomed(fr, orig, z, meta, "zoom by click");
    check(await displayed(page, "#unzoom"), "#unzoom visible after zoom");
    const q = query(page);
    check(q.get("x") === orig[z].xAttr && q.get("y") === orig[z].yAttr,
      `URL keeps the zoom: ${page.url()} (want x=${orig[z].xAttr}&y=${orig[z].yAttr})`);

    // A dimmed ancestor zooms out to it.
    const anc = ancestors(orig, z);
    if (anc.length >= 2) {
      await clickFrame(page, anc[0]);
      checkZoomed(await readFrames(page), orig, anc[0], meta, "click on a dimmed ancestor");
    }
    // A deeper zoom creates labels for frames that had none.
    // (Preferably one the SVG wrote as data only: its element is created by a zoom.)
    const now = await readFrames(page);
    const cands = orig.map((f, i) => i).filter((i) => i > z && i < orig[z].end && orig[i].label === "" && !now[i].hidden);
    const unlabelled = cands.find((i) => orig[i].absent) ?? (cands.length ? cands[0] : -1);
    if (unlabelled > 0) {
      await (await rectOf(page, unlabelled)).dispatchEvent("click");
      const fr2 = await readFrames(page);
      checkZoomed(fr2, orig, unlabelled, meta, "zoom into an unlabelled frame");
      check(fr2[unlabelled].label !== "", "a frame without a label gets one when zoomed");
      if (orig[unlabelled].absent) {
        const created = fr2.filter((f) => f.created && !f.hidden).length;
        check(fr2[unlabelled].created, `frame #${unlabelled}, data only at first, has an element after the zoom`);
        info(`zoom into #${unlabelled} (${orig[unlabelled].w} px at first): ${created} frames drawn from the data`);
      }
    }

    await page.click("#unzoom");
    checkRestored(await readFrames(page), orig, "Reset Zoom");
    check(!(await displayed(page, "#unzoom")), "#unzoom hidden after reset");
    check(!query(page).has("x") && !query(page).has("y"), `URL drops x and y after reset: ${page.url()}`);
  }

  // Search: a word shared by many frames.
  const counts = new Map();
  for (const f of orig.slice(1)) {
    for (const w of new Set(f.name.match(/[A-Za-z_][A-Za-z0-9_]{3,}/g) || [])) {
      counts.set(w, (counts.get(w) || 0) + 1);
    }
  }
  // Among the 50 most frequent, prefer one that covers less than the whole graph.
  const words = [...counts.entries()].filter(([w]) => w.toUpperCase() !== w.toLowerCase())
    .sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1)).slice(0, 50).map(([w]) => w);
  const partial = words.filter((w) => matchedShare(orig, new RegExp(escapeRegExp(w))).pct < 99);
  const term = partial.length ? partial[0] : words.length ? words[0] : null;
  if (check(term, "a search term found in the frame names")) {
    const re = new RegExp(escapeRegExp(term));
    check(await searchVia(page, escapeRegExp(term)), "clicking #search prompts");
    checkSearch(await readFrames(page), orig, re, await text(page, "#matched"), `search ${term} (${matchedShare(orig, re).pct.toFixed(2)}%)`);
    check((await text(page, "#search")) === "Reset Search", "#search reads Reset Search");
    check(query(page).get("s") === escapeRegExp(term), `URL keeps the search: ${page.url()}`);

    await page.click("#search");
    checkSearch(await readFrames(page), orig, null, null, "Reset Search");
    check((await text(page, "#search")) === "Search", "#search reads Search again");
    check(!query(page).has("s"), "URL drops s after reset");

    // Case: a swapped-case term, then ignore case.
    const swapped = [...term].map((c) => (c === c.toUpperCase() ? c.toLowerCase() : c.toUpperCase())).join("");
    const reCase = new RegExp(escapeRegExp(swapped));
    const reIc = new RegExp(escapeRegExp(swapped), "i");
    await searchVia(page, escapeRegExp(swapped), { key: "Control+f" });
    checkSearch(await readFrames(page), orig, reCase, await text(page, "#matched"), "Ctrl-F search, case-sensitive");
    await page.click("#ignorecase");
    check(await page.evaluate(() => document.getElementById("ignorecase").classList.contains("show")),
      "#ignorecase has class show when on");
    checkSearch(await readFrames(page), orig, reIc, await text(page, "#matched"), "ignore case re-runs the search");
    check(query(page).get("i") === "1", `URL keeps ignore case: ${page.url()}`);

    // Reload with the search in the URL.
    await page.goto(`${url}?s=${encodeURIComponent(escapeRegExp(swapped))}&i=1`);
    checkSearch(await readFrames(page), orig, reIc, await text(page, "#matched"), "search restored from the URL");
    await page.keyboard.press("Escape");
    checkSearch(await readFrames(page), orig, null, null, "Escape clears the search");

    // F3, then zoom and search together from the URL.
    await page.goto(url);
    await searchVia(page, escapeRegExp(term), { key: "F3" });
    checkSearch(await readFrames(page), orig, re, await text(page, "#matched"), "F3 search");
    if (z > 0) {
      await page.goto(`${url}?x=${orig[z].xAttr}&y=${orig[z].yAttr}&s=${encodeURIComponent(escapeRegExp(term))}`);
      const fr = await readFrames(page);
      checkZoomed(fr, orig, z, meta, "zoom restored from the URL", re);
      checkSearch(fr, orig, re, await text(page, "#matched"), "search restored with zoom", z);
      check(await displayed(page, "#unzoom"), "#unzoom visible after restoring a zoom");
    }
  }

  // Keyboard: towards the children is up in a flame graph, down in an icicle (--inverted).
  await page.goto(url);
  await page.mouse.move(1, 1);
  const focusedIdx = () => focusedFrame(page);
  const toChild = meta.inverted ? "ArrowDown" : "ArrowUp";
  await page.keyboard.press("ArrowDown");
  check((await focusedIdx()) === 0, "first arrow key focuses the root");
  let path = [0];
  for (let d = 0; d < 3; d++) {
    const cur = path[path.length - 1];
    if (orig[cur].end > cur + 1 && !orig[cur + 1].absent) {
      await page.keyboard.press(toChild);
      path.push(cur + 1);
    }
  }
  const f1 = path[path.length - 1];
  check((await focusedIdx()) === f1, `${toChild} walks to the first child (want #${f1}, got #${await focusedIdx()})`);
  check((await text(page, "#details")) === `${meta.nametype} ${orig[f1].title}`, "focused frame's title in #details");
  const right = orig.findIndex((f, i) => i > f1 && f.depth === orig[f1].depth && !f.absent);
  if (right > 0) {
    await page.keyboard.press("ArrowRight");
    check((await focusedIdx()) === right, `ArrowRight moves to the next frame at the same depth (#${right})`);
    await page.keyboard.press("ArrowLeft");
    check((await focusedIdx()) === f1, "ArrowLeft moves back");
  }
  await page.keyboard.press(meta.inverted ? "ArrowUp" : "ArrowDown");
  const up = orig[f1].parent;
  check((await focusedIdx()) === up, `the parent key moves to the parent (#${up})`);
  await page.keyboard.press("Enter");
  checkZoomed(await readFrames(page), orig, up, meta, "Enter zooms to the focused frame");
  check(query(page).get("x") === orig[up].xAttr || up === 0, "URL keeps a keyboard zoom");
  await page.keyboard.press("Escape");
  checkRestored(await readFrames(page), orig, "Escape resets the zoom");

  // Thread legend.
  const legend = await page.evaluate(() =>
    Array.from(document.querySelectorAll("#threads > g"), (g) => ({
      x: parseFloat(g.getAttribute("data-x")),
      title: (g.querySelector("title") || {}).textContent,
    })));
  const roots = orig.filter((f) => f.depth === 1 && hasClass(f, "t")).length;
  info(`${legend.length} thread legend entries, ${roots} thread root frames`);
  for (let k = 0; k < Math.min(legend.length, 3); k++) {
    const t = orig.findIndex((f) => f.depth === 1 && near(f.x, legend[k].x, 0.05));
    if (!check(t > 0, `legend entry ${k} (data-x=${legend[k].x}) names a depth-1 frame`)) continue;
    check(orig[t].title === legend[k].title, `legend entry ${k}'s title is its frame's title`);
    const entry = page.locator("#threads > g").nth(k);
    await entry.hover();
    check(((await text(page, "#details")) || "").includes(legend[k].title), "hovering a legend entry shows its title");
    await entry.click();
    checkZoomed(await readFrames(page), orig, t, meta, `legend entry ${k} zooms to its thread`);
    const active = await page.evaluate(() =>
      Array.from(document.querySelectorAll("#threads > g"), (g) => g.classList.contains("active")));
    check(active.every((a, j) => a === (j === k)), `only legend entry ${k} is active: ${active}`);
  }
  if (legend.length) {
    await page.keyboard.press("Escape");
    check(await page.evaluate(() => !document.querySelector("#threads > g.active")), "no active legend entry after reset");
  }

  // Dark mode.
  const colours = () => page.evaluate(() => {
    const fill = (s) => {
      const e = document.querySelector(s);
      return e ? getComputedStyle(e).fill : null;
    };
    return { bg: fill("#bg"), title: fill("#title"), label: fill("#frames text") };
  });
  await page.emulateMedia({ colorScheme: "light" });
  const light = await colours();
  await page.emulateMedia({ colorScheme: "dark" });
  const dark = await colours();
  check(light.bg !== dark.bg, `#bg fill changes in dark mode (${light.bg} -> ${dark.bg})`);
  check(light.title !== dark.title, `text turns light in dark mode (${light.title} -> ${dark.title})`);
  check(dark.label === "rgb(0, 0, 0)", `frame labels stay dark in dark mode (${dark.label})`);
  await page.emulateMedia({ colorScheme: "light" });

  // Timing (information only): zoom in and out by click, five times each. "sync" is the
  // click handler plus the style and layout it causes (forced by a geometry read); "frame"
  // runs to the next rendered frame, so it includes paint and is quantised by vsync.
  await page.goto(url);
  const target = z > 0 ? z : 1;
  const targetK = await page.evaluate(`${FRAME_INDEXES}.indexOf(${target})`);
  const times = await page.evaluate(async (zi) => {
    const frames = document.getElementById("frames");
    const rect = (k) => frames.querySelectorAll(":scope > g > rect")[k];
    const nextFrame = () => new Promise((r) => requestAnimationFrame(() => setTimeout(r, 0)));
    const click = async (el) => {
      const t = performance.now();
      el.dispatchEvent(new MouseEvent("click", { bubbles: true }));
      frames.getBBox();
      const sync = performance.now() - t;
      await nextFrame();
      return [sync, performance.now() - t];
    };
    const zin = [];
    const zout = [];
    await nextFrame();
    for (let k = 0; k < 5; k++) {
      zin.push(await click(rect(zi)));
      zout.push(await click(document.getElementById("unzoom")));
    }
    return { zin, zout };
  }, targetK);
  const median = (a, k) => a.map((v) => v[k]).sort((p, q) => p - q)[a.length >> 1].toFixed(1);
  info(`zoom into #${target} (subtree of ${orig[target].end - target} of ${orig.length} frames): ` +
    `sync ${median(times.zin, 0)} ms, frame ${median(times.zin, 1)} ms; ` +
    `unzoom: sync ${median(times.zout, 0)} ms, frame ${median(times.zout, 1)} ms (medians of 5)`);
  return { meta, orig };
}

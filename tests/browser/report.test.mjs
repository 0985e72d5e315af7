// The report page (templates/report.html) in Chromium, as users see it: served by
// `hearth serve` over HTTP, and opened from file://. Checks: no console or page errors, no
// request leaves the server (nothing external), every picture renders (its <object> holds a
// drawn SVG), the threads table links into the flamegraph with the thread searched and into the
// scheduler charts with the thread's row highlighted, dark mode; axe-core finds no serious or
// critical violation on the page and its flamegraph.
//
//   node report.test.mjs HEARTH_EXE REPORT_DIR
import path from "node:path";
import { pathToFileURL } from "node:url";
import { chromium } from "playwright-core";
import { ACTION_TIMEOUT_MS, CHROMIUM, CHROMIUM_ARGS, check, die, finish, info, luminance, startServe } from "./lib.mjs";
import { axeCheck } from "./a11y.lib.mjs";

const [exe, dir] = process.argv.slice(2);
if (!exe || !dir) die("usage: node report.test.mjs HEARTH_EXE REPORT_DIR");

async function checkPage(page, url, origin, label) {
  const errors = [];
  page.on("console", (m) => { if (m.type() === "error") errors.push(`console: ${m.text()}`); });
  page.on("pageerror", (e) => errors.push(`page error: ${e.message}`));
  page.on("request", (r) => { if (!r.url().startsWith(origin)) errors.push(`request outside: ${r.url()}`); });
  await page.goto(url, { waitUntil: "load" });
  // Every picture: an <object> whose document is an SVG with drawn content.
  const pictures = await page.evaluate(() =>
    [...document.querySelectorAll("object.picture")].map((o) => {
      const doc = o.contentDocument;
      const svg = doc && doc.documentElement;
      const box = o.getBoundingClientRect();
      // The fallback link inside <object> is laid out only when the resource failed to load.
      const fallback = o.querySelector("a");
      const fb = fallback ? fallback.getBoundingClientRect() : { width: 0, height: 0 };
      return {
        fallbackShown: fb.width > 0 || fb.height > 0,
        readable: !!doc,
        data: o.getAttribute("data"),
        isSvg: !!svg && svg.tagName.toLowerCase() === "svg",
        shapes: svg ? svg.querySelectorAll("rect").length : 0,
        height: box.height,
        width: box.width,
      };
    }));
  check(pictures.length >= 2, `${label}: the page has its pictures (${pictures.map((p) => p.data).join(", ")})`);
  for (const p of pictures) {
    check(!p.fallbackShown, `${label}: ${p.data} loaded (its fallback link is not shown)`);
    // file:// documents are opaque to each other in Chromium: the picture shows, but its DOM
    // can only be read over HTTP.
    if (p.readable || label !== "file://") {
      check(p.isSvg, `${label}: ${p.data} loaded as an SVG document`);
      check(p.shapes > 10, `${label}: ${p.data} drew shapes (${p.shapes} rects)`);
    }
    check(p.height > 150 && p.width > 600, `${label}: ${p.data} has room on the page (${Math.round(p.width)}x${Math.round(p.height)})`);
  }
  const sections = await page.evaluate(() => [...document.querySelectorAll("main > section")].map((s) => s.id));
  for (const id of ["summary", "stacks", "sched", "threads"]) check(sections.includes(id), `${label}: section #${id}`);
  const navOk = await page.evaluate(() =>
    [...document.querySelectorAll("nav a")].every((a) => document.querySelector(a.getAttribute("href"))));
  check(navOk, `${label}: every navigation link points at a section`);
  const rows = await page.evaluate(() => document.querySelectorAll("table.threads tbody tr").length);
  check(rows >= 5, `${label}: the threads table has a row per thread (${rows})`);
  check(errors.length === 0, `${label}: no console errors, page errors or outside requests: ${errors.join(" | ")}`);
  return errors;
}

async function main() {
  const { url, proc } = await startServe(exe, [dir]);
  info(`serving at ${url}`);
  const browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS, headless: true });
  try {
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    context.setDefaultTimeout(ACTION_TIMEOUT_MS);
    const origin = url.replace(/\/$/, "");
    const page = await context.newPage();
    await checkPage(page, url, origin, "http");
    await axeCheck(page, "report page");

    // A thread's name links to the flamegraph with that thread searched (?s=).
    const link = await page.evaluate(() => {
      const a = document.querySelector("table.threads tbody tr td a");
      return a ? { href: a.getAttribute("href"), name: a.textContent } : null;
    });
    check(link && /^flame\.svg\?s=/.test(link.href), `a thread name links into the flamegraph (${link && link.href})`);
    if (link) {
      const flame = await context.newPage();
      await flame.goto(new URL(link.href, url).href, { waitUntil: "load" });
      await flame.waitForFunction(() => {
        const m = document.getElementById("matched");
        return m && /Matched: /.test(m.textContent);
      }, null, { timeout: 10000 }).catch(() => {});
      const matched = await flame.evaluate(() => (document.getElementById("matched") || {}).textContent || "");
      const pct = parseFloat((matched.match(/Matched: ([\d.]+)%/) || [])[1] || "0");
      check(pct > 0 && pct < 100, `the linked flamegraph highlights ${link.name}'s frames (${matched.trim()})`);
      await axeCheck(flame, "the report's flamegraph");
      await flame.close();
    }

    // A thread's tid links to its row of the scheduler charts, which the charts highlight.
    const tidLink = await page.evaluate(() => {
      const a = document.querySelector("table.threads tbody tr td:nth-child(2) a");
      return a ? { href: a.getAttribute("href"), tid: a.textContent } : null;
    });
    check(tidLink && tidLink.href === `sched.svg#thread-${tidLink.tid}`, `a tid links to its scheduler-chart row (${tidLink && tidLink.href})`);
    if (tidLink) {
      const charts = await context.newPage();
      await charts.goto(new URL(tidLink.href, url).href, { waitUntil: "load" });
      const target = await charts.evaluate(() =>
        Array.from(document.querySelectorAll("g.row.target"), (g) => g.id));
      check(target.length === 1 && target[0] === `thread-${tidLink.tid}`, `the linked charts highlight thread ${tidLink.tid}'s row (${JSON.stringify(target)})`);
      await charts.close();
    }

    // Dark mode: the page follows the viewer's preference.
    const light = await page.evaluate(() => getComputedStyle(document.documentElement).backgroundColor);
    await page.emulateMedia({ colorScheme: "dark" });
    const dark = await page.evaluate(() => getComputedStyle(document.documentElement).backgroundColor);
    check(luminance(light) > 0.8 && luminance(dark) < 0.1, `dark mode darkens the page (${light} -> ${dark})`);

    // The same directory from file://.
    const filePage = await context.newPage();
    const fileUrl = pathToFileURL(path.resolve(dir, "index.html")).href;
    await checkPage(filePage, fileUrl, "file:", "file://");
  } finally {
    await browser.close();
    proc.kill("SIGINT");
  }
}

main().then(() => finish(), (e) => finish(e));

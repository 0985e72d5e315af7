// Shared helpers of the headless-browser tests (flame.test.mjs, diff.test.mjs, chart.test.mjs):
// the check counters, Chromium through playwright-core with the flags this machine needs
// (/work/shared/ENVIRONMENT.md), a page that records console errors, page errors and network
// requests, and small DOM readers. Nothing here asserts on time.
import { spawn } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { chromium } from "playwright-core";

export const CHROMIUM = process.env.HEARTH_CHROMIUM || "/usr/bin/chromium";
// How long one action (a hover, a click, a wait for a selector) may take before the test fails:
// playwright's 30 s default was not enough for a hover beside bin/test's other stages and builds
// at a load of 79; a hung page still fails, in 2 minutes.
export const ACTION_TIMEOUT_MS = 120000;
export const CHROMIUM_ARGS = [
  "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
  "--disable-background-networking", "--disable-component-update", "--disable-sync",
];

let passed = 0;
let failed = 0;
export function check(ok, what) {
  if (ok) {
    passed++;
  } else {
    failed++;
    console.log(`FAIL: ${what}`);
  }
  return ok;
}
export function near(a, b, tol) {
  return Math.abs(a - b) <= tol;
}
export function info(s) {
  console.log(`info: ${s}`);
}
export function die(s) {
  console.error(`browser test: ${s}`);
  process.exit(2);
}

// Checks common to every hearth SVG: the script in CDATA, no external resources, and the
// template (if found next to this checkout) free of the CDATA terminator.
export function checkSource(source, template) {
  const tpl = path.join(path.dirname(new URL(import.meta.url).pathname), "..", "..", "templates", template);
  if (fs.existsSync(tpl)) {
    check(!fs.readFileSync(tpl, "utf8").includes("]]>"), `templates/${template} has no CDATA terminator`);
  }
  check(/<script[^>]*>\s*<!\[CDATA\[/.test(source), "the script is embedded in a CDATA section");
  check(!/\b(?:href|src)\s*=\s*["'](?:https?:)?\/\//.test(source), "no external resources referenced");
}

// Runs BODY(page, {url, source, errors}) on SVGPATH in a fresh Chromium page of 1280x900, then
// checks that the page logged no console error, threw no error and made no network request;
// prints the tally and sets the exit code.
export async function runTest(svgPath, name, body) {
  try {
    if (!svgPath) die(`usage: node ${name} FILE.svg`);
    if (!fs.existsSync(svgPath)) die(`no such file: ${svgPath}`);
    if (!fs.existsSync(CHROMIUM)) {
      die(`${CHROMIUM} not found — install Debian's chromium (apt-get install chromium) or set HEARTH_CHROMIUM`);
    }
    const source = fs.readFileSync(svgPath, "utf8");
    const url = pathToFileURL(path.resolve(svgPath)).href;
    const browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS, headless: true });
    try {
      const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
      context.setDefaultTimeout(ACTION_TIMEOUT_MS);
      const page = await context.newPage();
      const errors = [];
      page.on("console", (m) => {
        if (m.type() === "error") errors.push(`console: ${m.text()}`);
      });
      page.on("pageerror", (e) => errors.push(`page error: ${e.message}`));
      page.on("request", (r) => {
        if (!r.url().startsWith("file:")) errors.push(`network request: ${r.url()}`);
      });
      await body(page, { url, source, errors });
      check(errors.length === 0, `no console errors, page errors or network requests: ${errors.join(" | ")}`);
    } finally {
      await browser.close();
    }
  } catch (e) {
    failed++;
    console.log(`FAIL: ${e && e.stack ? e.stack : e}`);
  }
  console.log(`${passed} passed, ${failed} failed`);
  process.exitCode = failed ? 1 : 0;
}

// ---- DOM readers ----

export async function text(page, sel) {
  return page.evaluate((s) => {
    const e = document.querySelector(s);
    return e ? e.textContent : null;
  }, sel);
}

export async function displayed(page, sel) {
  return page.evaluate((s) => {
    const e = document.querySelector(s);
    return !!e && getComputedStyle(e).display !== "none";
  }, sel);
}

export function query(page) {
  return new URL(page.url()).searchParams;
}

// Relative luminance (0 black .. 1 white) of a computed colour "rgb(r, g, b)".
export function luminance(css) {
  const m = /rgba?\((\d+),\s*(\d+),\s*(\d+)/.exec(css || "");
  if (!m) return NaN;
  const lin = (v) => {
    const c = v / 255;
    return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
  };
  return 0.2126 * lin(+m[1]) + 0.7152 * lin(+m[2]) + 0.0722 * lin(+m[3]);
}

// WCAG contrast ratio of two computed colours.
export function contrast(a, b) {
  const la = luminance(a);
  const lb = luminance(b);
  return (Math.max(la, lb) + 0.05) / (Math.min(la, lb) + 0.05);
}

// For tests that drive their own pages (report.test.mjs): counts an exception as a failure,
// then prints the tally and sets the exit code.
export function finish(error) {
  if (error) {
    failed++;
    console.log(`FAIL: ${error && error.stack ? error.stack : error}`);
  }
  console.log(`${passed} passed, ${failed} failed`);
  process.exitCode = failed ? 1 : 0;
}

// Starts `EXE serve ARGS... --port 0 --quiet` and resolves with the URL it prints (with its
// ?token= when it has one) and the process; rejects if the server exits before printing it.
export function startServe(exe, args) {
  return new Promise((resolve, reject) => {
    const p = spawn(exe, ["serve", ...args, "--port", "0", "--quiet"], { stdio: ["ignore", "pipe", "inherit"] });
    let out = "";
    p.stdout.on("data", (d) => {
      out += d;
      const m = out.match(/ at (http:\/\/127\.0\.0\.1:\d+\/\S*)/);
      if (m) resolve({ url: m[1], proc: p });
    });
    p.on("exit", (code) => reject(new Error(`hearth serve exited (${code}) before printing its URL: ${out}`)));
  });
}

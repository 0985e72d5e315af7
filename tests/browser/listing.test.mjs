// `hearth serve`'s listing of reports in Chromium: the rows newest first by their recordings'
// start, each report's summary in its cells, the filter box (words, case aside) hiding the
// other rows and kept in the URL's fragment, a reload with the fragment showing the same rows,
// and a planted report.json's markup shown as text. No console or page errors.
//
//   node listing.test.mjs HEARTH_EXE     (its files in a temporary directory, removed at the end)
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { chromium } from "playwright-core";
import { ACTION_TIMEOUT_MS, CHROMIUM, CHROMIUM_ARGS, check, die, finish, info, startServe } from "./lib.mjs";

const [exe] = process.argv.slice(2);
if (!exe) die("usage: node listing.test.mjs HEARTH_EXE");

function report(dir, name, meta) {
  fs.mkdirSync(path.join(dir, name), { recursive: true });
  fs.writeFileSync(path.join(dir, name, "index.html"), `<!DOCTYPE html><title>${name}</title>`);
  fs.writeFileSync(path.join(dir, name, "report.json"), JSON.stringify(meta));
}

async function main(out) {
  const dir = path.join(out, "reports");
  const stacks = { stacks: { method: "bpf", stall_median_ms: 0.05, stall_max_ms: 0.1 } };
  report(dir, "a-oldest", { started: "2026-01-01T00:00:00Z", host: "web-1", window_s: 10,
                            target: { comm: "nginx", pid: 10 }, collectors: stacks });
  report(dir, "b-newest", { started: "2026-11-20T00:00:00Z", host: "db-7", window_s: 30,
                            target: { comm: "mariadbd", pid: 20 }, collectors: stacks,
                            trigger: { rule: "slow_disk", text: "pcp:disk.dev.await > 50 for 3s", value: 73.5 } });
  report(dir, "c-middle", { started: "2026-06-01T00:00:00Z", host: "<img src=x onerror=alert(1)>",
                            window_s: 5, target: { comm: "mariadbd", pid: 30 } });
  const server = await startServe(exe, [dir]);
  const browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS, headless: true });
  try {
    const page = await browser.newPage();
    page.setDefaultTimeout(ACTION_TIMEOUT_MS);
    const errors = [];
    page.on("console", (m) => { if (m.type() === "error") errors.push(m.text()); });
    page.on("pageerror", (e) => errors.push(String(e)));
    page.on("dialog", (d) => { errors.push(`a dialog opened: ${d.message()}`); d.dismiss(); });
    await page.goto(server.url, { waitUntil: "load" });
    const visible = () => page.$$eval("#reports tbody tr", (rows) =>
      rows.filter((r) => !r.hidden).map((r) => r.querySelector("a").textContent));
    const rows = await visible();
    info(`rows: ${rows.join(", ")}`);
    check(JSON.stringify(rows) === JSON.stringify(["b-newest", "c-middle", "a-oldest"]),
          `newest first by start: ${rows}`);
    const heads = await page.$$eval("#reports th", (th) => th.map((t) => t.textContent));
    check(JSON.stringify(heads) === JSON.stringify(["Report", "Started", "Target", "Host", "Rule fired", "Window", "Sampling cost"]),
          `the columns: ${heads}`);
    const first = await page.$$eval("#reports tbody tr:first-child td", (td) => td.map((t) => t.textContent));
    check(first[1] === "2026-11-20 00:00:00 UTC", `started: ${first[1]}`);
    check(first[2] === "mariadbd (pid 20)", `target: ${first[2]}`);
    check(first[4] === "slow_disk: pcp:disk.dev.await > 50 for 3s (was 73.5)", `rule: ${first[4]}`);
    check(first[6] === "bpf, stall median 0.05 ms, max 0.1 ms", `cost: ${first[6]}`);
    check((await page.$$("#reports img")).length === 0, "a planted host is text, not markup");
    check(await page.evaluate(() => document.body.textContent.includes("<img src=x onerror=alert(1)>")),
          "the planted host is shown as written");

    await page.fill("#filter", "MARIADBD  db-7");
    check(JSON.stringify(await visible()) === JSON.stringify(["b-newest"]), `every word, case aside: ${await visible()}`);
    const url = page.url();
    check(url.endsWith("#" + encodeURIComponent("MARIADBD  db-7")), `the filter is in the URL: ${url}`);
    await page.fill("#filter", "mariadbd");
    check(JSON.stringify(await visible()) === JSON.stringify(["b-newest", "c-middle"]), `one word: ${await visible()}`);

    const again = await browser.newPage();
    again.setDefaultTimeout(ACTION_TIMEOUT_MS);
    await again.goto(page.url(), { waitUntil: "load" });
    const restored = await again.$$eval("#reports tbody tr", (rows) =>
      rows.filter((r) => !r.hidden).map((r) => r.querySelector("a").textContent));
    check(JSON.stringify(restored) === JSON.stringify(["b-newest", "c-middle"]), `restored from the URL: ${restored}`);
    check(await again.inputValue("#filter") === "mariadbd", "the box shows the filter");
    await page.fill("#filter", "");
    check((await visible()).length === 3, "an empty filter shows every report");
    check(!page.url().includes("#"), `no fragment without a filter: ${page.url()}`);
    check(errors.length === 0, `no errors: ${errors.join(" | ")}`);
  } finally {
    await browser.close();
    server.proc.kill("SIGINT");
  }
}

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "hearth-serve-listing-"));
main(tmp)
  .then(() => finish(), (e) => finish(e))
  .finally(() => fs.rmSync(tmp, { recursive: true, force: true }));

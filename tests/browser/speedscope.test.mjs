// The real speedscope app (npm's speedscope, its dist/release/index.html opened from file://)
// loads hearth's speedscope JSON: no console error, page error or network request; one profile
// per thread of the folded input, each named as its thread; and each profile's total (the
// weight of its one top frame, start_thread, shown in the hover tooltip of the Left Heavy view)
// is the sum of that thread's counts in the folded file.
//   node speedscope.test.mjs PROFILE.speedscope.json INPUT.folded
import fs from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { chromium } from "playwright-core";
import { CHROMIUM, CHROMIUM_ARGS, check, die, finish, info } from "./lib.mjs";

const [jsonPath, foldedPath] = process.argv.slice(2);
if (!jsonPath || !foldedPath) die("usage: node speedscope.test.mjs PROFILE.speedscope.json INPUT.folded");
const here = path.dirname(new URL(import.meta.url).pathname);
const app = path.join(here, "node_modules", "speedscope", "dist", "release", "index.html");
if (!fs.existsSync(app)) die(`no speedscope app at ${app} (npm ci in tests/browser)`);

// Each thread's total: the counts of the lines under its root.
const totals = new Map();
for (const line of fs.readFileSync(foldedPath, "utf8").split("\n")) {
  const m = /^(.*) (\d+)$/.exec(line);
  if (!m) continue;
  const root = m[1].split(";")[0];
  totals.set(root, (totals.get(root) || 0) + Number(m[2]));
}
const threads = [...totals.keys()].sort();

async function main() {
  const browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS, headless: true });
  try {
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    const errors = [];
    page.on("console", (m) => {
      if (m.type() === "error") errors.push(`console: ${m.text()}`);
    });
    page.on("pageerror", (e) => errors.push(`page error: ${e.message}`));
    page.on("request", (r) => {
      if (!r.url().startsWith("file:") && !r.url().startsWith("data:")) errors.push(`network request: ${r.url()}`);
    });
    await page.goto(pathToFileURL(app).href);
    // The landing page's file input (its "Browse" button).
    await page.setInputFiles("input#file", jsonPath);
    await page.waitForFunction(() => document.querySelectorAll("canvas").length > 0, null, { timeout: 30000 });
    await page.getByText("Left Heavy").click();  // the button reads "⬅️Left Heavy"
    const body = await page.evaluate(() => document.body.innerText);
    check(!/Something went wrong|Unrecognized format/i.test(body), `the app read the file: ${body.slice(0, 200)}`);
    for (let i = 0; i < threads.length; i++) {
      // The toolbar names the profile shown and how many there are: "NAME (i/N)".
      await page.waitForFunction((n) => document.body.innerText.includes(n), threads[i], { timeout: 10000 })
        .catch(() => {});
      const bar = await page.evaluate(() => document.body.innerText);
      check(bar.includes(`${threads[i]}`) && bar.includes(`(${i + 1}/${threads.length})`),
            `profile ${i + 1} is ${threads[i]} of ${threads.length}: ${bar.slice(0, 200)}`);
      // Hover the top row of the flame graph (below the minimap; one frame, the thread's whole
      // width): its tooltip says "WEIGHT (100%) start_thread". Rows are looked for, not assumed.
      let tip = "";
      for (let y = 100; y < 400 && !tip.includes("start_thread"); y += 4) {
        await page.mouse.move(640, y);
        await page.mouse.move(641, y + 1);
        tip = await page.evaluate(() => document.body.innerText);
      }
      const m = /([\d,.]+)\s*\((?:100(?:\.0+)?)%\)\s*start_thread/.exec(tip);
      check(m && Number(m[1].replace(/,/g, "")) === totals.get(threads[i]),
            `${threads[i]}: the top frame's weight is ${m ? m[1] : "not shown"}, the folded total ${totals.get(threads[i])}`);
      if (i + 1 < threads.length) await page.keyboard.press("n");  // the next profile
    }
    check(errors.length === 0, `no console errors, page errors or network requests: ${errors.join(" | ")}`);
    info(`${threads.length} profiles checked`);
  } finally {
    await browser.close();
  }
}

main().then(() => finish(), (e) => finish(e));

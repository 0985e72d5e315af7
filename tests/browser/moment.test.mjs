// The heatmap page's moment view (templates/heatmap.js) groups exactly as the C++ moment view
// (render/moment, `hearth heatmap --moment T -o -`): for every sample of the golden inputs
// (tests/golden/inputs/heat: lock and I/O waits, D, R, S, another state, an empty stack, a thread
// that left, a duration tie that JavaScript's toFixed rounds up), the page opened at ?m=T shows
// the same groups in the same order, with the same head lines ("N threads waiting here · ..."),
// stacks and thread lines (durations included) as the text the CLI writes.
//
//   node moment.test.mjs HEARTH_EXE OUTDIR INPUT...
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { chromium } from "playwright-core";
import { CHROMIUM, CHROMIUM_ARGS, check, die, finish, info } from "./lib.mjs";

const [exe, outDir, ...inputs] = process.argv.slice(2);
if (!exe || !outDir || !inputs.length) die("usage: node moment.test.mjs HEARTH_EXE OUTDIR INPUT...");
fs.mkdirSync(outDir, { recursive: true });

// The sample times of a timed samples file, as seconds text with the ns exact.
function sampleTimes(file) {
  const out = [];
  for (const line of fs.readFileSync(file, "utf8").split("\n")) {
    const f = line.split("\t");
    if (f[0] === "r") {
      const ns = BigInt(f[1]);
      out.push(`${ns / 1000000000n}.${String(ns % 1000000000n).padStart(9, "0")}`);
    }
  }
  return out;
}
// The groups part of the CLI's text: everything after the two head lines.
function cliGroups(file, seconds) {
  const text = execFileSync(exe, ["heatmap", file, "--moment", seconds, "-o", "-"], { encoding: "utf8" });
  return text.split("\n").slice(2).join("\n");
}

let error = null;
const browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS, headless: true });
try {
  const page = await browser.newPage({ viewport: { width: 1200, height: 900 } });
  const errors = [];
  page.on("pageerror", (e) => errors.push(String(e)));
  for (const file of inputs) {
    const html = path.join(outDir, path.basename(file, ".samples.txt") + ".html");
    execFileSync(exe, ["heatmap", file, "-o", html], { stdio: "ignore" });
    let compared = 0;
    for (const seconds of sampleTimes(file)) {
      await page.goto(pathToFileURL(html).href + "?m=" + seconds);
      await page.waitForFunction(() => window.hearthHeatmap && window.hearthHeatmap.lastMoment(), null,
                                 { timeout: 30000 });
      const shown = await page.evaluate(() => {
        const lines = [""];
        for (const g of document.querySelectorAll("#moment details.group")) {
          lines.push(g.querySelector("summary").textContent);
          for (const li of g.querySelectorAll("ol.stack li")) lines.push("    " + li.textContent);
          for (const li of g.querySelectorAll("ul.threads li")) lines.push("  " + li.textContent);
          lines.push("");
        }
        return lines.join("\n");
      });
      const expected = cliGroups(file, seconds);
      if (!check(shown === expected, `${path.basename(file)} at ${seconds} s: the page's moment view equals the CLI's`)) {
        info("page:\n" + shown + "\ncli:\n" + expected);
      }
      compared++;
    }
    check(compared > 0, `${path.basename(file)}: samples compared`);
    info(`${path.basename(file)}: ${compared} moments compared`);
  }
  check(errors.length === 0, "no page errors: " + errors.join("; "));
} catch (e) {
  error = e;
} finally {
  await browser.close();
}
finish(error);

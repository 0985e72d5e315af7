// A Trace Event Format consumer reads hearth's Chrome trace: the speedscope app (npm's
// speedscope, dist/release/index.html from file://) imports `hearth convert DIR OUT.trace.json`
// "as Trace Event Format profile" with no console error, page error or network request; its own
// model, exported as speedscope JSON, has one profile per thread of the trace, named by the
// trace's process_name and thread_name, and per thread, per event name (the state, or "slot"),
// the same number of complete events and the same total time as the trace's X events. (No
// Perfetto trace processor or UI can be installed here; speedscope is the reader at hand.)
//   node trace.test.mjs OUT.trace.json OUTDIR
import fs from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { chromium } from "playwright-core";
import { CHROMIUM, CHROMIUM_ARGS, check, die, finish, info } from "./lib.mjs";

const [tracePath, outDir] = process.argv.slice(2);
if (!tracePath || !outDir) die("usage: node trace.test.mjs OUT.trace.json OUTDIR");
const here = path.dirname(new URL(import.meta.url).pathname);
const app = path.join(here, "node_modules", "speedscope", "dist", "release", "index.html");
if (!fs.existsSync(app)) die(`no speedscope app at ${app} (npm ci in tests/browser)`);

// The trace's threads: "PROCESS (pid P), THREAD (tid T)" as speedscope names a thread's profile,
// and per event name its count and total µs.
const trace = JSON.parse(fs.readFileSync(tracePath, "utf8"));
const processNames = new Map();
const threadNames = new Map();
for (const e of trace.traceEvents) {
  if (e.ph === "M" && e.name === "process_name") processNames.set(e.pid, e.args.name);
  if (e.ph === "M" && e.name === "thread_name") threadNames.set(`${e.pid}/${e.tid}`, e.args.name);
}
const want = new Map();  // profile name -> Map(event name -> {count, us})
for (const e of trace.traceEvents) {
  if (e.ph !== "X") continue;
  const name = `${processNames.get(e.pid)} (pid ${e.pid}), ${threadNames.get(`${e.pid}/${e.tid}`)} (tid ${e.tid})`;
  if (!want.has(name)) want.set(name, new Map());
  const byName = want.get(name);
  const s = byName.get(e.name) || { count: 0, us: 0 };
  s.count++;
  s.us += e.dur;
  byName.set(e.name, s);
}

async function main() {
  const browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS, headless: true });
  try {
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 }, acceptDownloads: true });
    const errors = [];
    let importedAs = "";
    page.on("console", (m) => {
      if (m.type() === "error") errors.push(`console: ${m.text()}`);
      if (m.text().startsWith("Importing as")) importedAs = m.text();
    });
    page.on("pageerror", (e) => errors.push(`page error: ${e.message}`));
    page.on("request", (r) => {
      if (!r.url().startsWith("file:") && !r.url().startsWith("data:") && !r.url().startsWith("blob:")) {
        errors.push(`network request: ${r.url()}`);
      }
    });
    await page.goto(pathToFileURL(app).href);
    await page.setInputFiles("input#file", tracePath);  // the landing page's "Browse" input
    await page.waitForFunction(() => document.querySelectorAll("canvas").length > 0, null, { timeout: 30000 });
    const body = await page.evaluate(() => document.body.innerText);
    check(!/Something went wrong|Unrecognized format/i.test(body), `the app read the file: ${body.slice(0, 200)}`);
    check(importedAs === "Importing as Trace Event Format profile", `imported as the Trace Event Format: "${importedAs}"`);

    // Its model, as it exports it.
    const [download] = await Promise.all([page.waitForEvent("download"), page.getByText("Export").click()]);
    const exported = path.join(outDir, "exported.speedscope.json");
    await download.saveAs(exported);
    const model = JSON.parse(fs.readFileSync(exported, "utf8"));
    const names = model.profiles.map((p) => p.name).sort();
    check(JSON.stringify(names) === JSON.stringify([...want.keys()].sort()),
          `one profile per thread, named by process and thread: ${names.join(" | ")}`);
    for (const p of model.profiles) {
      const expect = want.get(p.name);
      if (!expect) continue;
      check(p.type === "evented" && p.unit === "microseconds", `${p.name}: evented, in µs (${p.type}, ${p.unit})`);
      // A frame is named "NAME {ARGS}": per NAME, the open/close pairs and their time.
      const got = new Map();
      const open = new Map();
      for (const ev of p.events) {
        const frame = model.shared.frames[ev.frame].name;
        const name = frame.replace(/ \{.*$/, "");
        if (ev.type === "O") {
          open.set(ev.frame, ev.at);
        } else {
          const s = got.get(name) || { count: 0, us: 0 };
          s.count++;
          s.us += ev.at - open.get(ev.frame);
          got.set(name, s);
        }
      }
      for (const [name, w] of expect) {
        const g = got.get(name) || { count: 0, us: 0 };
        // µs as doubles on both sides: equal to well under a ns a event.
        check(g.count === w.count && Math.abs(g.us - w.us) <= 1e-3 * w.count,
              `${p.name} ${name}: ${g.count} events, ${g.us} µs in speedscope; ${w.count}, ${w.us} µs in the trace`);
      }
      check(got.size === expect.size, `${p.name}: the same event names (${[...got.keys()].join(", ")})`);
    }
    check(errors.length === 0, `no console errors, page errors or network requests: ${errors.join(" | ")}`);
    info(`${model.profiles.length} thread profiles checked`);
  } finally {
    await browser.close();
  }
}

main().then(() => finish(), (e) => finish(e));

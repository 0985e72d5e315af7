// `hearth serve --token` in Chromium: the printed URL's `?token=` is traded for a cookie and a
// redirect to the same address without it, opened directly or through a link on another site
// (localhost is another site than 127.0.0.1), and the page's own picture then loads with the
// cookie. A SameSite=Strict cookie failed the second case: the redirected request got a 401.
//
//   node token.test.mjs HEARTH_EXE     (its files in a temporary directory, removed at the end)
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { chromium } from "playwright-core";
import { CHROMIUM, CHROMIUM_ARGS, check, die, finish, info, startServe } from "./lib.mjs";

const [exe] = process.argv.slice(2);
if (!exe) die("usage: node token.test.mjs HEARTH_EXE");
const token = "t0k3n-" + Math.random().toString(36).slice(2);

async function main(out) {
  const reports = path.join(out, "reports"), site = path.join(out, "other-site");
  fs.mkdirSync(path.join(reports, "r1"), { recursive: true });
  fs.mkdirSync(site, { recursive: true });
  fs.writeFileSync(path.join(reports, "r1", "index.html"),
                   '<!DOCTYPE html><title>r1</title><p id="t">report r1</p><img id="p" src="p.svg">');
  fs.writeFileSync(path.join(reports, "r1", "p.svg"),
                   '<svg xmlns="http://www.w3.org/2000/svg" width="40" height="20"><rect width="40" height="20"/></svg>');
  const server = await startServe(exe, [reports, "--token", token]);
  check(server.url.endsWith(`/?token=${token}`), `the printed URL carries the token: ${server.url}`);
  const base = server.url.replace(/\/\?token=.*$/, "");
  const target = `${base}/r1/?view=x&token=${token}`;
  fs.writeFileSync(path.join(site, "link.html"), `<a id="l" href="${target}">the report</a>`);
  const other = await startServe(exe, [site]);
  const linkPage = other.url.replace("127.0.0.1", "localhost") + "link.html";

  const browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS, headless: true });
  try {
    for (const how of ["opened directly", "followed from another site"]) {
      const ctx = await browser.newContext();
      const page = await ctx.newPage();
      const statuses = [];
      page.on("response", (r) => { if (r.url().startsWith(base)) statuses.push(`${r.status()} ${r.url()}`); });
      if (how === "opened directly") {
        await page.goto(target, { waitUntil: "load" });
      } else {
        await page.goto(linkPage, { waitUntil: "load" });
        await Promise.all([page.waitForURL(`${base}/**`, { waitUntil: "load" }), page.click("#l")]);
      }
      info(`${how}: ${statuses.join(", ")}`);
      check(page.url() === `${base}/r1/?view=x`, `${how}: the address has no token (${page.url()})`);
      check((await page.textContent("#t").catch(() => null)) === "report r1", `${how}: the report is shown`);
      const width = await page.evaluate(() => document.getElementById("p")?.naturalWidth ?? 0).catch(() => 0);
      check(width === 40, `${how}: the page's picture loads with the cookie (width ${width})`);
      check(!statuses.some((s) => s.startsWith("401")), `${how}: no 401`);
      await ctx.close();
    }
  } finally {
    await browser.close();
    server.proc.kill("SIGINT");
    other.proc.kill("SIGINT");
  }
}

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "hearth-serve-token-"));
main(tmp)
  .then(() => finish(), (e) => finish(e))
  .finally(() => fs.rmSync(tmp, { recursive: true, force: true }));

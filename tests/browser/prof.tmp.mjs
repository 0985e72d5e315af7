import { chromium } from "playwright-core";
import { pathToFileURL } from "node:url";
const browser = await chromium.launch({ executablePath: "/usr/bin/chromium", args: ["--headless","--no-sandbox","--disable-gpu","--disable-quic","--no-first-run","--disable-background-networking","--disable-component-update","--disable-sync"] });
const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
page.on("pageerror", e => console.log("ERR", e.message));
await page.goto(pathToFileURL(process.argv[2]).href); await page.waitForTimeout(1500);
const target = Number(process.argv[3] || 4270);
const r = await page.evaluate(async (zi) => {
  const frames = document.getElementById("frames");
  const nextFrame = () => new Promise((r) => requestAnimationFrame(() => setTimeout(r, 0)));
  const out = [];
  await nextFrame();
  for (let k = 0; k < 4; k++) {
    for (const el of [frames.children[zi].querySelector("rect"), document.getElementById("unzoom") || frames.children[0].querySelector("rect")]) {
      const t0 = performance.now();
      el.dispatchEvent(new MouseEvent("click", { bubbles: true }));
      const t1 = performance.now();
      document.documentElement.getBoundingClientRect(); 
      const t2 = performance.now();
      frames.getBBox();
      const t3 = performance.now();
      await nextFrame();
      const t4 = performance.now();
      out.push([t1 - t0, t2 - t1, t3 - t2, t4 - t3].map(v => v.toFixed(1)).join(" "));
    }
  }
  return out;
}, target);
console.log("js style layout(bbox) rest-to-frame\n" + r.join("\n"));
await browser.close();

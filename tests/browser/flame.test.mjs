// Headless-browser test of the flamegraph script and style (templates/flame.js, flame.css) on
// one SVG that follows templates/FLAME_DOM.md: node flame.test.mjs FILE.svg (run.sh wraps it).
// The checks live in flame.lib.mjs (shared with diff.test.mjs) and a11y.lib.mjs (keyboard, table,
// colour-blind palette, axe-core); nothing asserts on time.
import { runTest } from "./lib.mjs";
import { flameChecks } from "./flame.lib.mjs";
import { a11yChecks } from "./a11y.lib.mjs";

await runTest(process.argv[2], "flame.test.mjs", async (page, ctx) => {
  const { meta, orig } = await flameChecks(page, ctx);
  await a11yChecks(page, { url: ctx.url, meta, orig });
});

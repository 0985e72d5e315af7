// Headless-browser test of the flamegraph script and style (templates/flame.js, flame.css) on
// one SVG that follows templates/FLAME_DOM.md: node flame.test.mjs FILE.svg (run.sh wraps it).
// The checks live in flame.lib.mjs (shared with diff.test.mjs); nothing asserts on time.
import { runTest } from "./lib.mjs";
import { flameChecks } from "./flame.lib.mjs";

await runTest(process.argv[2], "flame.test.mjs", (page, ctx) => flameChecks(page, ctx));

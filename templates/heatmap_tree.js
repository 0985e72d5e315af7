// The aggregation behind a range's flamegraph (part of the heatmap page's script, see
// heatmap_data.js): the tree of every (thread root + stack) path, built once, and the inclusive
// count of every path over a time range, for the current mode and thread filter.
// ---- the flamegraph of a range ----

// The tree of every (thread root + stack) path in the recording, built once: node 0 is
// "all"; children have larger ids than their parents; kids sorted by frame (sibling order).
let tree = null;
function buildTree() {
  if (tree) return tree;
  let cap2 = 1024;
  let parent = new Int32Array(cap2), frame = new Int32Array(cap2), depth = new Int32Array(cap2);
  let n = 1;
  parent[0] = -1;
  frame[0] = -1;
  const child = new Map();
  function kid(p, f) {
    const key = p * nFrames + f;
    let id = child.get(key);
    if (id !== undefined) return id;
    if (n === cap2) {
      cap2 *= 2;
      const grow = (a) => { const b = new Int32Array(cap2); b.set(a); return b; };
      parent = grow(parent);
      frame = grow(frame);
      depth = grow(depth);
    }
    id = n++;
    parent[id] = p;
    frame[id] = f;
    depth[id] = depth[p] + 1;
    child.set(key, id);
    return id;
  }
  const leafOf = new Map();
  const runLeaf = new Int32Array(nRuns);
  for (let k = 0; k < nRuns; k++) {
    const t = runThread[k], s = runStack[k];
    const key = t * nStacks + s;
    let leaf = leafOf.get(key);
    if (leaf === undefined) {
      leaf = 0;
      for (let i = rootStart[t]; i < rootStart[t + 1]; i++) leaf = kid(leaf, rootFrames[i]);
      for (let i = stackStart[s]; i < stackStart[s + 1]; i++) leaf = kid(leaf, stackFrames[i]);
      leafOf.set(key, leaf);
    }
    runLeaf[k] = leaf;
  }
  // Children lists, sorted by frame index.
  const kids = new Uint32Array(n + 1);
  for (let i = 1; i < n; i++) kids[parent[i] + 1]++;
  for (let i = 0; i < n; i++) kids[i + 1] += kids[i];
  const fill = kids.slice(0, n);
  const list = new Uint32Array(Math.max(0, n - 1));
  for (let i = 1; i < n; i++) list[fill[parent[i]]++] = i;
  for (let i = 0; i < n; i++) {
    if (kids[i + 1] - kids[i] > 1) {
      const part = list.subarray(kids[i], kids[i + 1]);
      part.sort((a, b) => frame[a] - frame[b]);
    }
  }
  tree = { n: n, parent: parent, frame: frame, depth: depth, kids: kids, list: list,
           runLeaf: runLeaf };
  return tree;
}

// The first run that starts at or after round R (runs are in start order).
function firstRunFrom(r) {
  let lo = 0, hi = nRuns;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (runStart[mid] < r) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

// Inclusive counts of every node for the range [from, to) (ns): a Float64Array. Reads only the
// runs in the range: those open at its start (one per thread at most), then those starting in it.
function rangeTotals(r) {
  const T = buildTree();
  const total = new Float64Array(T.n);
  const r0 = roundAt(r[0]), r1 = roundAt(r[1]);
  for (let t = 0; t < nThreads && r0 < r1; t++) {
    const k = runAt(t, r0);
    if (k < 0 || runStart[k] >= r0 || !runCounted(k)) continue;
    total[T.runLeaf[k]] += roundsOf(threadProc[t], r0, Math.min(r1, runEnd[k]));
  }
  for (let k = firstRunFrom(r0); k < nRuns && runStart[k] < r1; k++) {
    if (!runCounted(k)) continue;
    total[T.runLeaf[k]] += roundsOf(threadProc[runThread[k]], runStart[k], Math.min(r1, runEnd[k]));
  }
  for (let i = T.n - 1; i > 0; i--) total[T.parent[i]] += total[i];
  return total;
}

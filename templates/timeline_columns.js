// hearth timeline page: each lane's time per state class in each device column of the view
// (accumulate), from its intervals or, zoomed out, from its level-of-detail summaries (a
// pyramid per lane and one for the all-threads lane, built once after decoding); and the cache
// of each lane's columns, so a pan computes only the columns it brings in.

// Summaries for zoomed-out views: a lane with many intervals gets its time per class in
// buckets of span / 2^k (about two intervals to a bucket at the finest level, then each level
// half as many), as fractions of a bucket in 1/65535. A view whose columns are wider than a
// level's buckets reads that level instead of the intervals: a frame costs about the columns,
// not the intervals. Slots are summed in too.
const PYR_MIN = 512;   // intervals: fewer are read directly
const PYR_TOP = 64;    // buckets of the coarsest level
const pyrLevels = new Array(nLanes).fill(null);
const pyrBucket = new Float64Array(nLanes);
(function buildSummaries() {
  let lane = 0;
  tasks.push(() => {
    for (; lane < nLanes && !stepOver(); lane++) {
      const n = ivFirst[lane + 1] - ivFirst[lane];
      if (n < PYR_MIN || !(span > 0)) continue;
      let nb = PYR_TOP;
      while (nb * 2 <= n / 2) nb *= 2;
      const bucket = span / nb;
      const f = new Float64Array(nb * 6);
      accumulate(lane, f, nb, 0, bucket, true);
      const levels = [];
      let level = new Uint16Array(nb * 6);
      for (let i = 0; i < f.length; i++) level[i] = Math.min(65535, Math.round(f[i] * 65535));
      levels.push(level);
      while (nb > PYR_TOP) {
        nb /= 2;
        const up = new Uint16Array(nb * 6);
        for (let b = 0; b < nb; b++) {
          for (let k = 0; k < 6; k++) up[b * 6 + k] = (level[b * 12 + k] + level[b * 12 + 6 + k] + 1) >> 1;
        }
        levels.push(up);
        level = up;
      }
      pyrLevels[lane] = levels;
      pyrBucket[lane] = bucket;
    }
    return lane >= nLanes;
  });
})();
// The all-threads lane's summary, the same way: every lane summed, at MERGED_BUCKETS buckets
// (then halved), so a zoomed-out view computes only the lanes it shows. Valid while no
// thread filter is set (with one, the lanes shown are summed each frame).
const MERGED_BUCKETS = 16384;
let mergedLevels = null;
const mergedBucket = span / MERGED_BUCKETS;
if (nIv > 50000 && span > 0) {
  const f = new Float64Array(MERGED_BUCKETS * 6);
  let lane = 0;
  tasks.push(() => {
    for (; lane < nLanes && !stepOver(); lane++) {
      accumulate(lane, f, MERGED_BUCKETS, 0, mergedBucket, false);
    }
    if (lane < nLanes) return false;
    // Threads, not a bucket's fraction: kept as floats.
    const levels = [Float32Array.from(f)];
    let nb = MERGED_BUCKETS, level = levels[0];
    while (nb > PYR_TOP) {
      nb /= 2;
      const up = new Float32Array(nb * 6);
      for (let i = 0; i < up.length; i++) {
        const b = (i / 6) | 0, k = i - b * 6;
        up[i] = (level[b * 12 + k] + level[b * 12 + 6 + k]) / 2;
      }
      levels.push(up);
      level = up;
    }
    mergedLevels = levels;
    return true;
  });
}

// Adds lane L's time per class in each device column of the view to BUF (fractions of a column).
// DIRECT: from the intervals whatever the zoom (what the summaries are built from).
function accumulate(l, buf, cols, v0d, colNs, direct) {
  const levels = pyrLevels[l];
  if (!direct && levels && colNs >= pyrBucket[l]) {
    let j = 0, bucket = pyrBucket[l];
    while (j + 1 < levels.length && bucket * 2 <= colNs) {
      j++;
      bucket *= 2;
    }
    accumulateBuckets(levels[j], bucket, buf, cols, v0d, colNs, 1 / 65535);
    return;
  }
  const a0 = ivFirst[l], a1 = ivFirst[l + 1];
  const vEnd = v0d + cols * colNs;
  // The first interval ending after the view's start.
  let lo = a0, hi = a1;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (ivEnd[mid] <= v0d) lo = mid + 1;
    else hi = mid;
  }
  const last = cols - 1;
  for (let i = lo; i < a1; i++) {
    const s0 = ivStart[i];
    if (s0 >= vEnd) break;
    const fs = (s0 > v0d ? s0 - v0d : 0) / colNs;
    const e0 = ivEnd[i];
    const fe = ((e0 < vEnd ? e0 : vEnd) - v0d) / colNs;
    const k = ivClass[i];
    let cs = fs | 0;
    let ce = fe | 0;
    if (ce > last) ce = last;
    if (cs > last) continue;
    if (cs === ce) {
      buf[cs * 6 + k] += fe - fs;
    } else {
      buf[cs * 6 + k] += cs + 1 - fs;
      for (let c = cs + 1; c < ce; c++) buf[c * 6 + k] += 1;
      buf[ce * 6 + k] += fe - ce;
    }
  }
  const b0 = slFirst[l], b1 = slFirst[l + 1];
  for (let i = b0; i < b1; i++) {
    const s0 = slStart[i], e0 = s0 + slotNs;
    if (e0 <= v0d || s0 >= vEnd) continue;
    const fs = (s0 > v0d ? s0 - v0d : 0) / colNs;
    const fe = ((e0 < vEnd ? e0 : vEnd) - v0d) / colNs;
    let cs = fs | 0, ce = fe | 0;
    if (ce > last) ce = last;
    for (let c = cs; c <= ce; c++) {
      const part = (c === ce ? fe : c + 1) - (c === cs ? fs : c);
      if (part <= 0) continue;
      for (let k = 0; k < 6; k++) buf[c * 6 + k] += part * slTimes[i * 6 + k] / slotNs;
    }
  }
}

// Adds a summary level's buckets (BUCKET ns each, no wider than a column) to BUF.
// UNIT: what a stored value of 1 is worth.
function accumulateBuckets(level, bucket, buf, cols, v0d, colNs, unit) {
  const nb = level.length / 6;
  const vEnd = v0d + cols * colNs;
  const b0 = Math.max(0, Math.floor(v0d / bucket)), b1 = Math.min(nb, Math.ceil(vEnd / bucket));
  const last = cols - 1;
  for (let b = b0; b < b1; b++) {
    const o = b * 6;
    const s0 = b * bucket, e0 = s0 + bucket;
    const fs = (s0 > v0d ? s0 - v0d : 0) / colNs;
    const fe = ((e0 < vEnd ? e0 : vEnd) - v0d) / colNs;
    const cs = fs | 0;
    let ce = fe | 0;
    if (ce > last) ce = last;
    // A bucket's share of its time in each class, spread over the columns it overlaps (two
    // at most) by the overlap, in columns.
    if (cs === ce) {
      const part = (fe - fs) * unit;
      for (let k = 0; k < 6; k++) {
        const v = level[o + k];
        if (v) buf[cs * 6 + k] += v * part;
      }
    } else {
      const p1 = (cs + 1 - fs) * unit, p2 = (fe - ce) * unit;
      for (let k = 0; k < 6; k++) {
        const v = level[o + k];
        if (!v) continue;
        buf[cs * 6 + k] += v * p1;
        buf[ce * 6 + k] += v * p2;
      }
    }
  }
}

// Each lane's columns as last computed, kept so that a pan by whole columns computes only the
// columns it brings in, and a scroll none: lane l's are cache[l * cols * 6, ...), computed for
// the view starting at cacheV0[l] with the geometry of generation cacheGen[l].
const CACHE_MAX = 6e6;  // floats; more lanes x columns than this: no cache
let cache = null, cacheCols = 0, cacheColNs = 0, cacheGeneration = 0;
const cacheV0 = new Float64Array(nLanes);
const cacheGen = new Uint32Array(nLanes);
let shiftTmp = null;
function laneColumns(l, cols, colNs) {
  if (nLanes * cols * 6 > CACHE_MAX) {
    acc.fill(0);
    accumulate(l, acc, cols, v0, colNs);
    return acc;
  }
  if (!cache || cacheCols !== cols || Math.abs(cacheColNs - colNs) > colNs * 1e-9) {
    if (!cache || cache.length !== nLanes * cols * 6) cache = new Float32Array(nLanes * cols * 6);
    cacheCols = cols;
    cacheColNs = colNs;
    cacheGeneration++;
  }
  const mine = cache.subarray(l * cols * 6, (l + 1) * cols * 6);
  const d = (v0 - cacheV0[l]) / colNs;
  const k = Math.round(d);
  if (cacheGen[l] === cacheGeneration && Math.abs(d - k) < 1e-3 && Math.abs(k) < cols) {
    if (k === 0) return mine;
    // Keep the columns still in view; compute those the pan brings in.
    const n = Math.abs(k);
    if (!shiftTmp || shiftTmp.length < n * 6) shiftTmp = new Float64Array(cols * 6);
    const tmp = shiftTmp.subarray(0, n * 6);
    tmp.fill(0);
    if (k > 0) {
      mine.copyWithin(0, n * 6);
      accumulate(l, tmp, n, v0 + (cols - n) * colNs, colNs);
      mine.set(tmp, (cols - n) * 6);
    } else {
      mine.copyWithin(n * 6, 0, (cols - n) * 6);
      accumulate(l, tmp, n, v0, colNs);
      mine.set(tmp, 0);
    }
  } else {
    acc.fill(0);
    accumulate(l, acc, cols, v0, colNs);
    mine.set(acc);
  }
  cacheV0[l] = v0;
  cacheGen[l] = cacheGeneration;
  return mine;
}

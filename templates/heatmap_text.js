// Text for people: numbers, times, durations, HTML escaping, thread labels (part of the heatmap
// page's script, see heatmap_data.js). printf-compatible where the flamegraph titles need it.
// ---- text ----

function thousands(n) {
  return String(Math.round(n)).replace(/\B(?=(\d{3})+(?!\d))/g, ",");
}
// printf("%.2f", v): round half to even on exact ties (toFixed rounds them up).
// A tie is V exactly (2n + 1) / 200, which a double holds only as an odd multiple of 1/8.
function fixed2(v) {
  const e = v * 8;  // exact: a power of two
  if (Number.isInteger(e) && Math.abs(e) % 2 === 1 && Math.abs(e) < 1e12) {
    const f = Math.floor(v * 100);  // v * 100 = 12.5 * e, exact
    return ((f % 2 === 0 ? f : f + 1) / 100).toFixed(2);
  }
  return v.toFixed(2);
}
function ppText(v) {
  let s = fixed2(v);
  if (v > 0) s = "+" + s;
  if (s === "-0.00" || s === "+0.00") s = "0.00";
  return s;
}
function seconds(ns) {
  let s = (ns / NS).toFixed(9).replace(/0+$/, "").replace(/\.$/, "");
  return s === "-0" ? "0" : s;
}
function durationText(ns) {
  if (ns >= 3600 * NS) return (ns / 3600 / NS).toFixed(2).replace(/\.?0+$/, "") + " h";
  if (ns >= 60 * NS) return (ns / 60 / NS).toFixed(2).replace(/\.?0+$/, "") + " min";
  if (ns >= NS) return (ns / NS).toFixed(3).replace(/\.?0+$/, "") + " s";
  if (ns >= 1e6) return (ns / 1e6).toFixed(3).replace(/\.?0+$/, "") + " ms";
  if (ns >= 1e3) return (ns / 1e3).toFixed(1).replace(/\.?0+$/, "") + " \u00b5s";
  return ns + " ns";
}
function wallClock(ns) {
  if (D.real_ns === "0") return "";
  const ms = Number(BigInt(D.real_ns) / 1000000n) + ns / 1e6;
  const d = new Date(ms);
  if (isNaN(d.getTime())) return "";
  const pad = (v, n) => String(v).padStart(n || 2, "0");
  return pad(d.getHours()) + ":" + pad(d.getMinutes()) + ":" + pad(d.getSeconds()) + "." +
    pad(d.getMilliseconds(), 3);
}
function timeText(ns) {  // for people: ms precision (the URL keeps ns)
  const w = wallClock(ns);
  return (ns / NS).toFixed(3).replace(/\.?0+$/, "") + " s" + (w ? " (" + w + ")" : "");
}
function esc(s) {
  return String(s).replace(/[&<>"]/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;" })[c]);
}
const ANNOTATION = /_\[[kwij]\]$/;
function stripAnnotation(name) {
  return ANNOTATION.test(name) ? name.slice(0, -4) : name;
}
function threadLabel(t) {
  return rootText[t] + " (tid " + D.threads.tid[t] + ")";
}

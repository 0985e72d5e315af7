// hearth timeline page: numbers, durations, times and names as text.

// ---- text ----

function thousands(n) {
  return String(Math.round(n)).replace(/\B(?=(\d{3})+(?!\d))/g, ",");
}
function trimmed(v, decimals) {
  let s = v.toFixed(decimals);
  if (s.indexOf(".") >= 0) s = s.replace(/0+$/, "").replace(/\.$/, "");
  return s;
}
// As render/timeline/time_text.cpp duration_text.
function durationText(ns) {
  if (ns < 1000) return Math.round(ns) + " ns";
  if (ns < 1e6) return trimmed(ns / 1e3, ns < 1e4 ? 2 : 1) + " \u00b5s";
  if (ns < 1e9) return trimmed(ns / 1e6, ns < 1e7 ? 2 : 1) + " ms";
  if (ns < 60e9) return trimmed(ns / 1e9, ns < 1e10 ? 2 : 1) + " s";
  const s = Math.round(ns / 1e9);
  if (s < 3600) return Math.floor(s / 60) + " min" + (s % 60 ? " " + (s % 60) + " s" : "");
  const min = Math.round(s / 60);
  return Math.floor(min / 60) + " h" + (min % 60 ? " " + (min % 60) + " min" : "");
}
// What the page calls 0 s: the samples' time 0 (as on the heatmap's page), else the window's
// start. Times inside the page are ns since the domain's start; what people read is
// seconds since ORIGIN.
const ORIGIN = D.origin || 0;
// T (ns since the domain's start) in seconds since time 0 with DECIMALS decimals (ns exact).
function secondsText(t, decimals) {
  t = Math.round(t - ORIGIN);
  const neg = t < 0;
  t = Math.abs(t);
  const whole = Math.floor(t / NS);
  let s = String(whole);
  if (decimals > 0) s += "." + String(t - whole * NS).padStart(9, "0").slice(0, decimals);
  return (neg ? "-" : "") + s;
}
function decimalsFor(step) {
  let d = 0;
  for (let unit = NS; d < 9 && step % unit !== 0; unit /= 10) d++;
  return d;
}
// The wall clock at T (local time), when the samples gave it.
const realSec = D.real_ns !== "0" ? Number(D.real_ns.slice(0, -9) || "0") : 0;
const realFrac = D.real_ns !== "0" ? Number(D.real_ns.slice(-9)) : 0;
function wallClock(t, digits) {
  if (D.real_ns === "0") return "";
  const total = realFrac + Math.round(t);
  const sec = realSec + Math.floor(total / NS);
  const frac = total - Math.floor(total / NS) * NS;
  const d = new Date(sec * 1000);
  const two = (v) => String(v).padStart(2, "0");
  let s = two(d.getHours()) + ":" + two(d.getMinutes()) + ":" + two(d.getSeconds());
  if (digits > 0) s += "." + String(frac).padStart(9, "0").slice(0, digits);
  return s;
}
function who(index) {
  if (index < 0) return "";
  const tid = whoTid[index];
  if (tid === 0) return "the idle task";
  const name = whoName[index];
  return name ? name + " (tid " + tid + ")" : "tid " + tid;
}
function laneWho(l) {
  return laneName[l] === "tid " + laneTid[l] ? laneName[l] : laneName[l] + " (tid " + laneTid[l] + ")";
}
// Process P's title in full, with its pid ("": none recorded): the hover says it.
function procTitle(p) {
  const title = D.procs.title ? D.procs.title[p] : "";
  return title ? title + " (pid " + D.procs.pid[p] + ")" : "";
}
function procText(p) {
  const pid = D.procs.pid[p], name = D.procs.name[p];
  if (!pid) return "process not known";
  return name ? name + " (pid " + pid + ")" : "pid " + pid;
}

// hearth report's time view (when.html, render/report/when_page.h): the report's time pictures
// (the heatmap page, the timeline page, the metric charts) framed in one page, on one time axis.
// The page holds the state, a range t = [FROM, TO] and an instant at, in seconds since the
// samples' time 0 (the heatmap's and the timeline's 0 s), keeps it in its address
// (#t=FROM,TO&at=T), and sends it to every picture; a picture whose user changes it sends it
// here, and it goes on to the others (templates/time_link.js says the messages). Framed
// documents, even from file:// (opaque origins), talk through postMessage only.
(function () {
  "use strict";
  const C = JSON.parse(document.getElementById("when-data").textContent);
  const $ = (id) => document.getElementById(id);
  const fromEl = $("from"), toEl = $("to"), atEl = $("at");
  let state = { t: null, at: null };
  const frames = [];  // {name, el, ready, linked, marks}

  // ---- text ----

  function secondsText(v) {  // ns exact, no exponent
    const s = v.toFixed(9).replace(/0+$/, "").replace(/\.$/, "");
    return s === "-0" ? "0" : s;
  }
  function durationText(s) {
    if (s >= 60) return (s / 60).toFixed(2).replace(/\.?0+$/, "") + " min";
    if (s >= 1) return s.toFixed(3).replace(/\.?0+$/, "") + " s";
    if (s >= 1e-3) return (s * 1e3).toFixed(3).replace(/\.?0+$/, "") + " ms";
    return (s * 1e6).toFixed(1).replace(/\.?0+$/, "") + " \u00b5s";
  }
  function wallClock(s) {  // local time, ms; "" when the samples did not record their clock
    if (!C.real_ns || C.real_ns === "0") return "";
    const d = new Date(Number(BigInt(C.real_ns) / 1000000n) + s * 1000);
    if (isNaN(d.getTime())) return "";
    const pad = (v, n) => String(v).padStart(n || 2, "0");
    return pad(d.getHours()) + ":" + pad(d.getMinutes()) + ":" + pad(d.getSeconds()) + "." + pad(d.getMilliseconds(), 3);
  }
  function timeText(s) {
    const w = wallClock(s);
    return secondsText(Math.round(s * 1e6) / 1e6) + " s" + (w ? " (" + w + ")" : "");
  }

  // ---- state and address ----

  function parseSeconds(text) {
    const s = String(text || "").trim();
    return /^-?(\d+\.?\d*|\.\d+)$/.test(s) ? parseFloat(s) : NaN;
  }
  // A state as the address keeps it: ns exact (so a link restores exactly the same).
  function valid(t, at) {
    const ok = (v) => typeof v === "number" && isFinite(v);
    const ns = (v) => Math.round(v * 1e9) / 1e9;
    const range = Array.isArray(t) && ok(t[0]) && ok(t[1]) ? [ns(t[0]), ns(t[1])] : null;
    return { t: range && range[1] > range[0] ? range : null, at: ok(at) ? ns(at) : null };
  }
  function parseHash(hash) {
    const p = new URLSearchParams(hash.replace(/^#/, ""));
    const range = (p.get("t") || "").split(",");
    const t = range.length === 2 ? [parseSeconds(range[0]), parseSeconds(range[1])] : null;
    return valid(t, parseSeconds(p.get("at")));
  }
  function hashOf(s) {
    const parts = [];
    if (s.t) parts.push("t=" + secondsText(s.t[0]) + "," + secondsText(s.t[1]));
    if (s.at !== null) parts.push("at=" + secondsText(s.at));
    return parts.length ? "#" + parts.join("&") : "";
  }
  function send(f) {
    if (!f.ready || !f.linked) return;
    f.el.contentWindow.postMessage({ hearth: "when", kind: "state", t: state.t, at: state.at, real_ns: C.real_ns || null }, "*");
  }
  // The new state, from SOURCE (a picture's window; null: this page): shown here, kept in the
  // address, sent to every other picture.
  function setState(s, source) {
    state = s;
    const hash = hashOf(s);
    if (location.hash !== hash) {
      try {
        history.replaceState(history.state, "", location.pathname + location.search + hash);
      } catch (e) {
        // A sandboxed page may refuse to rewrite its address: the state stays in the page.
      }
    }
    showState();
    for (const f of frames) if (f.el.contentWindow !== source) send(f);
  }
  function showState() {
    const parts = [];
    if (state.t) parts.push("Range " + timeText(state.t[0]) + " \u2013 " + timeText(state.t[1]) + " (" + durationText(state.t[1] - state.t[0]) + ")");
    else parts.push("No range: the whole recording");
    parts.push(state.at !== null ? "instant " + timeText(state.at) : "no instant");
    $("state").textContent = parts.join(" \u00b7 ") + ".";
    if (document.activeElement !== fromEl) fromEl.value = state.t ? secondsText(state.t[0]) : "";
    if (document.activeElement !== toEl) toEl.value = state.t ? secondsText(state.t[1]) : "";
    if (document.activeElement !== atEl) atEl.value = state.at !== null ? secondsText(state.at) : "";
    const heat = frames.find((f) => f.name === "heat");
    $("to-flame").hidden = !(heat && state.t && heat.marks.flame !== undefined);
    $("to-moment").hidden = !(heat && state.at !== null && heat.marks.moment !== undefined);
  }

  // ---- the form ----

  function fromForm() {
    const a = fromEl.value.trim(), b = toEl.value.trim(), at = atEl.value.trim();
    const t = a || b ? [parseSeconds(a), parseSeconds(b)] : null;
    const s = valid(t, parseSeconds(at));
    const rangeOk = !t || s.t !== null, atOk = !at || s.at !== null;
    fromEl.setCustomValidity(rangeOk ? "" : "seconds, FROM below TO");
    toEl.setCustomValidity(rangeOk ? "" : "seconds, FROM below TO");
    atEl.setCustomValidity(atOk ? "" : "seconds");
    if (rangeOk && atOk) setState(s, null);
  }
  $("when-controls").addEventListener("submit", fromForm);
  for (const el of [fromEl, toEl, atEl]) el.addEventListener("change", fromForm);
  $("clear").addEventListener("click", () => setState({ t: null, at: null }, null));
  // Scrolls to picture NAME (at its part MARK, as the picture said where its parts start), just
  // under the bar.
  function jump(name, mark) {
    const f = frames.find((x) => x.name === name);
    if (!f || (mark && f.marks[mark] === undefined)) return;
    const target = mark ? f.el : f.el.previousElementSibling;
    const top = target.getBoundingClientRect().top + window.scrollY + (mark ? f.marks[mark] : 0) -
      document.querySelector("header").offsetHeight - 8;
    window.scrollTo({ top: Math.max(0, top) });
  }
  $("to-flame").addEventListener("click", () => jump("heat", "flame"));
  $("to-moment").addEventListener("click", () => jump("heat", "moment"));
  window.addEventListener("hashchange", () => setState(parseHash(location.hash), null));

  // ---- the pictures ----

  window.addEventListener("message", function (e) {
    const m = e.data;
    const f = frames.find((x) => x.el.contentWindow === e.source);
    if (!f || !m || m.hearth !== "when") return;
    if (m.kind === "ready") {
      f.ready = true;
      send(f);
    } else if (m.kind === "size" && typeof m.height === "number") {
      f.marks = m.marks || {};
      if (f.name !== "timeline") f.el.style.height = Math.ceil(m.height) + 4 + "px";
      // The metric charts (the MMV series', the allocation rate's) are as wide as they draw.
      if ((f.name === "metrics" || f.name === "alloc") && typeof m.width === "number") f.el.style.width = Math.ceil(m.width) + 4 + "px";
      showState();
    } else if (m.kind === "state" && f.linked) {
      setState(valid(m.t, m.at), e.source);
    }
  });
  $("info").textContent = C.info;
  const notes = $("notes");
  notes.textContent = (C.notes || []).join(" ");
  notes.hidden = !notes.textContent;
  state = parseHash(location.hash);
  for (const p of C.pictures) {
    const h = document.createElement("h2");
    h.textContent = p.title;
    const el = document.createElement("iframe");
    el.className = "picture " + p.name;
    el.title = p.title;
    frames.push({ name: p.name, el: el, ready: false, linked: p.linked, marks: {} });
    $("pictures").append(h, el);
    const go = document.createElement("button");
    go.type = "button";
    go.textContent = { heat: "Heatmap", timeline: "Timeline", metrics: "Metrics", alloc: "Allocation rate" }[p.name] || p.name;
    go.addEventListener("click", () => jump(p.name, null));
    $("jumps").append(go);
  }
  // The heatmap loads first, alone (frames of one site share the page's renderer: a timeline of
  // a million switches parsed beside it would triple its opening time), the others once it has
  // loaded and been drawn (when the renderer is next idle).
  const first = C.pictures.findIndex((p) => p.name === "heat");
  const rest = () => C.pictures.forEach((p, i) => { if (i !== first) frames[i].el.src = p.src; });
  const whenIdle = (fn) => (window.requestIdleCallback ? requestIdleCallback(fn, { timeout: 1000 }) : setTimeout(fn, 50));
  if (first >= 0) {
    frames[first].el.addEventListener("load", () => whenIdle(rest), { once: true });
    frames[first].el.src = C.pictures[first].src;
  } else {
    rest();
  }
  showState();

  // For tests (tests/browser/when.test.mjs): read-only views.
  window.hearthWhen = {
    state: () => ({ t: state.t, at: state.at }),
    ready: () => frames.filter((f) => f.linked).every((f) => f.ready),
    frames: () => frames.map((f) => ({ name: f.name, ready: f.ready, linked: f.linked, marks: f.marks })),
  };
})();

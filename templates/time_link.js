// One time axis across a report's pictures: the link between a time picture (the heatmap page,
// the timeline page, the metric charts' SVG) framed in the report's time view (when.html,
// templates/when.js) and that view. Shared, unchanged, by every picture: heat_page.cpp and
// timeline_page.cpp join it into their page's script, the SVG writer embeds it in the metric
// charts (scene kind "time_link"). Outside a frame, or framed by any other page, it does nothing:
// a picture opened alone behaves as it always did.
//
// The state: t = [FROM, TO] (a time range) or null, at = T (an instant) or null, in seconds on
// one clock: since the samples' time 0 (the heatmap's and the timeline's 0 s; the time view
// gives the metric charts the samples' wall clock, real_ns, to put their CLOCK_REALTIME times
// on it). Messages, posted with targetOrigin "*" (file:// pages are opaque origins to each
// other), all {hearth: "when", kind, ...}:
//   picture -> view: "ready" (once), "size" {width, height, marks} (the picture's size in css px
//     and where its named parts start: {flame: y, moment: y}), "state" {t, at} (the user changed
//     the range or the instant here);
//   view -> picture: "state" {t, at, real_ns} (apply it, do not send it back).
// hearthTimeLink(apply, describe): apply(state) puts a state on the picture; describe() returns
// the picture's {t, at} as it is now. Returns {linked(), changed(), realNs()}: changed() is called
// after every change of the picture's state (it posts only what differs from the last state
// applied or posted, so a state the view sent never echoes back).
function hearthTimeLink(apply, describe) {
  const framed = window.parent && window.parent !== window;
  let host = null;    // the view's window, once it spoke
  let seen = "";      // the last state applied or posted, as text
  let realNs = null;  // the samples' wall clock at 0 s (ns since 1970, decimal text), or null
  let applying = false;
  const key = (s) => JSON.stringify([s.t ? [round9(s.t[0]), round9(s.t[1])] : null,
                                     s.at === null || s.at === undefined ? null : round9(s.at)]);
  function round9(v) {  // seconds, ns exact
    return Math.round(v * 1e9) / 1e9;
  }
  function post(msg) {
    msg.hearth = "when";
    try {
      (host || window.parent).postMessage(msg, "*");
    } catch (e) {
      // A parent that went away: nothing to tell.
    }
  }
  function valid(s) {
    const num = (v) => typeof v === "number" && isFinite(v);
    const t = Array.isArray(s.t) && s.t.length === 2 && num(s.t[0]) && num(s.t[1]) && s.t[1] > s.t[0] ? s.t : null;
    return { t: t, at: num(s.at) ? s.at : null };
  }
  if (framed) {
    window.addEventListener("message", function (e) {
      const m = e.data;
      if (e.source !== window.parent || !m || m.hearth !== "when" || m.kind !== "state") return;
      host = e.source;
      if (typeof m.real_ns === "string" && /^[1-9]\d*$/.test(m.real_ns)) realNs = m.real_ns;
      applying = true;
      try {
        apply(valid(m));
      } finally {
        applying = false;
      }
      seen = key(describe());
    });
    post({ kind: "ready" });
    // The picture's size, whenever it changes (an SVG's is its own: once).
    let last = "";
    const body = document.body;
    const measure = function () {
      const marks = {};
      for (const el of document.querySelectorAll("[data-when-mark]")) {
        marks[el.getAttribute("data-when-mark")] = Math.round(el.getBoundingClientRect().top + window.scrollY);
      }
      let width, height;
      if (body) {
        const box = body.getBoundingClientRect();
        const style = getComputedStyle(body);
        width = Math.max(document.documentElement.scrollWidth, box.right + (parseFloat(style.marginRight) || 0));
        height = box.bottom + window.scrollY + (parseFloat(style.marginBottom) || 0);
      } else {
        const box = document.documentElement.getBoundingClientRect();
        width = box.width;
        height = box.height;
      }
      const size = { kind: "size", marks: marks, width: Math.ceil(width), height: Math.ceil(height) };
      const text = JSON.stringify(size);
      if (text !== last) {
        last = text;
        post(size);
      }
    };
    measure();
    if (body && window.ResizeObserver) new ResizeObserver(measure).observe(body);
  }
  return {
    linked: () => host !== null,
    realNs: () => realNs,
    changed: function () {
      if (!host || applying) return;
      const s = valid(describe());
      const k = key(s);
      if (k === seen) return;
      seen = k;
      post({ kind: "state", t: s.t, at: s.at });
    },
  };
}

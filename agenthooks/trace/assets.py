"""The stylesheet and script inlined into every timeline page (the page loads nothing)."""

CSS = """
:root { --ok-run: #3d6fb6; --ok-turn: #9aa5b1; --ok-model: #7b61ff; --ok-tool: #2a9d8f;
  --ok-event: #6c757d; --error: #d62828; --denied: #f18f01; --recovered: #e9c46a;
  --grid: #e6e8eb; --text: #1d232b; --muted: #5f6b7a; --label-width: 340px; }
* { box-sizing: border-box; }
body { margin: 0; font: 13px/1.4 system-ui, -apple-system, "Segoe UI", sans-serif;
  color: var(--text); background: #fff; }
header { padding: 14px 18px 8px; border-bottom: 1px solid var(--grid); }
h1 { font-size: 17px; margin: 0 0 4px; }
.summary { color: var(--muted); }
.summary .bad { color: var(--error); font-weight: 600; }
.warning { margin-top: 8px; padding: 6px 10px; background: #fff4e5; border: 1px solid #f5c07a;
  border-radius: 4px; }
.legend { display: flex; gap: 14px; margin-top: 8px; color: var(--muted); flex-wrap: wrap; }
.legend i { display: inline-block; width: 12px; height: 10px; border-radius: 2px;
  margin-right: 4px; vertical-align: -1px; }
#timeline { padding: 4px 18px 40px; }
.axis { position: sticky; top: 0; background: #fff; z-index: 2; display: flex;
  border-bottom: 1px solid var(--grid); height: 22px; }
.axis .spacer { width: var(--label-width); flex: none; }
.axis .ticks { position: relative; flex: 1; }
.tick { position: absolute; top: 4px; font-size: 11px; color: var(--muted);
  transform: translateX(-50%); white-space: nowrap; }
.lane { margin-top: 12px; }
.lane-title { font-size: 13px; margin: 0 0 2px; padding: 3px 6px; background: #f3f5f7;
  border-radius: 3px; font-family: ui-monospace, SFMono-Regular, Menlo, monospace; }
.row { display: flex; align-items: center; height: 22px; }
.row:hover { background: #f7f9fb; }
.label { width: var(--label-width); flex: none; white-space: nowrap; overflow: hidden;
  text-overflow: ellipsis; padding-right: 8px; }
.label.status-error, .label.status-aborted { color: var(--error); font-weight: 600; }
.label.status-denied { color: #b35c00; font-weight: 600; }
.track { position: relative; flex: 1; height: 100%;
  background-image: linear-gradient(to right, var(--grid) 1px, transparent 1px);
  background-size: 10% 100%; }
.span { position: absolute; top: 4px; height: 14px; min-width: 3px; border-radius: 3px;
  cursor: default; overflow: hidden; color: #fff; font-size: 10px; line-height: 14px;
  padding: 0 3px; white-space: nowrap; }
.span.kind-run { background: var(--ok-run); }
.span.kind-turn { background: var(--ok-turn); }
.span.kind-model { background: var(--ok-model); }
.span.kind-tool { background: var(--ok-tool); }
.span.kind-event { background: var(--ok-event); }
.span.status-error, .span.status-aborted { background: var(--error); }
.span.status-denied { background: var(--denied); }
.span.status-recovered { background: var(--recovered); color: var(--text);
  box-shadow: inset 0 0 0 2px var(--error); }
.span.status-open { opacity: .6; border: 1px dashed var(--text); }
.span.status-paused { background: var(--recovered); border: 1px dashed var(--text); }
.span.selected { outline: 2px solid var(--text); outline-offset: 1px; }
.span.point { min-width: 12px; margin-left: -6px; border-radius: 7px; padding: 0; }
.mark { position: absolute; top: 3px; width: 9px; height: 9px; margin-left: -4px;
  transform: rotate(45deg); background: var(--muted); z-index: 1; }
.mark.status-error { background: var(--error); }
.mark.status-denied { background: var(--denied); }
.mark.status-paused { background: var(--recovered); }
#tooltip { position: fixed; z-index: 10; max-width: 560px; background: #1d232b; color: #f5f7fa;
  padding: 8px 10px; border-radius: 5px; font-size: 12px; pointer-events: none;
  box-shadow: 0 4px 14px rgba(0,0,0,.25); }
#tooltip[hidden] { display: none; }
#tooltip .title { font-weight: 600; margin-bottom: 4px; }
#tooltip .err { color: #ff8a8a; }
#tooltip dl { margin: 0; display: grid; grid-template-columns: max-content 1fr; gap: 1px 10px; }
#tooltip dt { color: #aab4c0; }
#tooltip dd { margin: 0; white-space: pre-wrap; word-break: break-word; max-height: 9em;
  overflow: hidden; font-family: ui-monospace, SFMono-Regular, Menlo, monospace; }
"""

JS = """
(function () {
  "use strict";
  var data = JSON.parse(document.getElementById("trace-data").textContent);
  var root = document.getElementById("timeline");
  var tooltip = document.getElementById("tooltip");
  var total = data.duration_ms > 0 ? data.duration_ms : 1;
  var byId = {};

  function el(tag, cls, text) {
    var node = document.createElement(tag);
    if (cls) node.className = cls;
    if (text !== undefined && text !== null) node.textContent = String(text);
    return node;
  }
  function pct(ms) { return (100 * ms / total).toFixed(4) + "%"; }
  function fmt(ms) {
    if (Math.round(ms * 10) / 10 < 10) return ms.toFixed(1) + " ms";
    if (Math.round(ms) < 1000) return ms.toFixed(0) + " ms";
    return (ms / 1000).toFixed(2) + " s";
  }

  var axis = el("div", "axis");
  axis.appendChild(el("div", "spacer"));
  var ticks = el("div", "ticks");
  for (var i = 0; i <= 10; i++) {
    var tick = el("span", "tick", fmt(total * i / 10));
    tick.style.left = (i * 10) + "%";
    if (i === 0) tick.style.transform = "none";
    if (i === 10) tick.style.transform = "translateX(-100%)";
    ticks.appendChild(tick);
  }
  axis.appendChild(ticks);
  root.appendChild(axis);

  var lanes = [];
  var laneOf = {};
  data.spans.forEach(function (s) {
    byId[s.id] = s;
    if (!(s.branch in laneOf)) {
      var section = el("section", "lane");
      section.setAttribute("data-branch", s.branch);
      section.appendChild(el("h2", "lane-title", s.branch || "(outside any run)"));
      laneOf[s.branch] = section;
      lanes.push(section);
    }
    var row = el("div", "row");
    var label = el("div", "label status-" + s.status, s.label);
    label.style.paddingLeft = (6 + 14 * s.lane_depth) + "px";
    var track = el("div", "track");
    // a span that took no time (a call denied before it ran, an ask) is a point on its time
    var bar = el("div", "span kind-" + s.kind + " status-" + s.status +
                 (s.duration_ms > 0 ? "" : " point"),
                 s.duration_ms >= total / 12 ? fmt(s.duration_ms) : "");
    bar.setAttribute("data-span-id", s.id);
    bar.setAttribute("data-kind", s.kind);
    bar.setAttribute("data-status", s.status);
    bar.setAttribute("data-label", s.label);
    bar.setAttribute("aria-label", s.label + " (" + fmt(s.duration_ms) + ")" +
                     (s.error ? "\\n" + s.error : ""));
    bar.style.left = pct(s.start_ms);
    bar.style.width = pct(s.duration_ms);
    track.appendChild(bar);
    s.marks.forEach(function (m, index) {
      var mark = el("div", "mark status-" + m.status);
      mark.setAttribute("data-span-id", s.id);
      mark.setAttribute("data-mark", index);
      mark.setAttribute("aria-label", m.text);
      mark.style.left = pct(m.at_ms);
      track.appendChild(mark);
    });
    row.appendChild(label);
    row.appendChild(track);
    laneOf[s.branch].appendChild(row);
  });
  lanes.forEach(function (lane) { root.appendChild(lane); });

  function show(s, mark, x, y) {
    tooltip.textContent = "";
    tooltip.appendChild(el("div", "title", mark ? mark.text : s.label));
    if (s.error && !mark) tooltip.appendChild(el("div", "err", s.error));
    var dl = el("dl");
    function add(key, value) {
      if (value === undefined || value === null || value === "") return;
      dl.appendChild(el("dt", null, key));
      dl.appendChild(el("dd", null, value));
    }
    if (mark) {
      add("event", mark.event);
      add("at", "+" + fmt(mark.at_ms));
    } else {
      add("kind", s.kind);
      add("branch", s.branch);
      add("status", s.status);
      add("start", "+" + fmt(s.start_ms));
      add("duration", fmt(s.duration_ms));
      if (s.tokens) add("tokens", s.tokens[0] + " in / " + s.tokens[1] + " out");
      Object.keys(s.details).forEach(function (key) { add(key, s.details[key]); });
    }
    tooltip.appendChild(dl);
    tooltip.hidden = false;
    var left = Math.min(x + 14, window.innerWidth - tooltip.offsetWidth - 8);
    var top = y + 16 + tooltip.offsetHeight > window.innerHeight ?
      y - tooltip.offsetHeight - 10 : y + 16;
    tooltip.style.left = Math.max(4, left) + "px";
    tooltip.style.top = Math.max(4, top) + "px";
  }
  root.addEventListener("mousemove", function (event) {
    var target = event.target.closest ? event.target.closest(".span, .mark") : null;
    if (!target) { tooltip.hidden = true; return; }
    var s = byId[target.getAttribute("data-span-id")];
    var index = target.getAttribute("data-mark");
    show(s, index === null ? null : s.marks[Number(index)], event.clientX, event.clientY);
  });
  root.addEventListener("mouseleave", function () { tooltip.hidden = true; });

  // #span-ID opens that span's details on load: a link to one span of a recording
  function openFromHash() {
    var match = /^#span-(\\d+)$/.exec(window.location.hash);
    var bar = match && document.querySelector('.span[data-span-id="' + match[1] + '"]');
    var previous = document.querySelector(".span.selected");
    if (previous) previous.classList.remove("selected");
    if (!bar) return;
    bar.classList.add("selected");
    bar.scrollIntoView({block: "center"});
    var box = bar.getBoundingClientRect();
    show(byId[match[1]], null, box.left, box.bottom);
  }
  window.addEventListener("hashchange", openFromHash);
  openFromHash();
  document.body.setAttribute("data-rendered", String(data.spans.length));
})();
"""

__all__ = ["CSS", "JS"]

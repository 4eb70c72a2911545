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
                     (s.error ? "\n" + s.error : ""));
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
    var match = /^#span-(\d+)$/.exec(window.location.hash);
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

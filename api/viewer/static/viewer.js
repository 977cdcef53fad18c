/* Referee replay viewer: draws a match's frames as SVG and steps through them.
 *
 * Framework-free, no build step, no network: the page gives the frames document (see
 * referee/frames) inline as JSON, or a URL to fetch it from. Everything is drawn from the
 * frames alone: the board's geometry comes from the board facts in the document (boards are
 * data users can replace), the pieces from each frame's spectator view.
 *
 * Keys, while the viewer or one of its controls has the focus (a click in it gives it): <- / ->
 * (or , / .) step, Home / End, space play/pause (a focused button keeps space: it presses the
 * button), n the next strike or fault (after the last one, the first again). #ply=N in the URL
 * opens at frame N and follows the frame shown; ?ply=N works too. A timeline strip shows every
 * decision's latency and marks the strikes; a slider under it scrubs through the frames. On a
 * narrow screen (a phone) the board pans in its own box at a zoom where no text is under 10.5
 * CSS px, follows the pieces that move, and the step buttons stay at the bottom of the screen;
 * a sideways swipe over the text steps too. A decision that carries its bot's own words (the
 * author's frames: its `log` text, its `stderr` lines) shows them under the decision.
 */
(function () {
  "use strict";

  var SVG = "http://www.w3.org/2000/svg";
  var COLOURS = {
    purple: "#7e3fa6", green: "#2e8b57", red: "#d23c3c", yellow: "#e2b100",
    blue: "#2f6fd0", orange: "#e67e22", black: "#333333", white: "#f5f5f5"
  };
  var SPEEDS = [0.5, 1, 2, 4];
  var BASE_MS = 900;

  // ---------------------------------------------------------------- small DOM helpers

  function svg(parent, tag, attrs, text) {
    var node = document.createElementNS(SVG, tag);
    for (var k in attrs) { if (attrs[k] !== null && attrs[k] !== undefined) node.setAttribute(k, attrs[k]); }
    if (text !== undefined && text !== null) node.textContent = String(text);
    if (parent) parent.appendChild(node);
    return node;
  }

  function html(parent, tag, attrs, text) {
    var node = document.createElement(tag);
    for (var k in attrs || {}) { node.setAttribute(k, attrs[k]); }
    if (text !== undefined && text !== null) node.textContent = String(text);
    if (parent) parent.appendChild(node);
    return node;
  }

  function colour(name, fallback) {
    return COLOURS[name] || name || fallback || "#888";
  }

  function seatColour(doc, seat) {
    var s = doc.match.seats[seat];
    return colour(s && s.colour, ["#555", "#999", "#bbb", "#777"][seat % 4]);
  }

  function title(node, text) { svg(node, "title", {}, text); return node; }

  function label(x, y, text, size, parent, extra) {
    var a = {x: x, y: y, "font-size": size || 12, "text-anchor": "middle", "dominant-baseline": "central"};
    for (var k in extra || {}) { a[k] = extra[k]; }
    return svg(parent, "text", a, text);
  }

  // ---------------------------------------------------------------- the viewer

  // The drawing is 1200 units wide: the board in x 0..805, the table and the players'
  // panels in x 805..1200. They are two SVGs: side by side on a wide screen; on a narrow one
  // (a phone) stacked, the board in a box that pans, at a zoom where no text is under MIN_PX.
  var MAP_W = 805, SIDE_W = 395, DRAW_H = 800;
  var MIN_PX = 10.5;          // the smallest text a narrow screen shows at its default zoom
  var COMPACT_BELOW = 720;    // a viewer narrower than this (CSS px) gets the phone layout,
  var TOUCH_BELOW = 1000;     // and on a touch screen (a phone held sideways), narrower than this
  var COARSE = window.matchMedia && window.matchMedia("(pointer: coarse)").matches;
  var ZOOMS = ["fit", "read", "close"];
  var REDUCED_MOTION = window.matchMedia && window.matchMedia("(prefers-reduced-motion: reduce)").matches;

  function Viewer(root, doc, startPly) {
    this.root = root;
    this.doc = doc;
    this.frames = doc.frames;
    this.ply = 0;
    this.timer = null;
    this.speed = 1;
    this.zoom = 1;
    this.compact = null;
    this.game = GAMES[doc.match.game] || GENERIC;
    this.build();
    this.arrange();
    this.show(startPly);
    this.focusAction(true);
  }

  Viewer.prototype.build = function () {
    var self = this, root = this.root, m = this.doc.match;
    root.classList.add("rv-live");
    if (!root.hasAttribute("tabindex")) { root.setAttribute("tabindex", "-1"); } // a click inside gives it the keys
    this.steps = html(null, "div", {"class": "rv-controls rv-steps", role: "group", "aria-label": "step through the replay"});
    this.more = html(null, "div", {"class": "rv-controls rv-more", role: "group", "aria-label": "more replay controls"});
    function button(parent, text, name, act) {
      var b = html(parent, "button", {type: "button", title: name, "aria-label": name, "data-act": act}, text);
      b.addEventListener("click", function () { self.act(act); });
      return b;
    }
    button(this.steps, "|\u25C0", "first frame (Home)", "first");
    button(this.steps, "\u25C0", "previous (\u2190)", "prev");
    this.playButton = button(this.steps, "play", "play / pause (space)", "play");
    button(this.steps, "\u25B6", "next (\u2192)", "next");
    button(this.steps, "\u25B6|", "last frame (End)", "last");
    this.troubles = this.frames.filter(hasTrouble).map(function (f) { return f.ply; });
    var strike = button(this.more, "next strike", "next strike or fault (n)", "trouble");
    if (!this.troubles.length) { strike.disabled = true; strike.title = "no strike or fault in this match"; }
    var speed = html(this.more, "select", {"aria-label": "speed", "class": "rv-speed"});
    SPEEDS.forEach(function (s) {
      var o = html(speed, "option", {value: String(s)}, s + "\u00D7");
      if (s === 1) { o.selected = true; }
    });
    speed.addEventListener("change", function () { self.speed = Number(speed.value); if (self.timer) { self.play(true); } });
    var jump = html(this.more, "form", {"class": "rv-jump"});
    html(jump, "label", {"for": root.id + "-turn"}, m.turn_name + " ");
    this.turnInput = html(jump, "input", {id: root.id + "-turn", type: "number", min: "0", inputmode: "numeric", "aria-label": "go to " + m.turn_name});
    html(jump, "button", {type: "submit"}, "go");
    jump.addEventListener("submit", function (e) { e.preventDefault(); self.jumpToTurn(Number(self.turnInput.value)); });
    this.where = html(null, "span", {"class": "rv-where", "aria-live": "polite"});
    this.buildBoard();
    this.said = html(null, "div", {"class": "rv-said"});
    this.buildTrack();
    this.stage = html(null, "div", {"class": "rv-stage"});
    root.addEventListener("keydown", function (e) { self.key(e); });
    this.swipes();
    window.addEventListener("resize", function () { self.arrange(); });
    window.addEventListener("hashchange", function () {
      var n = plyFromUrl();
      if (n !== null && n !== self.ply) { self.show(n); self.focusAction(true); }
    });
  };

  // The board in a box that pans (its own scroll bars, or a finger), with zoom buttons over it;
  // the table and the players' panels in a second drawing.
  Viewer.prototype.buildBoard = function () {
    var self = this, m = this.doc.match;
    this.map = html(null, "div", {"class": "rv-map"});
    this.scroller = html(this.map, "div", {"class": "rv-map-scroll", tabindex: "0", role: "group",
      "aria-label": m.title + " board: arrow keys step, Home and End jump, space plays"});
    this.svg = svg(this.scroller, "svg", {viewBox: "0 0 " + MAP_W + " " + DRAW_H, "class": "rv-board rv-board-map",
                                          role: "img", "aria-label": m.title + " board"});
    this.staticLayer = svg(this.svg, "g", {"class": "rv-static-layer"});
    this.dynamicLayer = svg(this.svg, "g", {"class": "rv-dynamic-layer"});
    this.layout = this.game.layout(this.doc, this.staticLayer);
    var zoom = html(this.map, "div", {"class": "rv-controls rv-zoom", role: "group", "aria-label": "zoom"});
    [["\u2212", "zoom out", -1], ["+", "zoom in", 1]].forEach(function (z) {
      var b = html(zoom, "button", {type: "button", title: z[1], "aria-label": z[1], "data-act": "zoom" + (z[2] > 0 ? "in" : "out")}, z[0]);
      b.addEventListener("click", function () { self.setZoom(self.zoom + z[2]); });
    });
    // an overview is for finding the place: a tap there zooms in on it
    this.svg.addEventListener("click", function (e) {
      if (!self.compact || self.zoom > 0) { return; }
      var r = self.svg.getBoundingClientRect(), k = MAP_W / r.width;
      self.setZoom(1, [(e.clientX - r.left) * k, (e.clientY - r.top) * k]);
    });
    this.sideSvg = svg(null, "svg", {viewBox: MAP_W + " 0 " + SIDE_W + " " + DRAW_H, "class": "rv-board rv-board-side",
                                     role: "img", "aria-label": "the table and the players"});
    this.sideLayer = svg(this.sideSvg, "g", {"class": "rv-side-layer"});
  };

  // The latency of every decision as bars (strikes in red), and a slider over every frame:
  // a thumb can drag it, a keyboard can step it.
  Viewer.prototype.buildTrack = function () {
    var self = this, last = this.frames.length - 1;
    this.track = html(null, "div", {"class": "rv-track"});
    this.timeline = svg(this.track, "svg", {"class": "rv-timeline", viewBox: "0 0 1000 60",
                                            preserveAspectRatio: "none", role: "img",
                                            "aria-label": "timeline: latency of every decision, strikes in red"});
    this.drawTimeline();
    this.scrub = html(this.track, "input", {type: "range", min: "0", max: String(last), step: "1", value: "0",
                                            "class": "rv-scrub", "aria-label": "frame"});
    this.scrub.addEventListener("input", function () { self.stop(); self.show(Number(self.scrub.value)); self.focusAction(false); });
  };

  // Lay the parts out for the viewer's width: wide, the controls above the board and its
  // panels side by side; narrow, the board first, the step buttons last (they stick to the
  // bottom of the screen, under a thumb).
  Viewer.prototype.arrange = function () {
    var width = this.root.clientWidth, root = this.root, order;
    if (!width) { return; }
    var compact = width < COMPACT_BELOW || (COARSE && width < TOUCH_BELOW);
    if (compact !== this.compact) {
      this.compact = compact;
      root.classList.toggle("rv-compact", compact);
      if (compact) {
        this.stage.remove();
        if (this.barRow) { this.barRow.remove(); }
        order = [this.where, this.map, this.said, this.sideSvg, this.track, this.more, this.steps];
      } else {
        this.barRow = this.barRow || html(null, "div", {"class": "rv-bar"});
        [this.steps, this.more].forEach(function (n) { this.barRow.appendChild(n); }, this);
        this.more.appendChild(this.where);
        this.stage.appendChild(this.map);
        this.stage.appendChild(this.sideSvg);
        order = [this.barRow, this.stage, this.said, this.track];
      }
      order.forEach(function (node) { root.appendChild(node); });
    }
    this.fit();
  };

  // Size the drawings: wide, they fill their columns; narrow, the board at the zoom chosen and
  // the panels across the screen, with text brought up to MIN_PX wherever it would be smaller.
  Viewer.prototype.fit = function () {
    var s = this.svg.style;
    if (!this.compact) {
      s.width = s.height = this.scroller.style.height = "";
      restoreText(this.svg);
      restoreText(this.sideSvg);
      this.sideSvg.setAttribute("viewBox", MAP_W + " 0 " + SIDE_W + " " + DRAW_H);
      return;
    }
    var scale = this.mapScale();
    s.width = Math.round(MAP_W * scale) + "px";
    s.height = Math.round(DRAW_H * scale) + "px";
    var box = this.scroller.clientWidth || this.root.clientWidth;
    this.scroller.style.height = Math.round(Math.min(DRAW_H * scale, Math.max(220, window.innerHeight * 0.6), box * 1.15)) + "px";
    this.root.setAttribute("data-zoom", ZOOMS[this.zoom]);
    if (this.zoom > 0) { ensureText(this.svg, MIN_PX / scale); } else { restoreText(this.svg); }
    this.fitSide();
  };

  // The scale of the board: "fit" shows all of it; "read" is the smallest scale at which its
  // smallest text is MIN_PX (never less than fit); "close" half as big again.
  Viewer.prototype.mapScale = function () {
    var fit = (this.scroller.clientWidth || this.root.clientWidth) / MAP_W;
    if (!this.smallest) { var least = smallestText(this.svg); this.smallest = isFinite(least) ? least : 12; }
    var read = Math.max(fit, MIN_PX / this.smallest);
    return [fit, read, read * 1.5][this.zoom];
  };

  Viewer.prototype.fitSide = function () {
    if (!this.compact) { return; }
    var used = this.sideLayer.getBBox(), height = Math.min(DRAW_H, Math.ceil(used.y + used.height + 6));
    this.sideSvg.setAttribute("viewBox", MAP_W + " 0 " + SIDE_W + " " + Math.max(40, height));
    var width = this.sideSvg.getBoundingClientRect().width || this.root.clientWidth;
    ensureText(this.sideSvg, MIN_PX * SIDE_W / width);
  };

  Viewer.prototype.setZoom = function (level, centre) {
    level = Math.max(0, Math.min(ZOOMS.length - 1, level));
    var sc = this.scroller, before = this.mapScale();
    var at = centre || [(sc.scrollLeft + sc.clientWidth / 2) / before, (sc.scrollTop + sc.clientHeight / 2) / before];
    this.zoom = level;
    this.fit();
    this.centreOn(at[0], at[1], false);
  };

  Viewer.prototype.centreOn = function (x, y, smooth) {
    var sc = this.scroller, scale = this.mapScale();
    sc.scrollTo({left: x * scale - sc.clientWidth / 2, top: y * scale - sc.clientHeight / 2,
                 behavior: smooth && !this.timer && !REDUCED_MOTION ? "smooth" : "auto"});
  };

  // Narrow screens show part of the board: bring the pieces that just moved into view (or,
  // when none did, on opening, the piece of the seat to act).
  Viewer.prototype.focusAction = function (opening) {
    if (!this.compact || this.zoom === 0) { return; }
    var pieces = this.dynamicLayer.querySelectorAll(".rv-moved");
    if (!pieces.length && opening) {
      pieces = this.dynamicLayer.querySelectorAll(this.game.focus ? this.game.focus(this.frames[this.ply]) : ".rv-piece");
      if (!pieces.length) { pieces = this.dynamicLayer.querySelectorAll(".rv-piece"); }
    }
    if (!pieces.length) { return; }
    var box = unionBox(pieces), scale = this.mapScale(), sc = this.scroller;
    if ((box.x1 - box.x0) * scale > sc.clientWidth || (box.y1 - box.y0) * scale > sc.clientHeight) { box = unionBox([pieces[0]]); }
    this.centreOn((box.x0 + box.x1) / 2, (box.y0 + box.y1) / 2, !opening);
  };

  // A sideways swipe over the text or the panels steps (the board itself pans instead).
  Viewer.prototype.swipes = function () {
    var self = this, start = null;
    this.root.addEventListener("touchstart", function (e) {
      var t = e.target;
      start = e.touches.length === 1 && !self.scroller.contains(t) && !/^(INPUT|SELECT|BUTTON|TEXTAREA)$/.test(t.tagName)
        ? [e.touches[0].clientX, e.touches[0].clientY] : null;
    }, {passive: true});
    this.root.addEventListener("touchend", function (e) {
      if (!start || !e.changedTouches.length) { return; }
      var dx = e.changedTouches[0].clientX - start[0], dy = e.changedTouches[0].clientY - start[1];
      start = null;
      if (Math.abs(dx) > 60 && Math.abs(dx) > 2 * Math.abs(dy)) { self.act(dx < 0 ? "next" : "prev"); }
    }, {passive: true});
  };

  Viewer.prototype.act = function (act) {
    if (act === "first") { this.stop(); this.show(0); }
    else if (act === "prev") { this.stop(); this.show(this.ply - 1); }
    else if (act === "next") { this.stop(); this.show(this.ply + 1); }
    else if (act === "last") { this.stop(); this.show(this.frames.length - 1); }
    else if (act === "play") { if (this.timer) { this.stop(); } else { this.play(false); } }
    else if (act === "trouble") { this.nextTrouble(); }
    if (act !== "play") { this.focusAction(false); }
  };

  // The next frame after this one with a strike or a fault; after the last, the first again.
  Viewer.prototype.nextTrouble = function () {
    if (!this.troubles.length) { return; }
    var here = this.ply, next = this.troubles.filter(function (p) { return p > here; })[0];
    this.stop();
    this.show(next === undefined ? this.troubles[0] : next);
  };

  // Keys reach the viewer only while it (or one of its controls) has the focus. A focused
  // button keeps Space and Enter (they press it); fields and the slider keep every key.
  Viewer.prototype.key = function (e) {
    var t = e.target && e.target.tagName;
    if (t === "INPUT" || t === "SELECT" || t === "TEXTAREA" || e.altKey || e.ctrlKey || e.metaKey) { return; }
    if ((e.key === " " || e.key === "Enter") && (t === "BUTTON" || t === "A" || t === "SUMMARY")) { return; }
    var map = {ArrowLeft: "prev", ",": "prev", ArrowRight: "next", ".": "next", Home: "first", End: "last", " ": "play", n: "trouble"};
    var act = map[e.key];
    if (act) { e.preventDefault(); this.act(act); }
  };

  Viewer.prototype.play = function (restart) {
    var self = this;
    if (this.timer) { clearInterval(this.timer); }
    if (!restart && this.ply >= this.frames.length - 1) { this.show(0); }
    this.timer = setInterval(function () {
      if (self.ply >= self.frames.length - 1) { self.stop(); return; }
      self.show(self.ply + 1);
      self.focusAction(false);
    }, BASE_MS / this.speed);
    this.playButton.textContent = "pause";
    this.root.setAttribute("data-playing", "true");
  };

  Viewer.prototype.stop = function () {
    if (this.timer) { clearInterval(this.timer); }
    this.timer = null;
    this.playButton.textContent = "play";
    this.root.setAttribute("data-playing", "false");
  };

  // The header's turn is the one the board shows (turn_now, as the game's panel says it), and
  // the decision's own turn beside it when the step played on into a later one.
  function turnWords(frame, name) {
    var now = frame.turn_now === undefined ? frame.turn : frame.turn_now;
    if (now === null) { return ""; }
    var before = frame.turn !== null && frame.turn !== now ? " (decided in " + name + " " + frame.turn + ")" : "";
    return " \u00B7 " + name + " " + now + before;
  }

  Viewer.prototype.jumpToTurn = function (turn) {
    this.stop();
    for (var i = 0; i < this.frames.length; i++) {
      var now = this.frames[i].turn_now === undefined ? this.frames[i].turn : this.frames[i].turn_now;
      if (now !== null && now >= turn) { this.show(i); this.focusAction(false); return; }
    }
    this.show(this.frames.length - 1);
  };

  Viewer.prototype.show = function (ply) {
    var n = Math.max(0, Math.min(this.frames.length - 1, Math.round(Number(ply) || 0)));
    this.ply = n;
    var frame = this.frames[n];
    this.root.setAttribute("data-ply", String(n));
    [this.dynamicLayer, this.sideLayer].forEach(function (g) { while (g.firstChild) { g.removeChild(g.firstChild); } });
    this.game.draw({board: this.dynamicLayer, side: this.sideLayer}, frame, this.doc, this.layout, n);
    if (this.compact) { this.fit(); }
    var m = this.doc.match, where = "frame " + n + " of " + (this.frames.length - 1) +
      turnWords(frame, m.turn_name) + (frame.over ? " \u00B7 game over" : "");
    this.where.textContent = where;
    this.scrub.value = String(n);
    this.scrub.setAttribute("aria-valuetext", where);
    this.showSaid(frame);
    this.markTimeline(n);
    if (history.replaceState) { history.replaceState(null, "", "#ply=" + n); }
  };

  Viewer.prototype.showSaid = function (frame) {
    var box = this.said, doc = this.doc;
    box.textContent = "";
    if (frame.decisions.length) {
      var ul = html(box, "ul", {"class": "rv-decisions"});
      frame.decisions.forEach(function (d) {
        var li = html(ul, "li", {"class": "rv-decision" + (isStrike(d) ? " rv-strike" : "")});
        var dot = html(li, "span", {"class": "rv-dot"});
        dot.style.background = seatColour(doc, d.seat);
        html(li, "strong", {}, d.who + ": ");
        html(li, "span", {}, d.label);
        var tail = " \u2014 " + d.kind + ", " + (d.ms === null || d.ms === undefined ? "?" : d.ms.toFixed(1)) + " ms";
        if (d.status === "forfeited") { tail += ", forfeited (fallback move)"; }
        else if (isStrike(d)) { tail += ", STRIKE " + d.strikes + ": " + d.status + (d.fault && d.fault.detail ? " (" + d.fault.detail + ")" : ""); }
        html(li, "span", {"class": "rv-meta"}, tail);
        showNotes(li, d);
      });
    } else {
      html(box, "p", {"class": "rv-decisions"}, frame.ply === 0 ? "The start of the match." : "");
    }
    frame.faults.forEach(function (f) {
      html(box, "p", {"class": "rv-strike"}, "Fault at " + f.kind + ": seat " + f.seat + " " + f.reason + (f.detail ? " (" + f.detail + ")" : ""));
    });
    var ol = html(box, "ul", {"class": "rv-events"});
    frame.texts.forEach(function (t) { html(ol, "li", {}, t); });
    if (frame.over) { html(box, "p", {"class": "rv-outcome"}, doc.match.outcome); }
  };

  // What the bot said with this decision (only in the author's frames), labelled by field.
  function showNotes(li, d) {
    if (d.log) { html(li, "pre", {"class": "rv-note", "data-field": "log"}, "log: " + d.log); }
    if (d.stderr && d.stderr.length) {
      html(li, "pre", {"class": "rv-note rv-stderr", "data-field": "stderr"}, "stderr:\n" + d.stderr.join("\n"));
    }
  }

  // Text sizes in a drawing's own units: the smallest, and a floor for all (each text keeps its
  // drawn size in data-size, so that a wider screen gets it back).
  function texts(node) { return Array.prototype.slice.call(node.querySelectorAll("text")); }

  function drawnSize(t) { return Number(t.getAttribute("data-size") || t.getAttribute("font-size")) || 16; }

  function smallestText(node) {
    return texts(node).reduce(function (least, t) { return Math.min(least, drawnSize(t)); }, Infinity);
  }

  function ensureText(node, least) {
    texts(node).forEach(function (t) {
      var own = drawnSize(t);
      t.setAttribute("data-size", String(own));
      t.setAttribute("font-size", String(Math.max(own, Math.ceil(least * 10) / 10)));
    });
  }

  function restoreText(node) {
    texts(node).forEach(function (t) {
      if (t.hasAttribute("data-size")) { t.setAttribute("font-size", t.getAttribute("data-size")); t.removeAttribute("data-size"); }
    });
  }

  function unionBox(nodes) {
    var box = {x0: Infinity, y0: Infinity, x1: -Infinity, y1: -Infinity};
    Array.prototype.forEach.call(nodes, function (n) {
      var b = n.getBBox();
      box = {x0: Math.min(box.x0, b.x), y0: Math.min(box.y0, b.y), x1: Math.max(box.x1, b.x + b.width), y1: Math.max(box.y1, b.y + b.height)};
    });
    return box;
  }

  function isStrike(d) { return d.status !== "ok" && d.status !== "forfeited"; }

  function hasTrouble(f) { return f.faults.length > 0 || f.decisions.some(isStrike); }

  Viewer.prototype.drawTimeline = function () {
    var self = this, t = this.timeline, frames = this.frames, n = frames.length;
    var w = 1000 / Math.max(1, n), top = 0;
    frames.forEach(function (f) {
      f.decisions.forEach(function (d) { top = Math.max(top, d.ms || 0); });
    });
    var scale = Math.log(1 + top) || 1;
    svg(t, "rect", {x: 0, y: 0, width: 1000, height: 60, "class": "rv-tl-bg"});
    frames.forEach(function (f, i) {
      var ms = 0, strike = false, forfeit = false;
      f.decisions.forEach(function (d) {
        ms = Math.max(ms, d.ms || 0);
        strike = strike || isStrike(d);
        forfeit = forfeit || d.status === "forfeited";
      });
      var h = f.decisions.length ? Math.max(2, 46 * Math.log(1 + ms) / scale) : 0;
      var g = svg(t, "g", {"class": "rv-tl-frame", "data-ply": i});
      svg(g, "rect", {x: i * w, y: 0, width: w, height: 60, fill: "transparent"});
      if (h) {
        svg(g, "rect", {x: i * w, y: 58 - h, width: Math.max(w * 0.8, 0.5), height: h,
                        "class": strike ? "rv-tl-strike" : forfeit ? "rv-tl-forfeit" : "rv-tl-bar"});
      }
      if (strike) { svg(g, "path", {d: "M" + (i * w + w / 2 - 5) + " 0 h10 l-5 8 z", "class": "rv-tl-strike"}); }
      var words = "frame " + i + turnWords(f, self.doc.match.turn_name) +
        f.decisions.map(function (d) { return "\n" + d.who + ": " + d.label + " (" + (d.ms || 0).toFixed(1) + " ms" + (isStrike(d) ? ", strike: " + d.status : "") + ")"; }).join("");
      title(g, words);
      g.addEventListener("click", function () { self.stop(); self.show(i); });
    });
    this.cursor = svg(t, "rect", {x: 0, y: 0, width: Math.max(w, 2), height: 60, "class": "rv-tl-cursor"});
    this.tlStep = w;
  };

  Viewer.prototype.markTimeline = function (n) {
    this.cursor.setAttribute("x", String(n * this.tlStep));
  };

  // ---------------------------------------------------------------- shared drawing

  function panelBox(parent, x, y, w, h, fill) {
    return svg(parent, "rect", {x: x, y: y, width: w, height: h, rx: 8, fill: fill || "#fff", stroke: "#ccc"});
  }

  function pawn(parent, x, y, r, fill, text, attrs) {
    var g = svg(parent, "g", attrs || {});
    svg(g, "circle", {cx: x, cy: y, r: r, fill: fill, stroke: "#fff", "stroke-width": 2});
    svg(g, "circle", {cx: x, cy: y, r: r + 1.5, fill: "none", stroke: "#222", "stroke-width": 0.8});
    if (text) { label(x, y + 0.5, text, r * 1.05, g, {fill: "#fff", "font-weight": "bold"}); }
    return g;
  }

  function latest(frames, ply, type) {
    for (var i = ply; i >= 0; i--) {
      var ev = frames[i].events;
      for (var k = ev.length - 1; k >= 0; k--) { if (ev[k].type === type) { return {event: ev[k], ply: i}; } }
    }
    return null;
  }

  // ---------------------------------------------------------------- Tokaido Duo

  var SPACE_FILL = {temple: "#c8553d", garden: "#5c9e4a", seashore: "#3f86c7", hot_spring: "#e8913a", coastal: "#f3e2bf"};
  var SPACE_MARK = {temple: "T", garden: "G", seashore: "S", hot_spring: "H"};
  var ZONE_FILL = {moon: "#ebe6f7", waterfall: "#dcecf8", mountain: "#f1e8da", bamboo: "#e3f1dc"};
  var WARE_FILL = ["#b5306b", "#8d6e63", "#ef7fa8", "#f0a500", "#5f8f3e", "#4f6ccf"];
  var CENTRE = 400, RING = 338;

  function icon(parent, name, x, y, s, bg) {
    var g = svg(parent, "g", {"class": "rv-icon", "data-icon": name});
    if (name === "moon") {
      svg(g, "circle", {cx: x, cy: y, r: s * 0.42, fill: "#d9b400"});
      svg(g, "circle", {cx: x + s * 0.18, cy: y - s * 0.1, r: s * 0.36, fill: bg || "#fff"});
    } else if (name === "mountain") {
      svg(g, "path", {d: "M" + (x - s / 2) + " " + (y + s * 0.35) + " L" + x + " " + (y - s * 0.4) + " L" + (x + s / 2) + " " + (y + s * 0.35) + " Z", fill: "#8a6d4b"});
      svg(g, "path", {d: "M" + (x - s * 0.14) + " " + (y - s * 0.18) + " L" + x + " " + (y - s * 0.4) + " L" + (x + s * 0.14) + " " + (y - s * 0.18) + " Z", fill: "#fff"});
    } else if (name === "waterfall") {
      for (var i = -1; i <= 1; i++) {
        var cx = x + i * s * 0.22;
        svg(g, "path", {d: "M" + cx + " " + (y - s * 0.4) + " q" + (s * 0.1) + " " + (s * 0.2) + " 0 " + (s * 0.4) + " t0 " + (s * 0.4), stroke: "#2a7fc1", "stroke-width": s * 0.09, fill: "none"});
      }
    } else if (name === "bamboo") {
      [-0.16, 0.16].forEach(function (dx) {
        svg(g, "rect", {x: x + dx * s - s * 0.07, y: y - s * 0.42, width: s * 0.14, height: s * 0.84, fill: "#3f8f3a"});
        svg(g, "line", {x1: x + dx * s - s * 0.09, x2: x + dx * s + s * 0.09, y1: y - s * 0.05, y2: y - s * 0.05, stroke: "#cde8c4", "stroke-width": 1});
      });
    } else {
      label(x, y, String(name).slice(0, 2), s * 0.6, g, {fill: "#555"});
    }
    return g;
  }

  function ringPoint(i, n, r) {
    var a = -Math.PI / 2 + 2 * Math.PI * i / n;
    return [CENTRE + r * Math.cos(a), CENTRE + r * Math.sin(a)];
  }

  function polygonCentroid(pts) {
    var a = 0, cx = 0, cy = 0;
    for (var i = 0; i < pts.length; i++) {
      var p = pts[i], q = pts[(i + 1) % pts.length], c = p[0] * q[1] - q[0] * p[1];
      a += c; cx += (p[0] + q[0]) * c; cy += (p[1] + q[1]) * c;
    }
    if (Math.abs(a) < 1e-6) {
      var sx = 0, sy = 0;
      pts.forEach(function (p) { sx += p[0]; sy += p[1]; });
      return [sx / pts.length, sy / pts.length];
    }
    return [cx / (3 * a), cy / (3 * a)];
  }

  function wareColour(board, name) {
    var i = board.wares.map(function (w) { return w.name; }).indexOf(name);
    return WARE_FILL[(i < 0 ? 0 : i) % WARE_FILL.length];
  }

  var TOKAIDO = {
    layout: function (doc, layer) {
      var b = doc.board, n = b.ring.length, inner = RING - 26;
      var pos = {}, ringAt = [];
      b.ring.forEach(function (s) { ringAt.push(ringPoint(s.index, n, RING)); });
      // Coastal towns sit on the ring; mountain towns where their routes balance (Tutte's
      // barycentric layout: the routes form a tree whose leaves are fixed on a circle).
      var adj = {};
      b.towns.forEach(function (t) { adj[t.name] = []; if (t.coastal) { pos[t.name] = ringPoint(t.ring, n, inner); } else { pos[t.name] = [CENTRE, CENTRE]; } });
      b.routes.forEach(function (r) { adj[r[0]].push(r[1]); adj[r[1]].push(r[0]); });
      for (var it = 0; it < 300; it++) {
        b.towns.forEach(function (t) {
          if (t.coastal) { return; }
          var sx = 0, sy = 0;
          adj[t.name].forEach(function (o) { sx += pos[o][0]; sy += pos[o][1]; });
          pos[t.name] = [sx / adj[t.name].length, sy / adj[t.name].length];
        });
      }
      var zones = {};
      b.zones.forEach(function (z) {
        var pts = [];
        var first = z.arc[0], last = z.arc[z.arc.length - 1];
        var span = ((last - first) % n + n) % n;
        for (var k = 0; k <= span * 4; k++) { pts.push(ringPoint(first + k / 4, n, inner)); }
        z.border.slice(1, -1).forEach(function (t) { pts.push(pos[t]); });
        var c = polygonCentroid(pts);
        zones[z.name] = {points: pts, centre: c, icon: z.icon};
        var poly = svg(layer, "polygon", {points: pts.map(function (p) { return p[0].toFixed(1) + "," + p[1].toFixed(1); }).join(" "),
                                           fill: ZONE_FILL[z.icon] || "#eee", stroke: "#fff", "stroke-width": 2, "class": "rv-zone", "data-zone": z.name});
        title(poly, "zone " + z.name + " (" + z.icon + ")");
        icon(layer, z.icon, c[0], c[1] - 16, 26, ZONE_FILL[z.icon] || "#eee");
        label(c[0], c[1] + 10, z.name, 12, layer, {fill: "#666"});
      });
      b.routes.forEach(function (r) {
        svg(layer, "line", {x1: pos[r[0]][0], y1: pos[r[0]][1], x2: pos[r[1]][0], y2: pos[r[1]][1], stroke: "#a0805a", "stroke-width": 4, "stroke-linecap": "round", "stroke-dasharray": "1 7"});
      });
      b.towns.forEach(function (t) {
        if (t.coastal) { return; }
        var p = pos[t.name];
        var g = svg(layer, "g", {"class": "rv-town", "data-town": t.name});
        svg(g, "circle", {cx: p[0], cy: p[1], r: 17, fill: "#fffaf0", stroke: "#a0805a", "stroke-width": 2});
        label(p[0], p[1] - 3, t.name, 11, g, {"font-weight": "bold"});
        label(p[0], p[1] + 8, "draw " + t.value, 7.5, g, {fill: "#7a6040"});
        title(g, "mountain town " + t.name + ": draw " + t.value + " wares");
      });
      b.ring.forEach(function (s) {
        var p = ringAt[s.index], out = ringPoint(s.index, n, RING + 30);
        var g = svg(layer, "g", {"class": "rv-space", "data-space": s.index, "data-kind": s.kind});
        svg(g, "circle", {cx: p[0], cy: p[1], r: 19, fill: SPACE_FILL[s.kind] || "#ddd", stroke: "#fff", "stroke-width": 2});
        label(p[0], p[1], s.town || SPACE_MARK[s.kind] || "?", s.town ? 11 : 13, g, {fill: s.town ? "#5a4320" : "#fff", "font-weight": "bold"});
        if (!s.town) { label(out[0], out[1], s.index, 9, g, {fill: "#999"}); }
        title(g, "space " + s.index + ": " + (s.town ? "coastal town " + s.town : s.kind.replace("_", " ")));
      });
      return {pos: pos, zones: zones, ringAt: ringAt, n: n};
    },

    // the seat to act's pilgrim: where a narrow screen opens the board
    focus: function (frame) { return ".rv-pilgrim[data-seat='" + frame.view.to_act + "']"; },

    draw: function (layers, frame, doc, lay, ply) {
      var v = frame.view, b = doc.board, layer = layers.board;
      var moved = {};
      frame.events.forEach(function (e) { if (e.type === "move") { moved[e.seat + ":" + e.character] = true; } });
      // boutiques beside their coastal towns
      Object.keys(v.boutiques).forEach(function (town) {
        var t = b.towns.filter(function (x) { return x.name === town; })[0];
        if (!t) { return; }
        var p = ringPoint(t.ring, lay.n, RING + 36), bt = v.boutiques[town];
        var g = svg(layer, "g", {"class": "rv-boutique", "data-town": town});
        svg(g, "rect", {x: p[0] - 15, y: p[1] - 11, width: 30, height: 22, rx: 4, fill: wareColour(b, bt.ware), stroke: "#fff"});
        label(p[0], p[1], bt.value, 12, g, {fill: "#fff", "font-weight": "bold"});
        title(g, town + " boutique: " + bt.ware + ", " + bt.value + " coins each");
      });
      v.players.forEach(function (p) {
        var c = seatColour(doc, p.seat), glow = function (k) { return moved[p.seat + ":" + k] ? " rv-moved" : ""; };
        var sp = lay.ringAt[p.pilgrim];
        pawn(layer, sp[0], sp[1], 12, c, "P", {"class": "rv-piece rv-pilgrim" + glow("pilgrim"), "data-seat": p.seat, "data-space": p.pilgrim});
        var mt = lay.pos[p.merchant], town = b.towns.filter(function (x) { return x.name === p.merchant; })[0];
        var mp = town && town.coastal ? ringPoint(town.ring, lay.n, RING - 50) : [mt[0] + (p.seat ? 17 : -17), mt[1] + 20];
        var g = svg(layer, "g", {"class": "rv-piece rv-merchant" + glow("merchant"), "data-seat": p.seat, "data-town": p.merchant});
        svg(g, "rect", {x: mp[0] - 10, y: mp[1] - 10, width: 20, height: 20, rx: 3, fill: c, stroke: "#fff", "stroke-width": 2});
        label(mp[0], mp[1] + 0.5, "M", 11, g, {fill: "#fff", "font-weight": "bold"});
        var z = lay.zones[p.artist].centre, ax = z[0] + (p.seat ? 24 : -24), ay = z[1] + 2;
        var ga = svg(layer, "g", {"class": "rv-piece rv-artist" + glow("artist"), "data-seat": p.seat, "data-zone": p.artist});
        svg(ga, "path", {d: "M" + ax + " " + (ay - 13) + " L" + (ax + 12) + " " + (ay + 9) + " L" + (ax - 12) + " " + (ay + 9) + " Z", fill: c, stroke: "#fff", "stroke-width": 2});
        label(ax, ay + 2, "A", 10, ga, {fill: "#fff", "font-weight": "bold"});
      });
      TOKAIDO.table(layers.side, v, doc, frame);
      var y = 198;
      v.players.forEach(function (p) {
        if (p.automa) { TOKAIDO.automa(layers.side, v, doc, p, y); } else { TOKAIDO.player(layers.side, v, doc, p, y); }
        y += 300;
      });
    },

    table: function (layer, v, doc, frame) {
      var m = doc.match, x = 810;
      panelBox(layer, x, 8, 382, 184, "#fbfaf7");
      var who = v.over ? "game over" : (doc.match.seats[v.to_act] ? doc.match.seats[v.to_act].label : "seat " + v.to_act) + " to act: " + v.phase.replace(/_/g, " ");
      label(x + 12, 26, "Round " + v.round + " \u00B7 " + who, 15, layer, {"text-anchor": "start", "font-weight": "bold"});
      v.dice.forEach(function (d, i) {
        var dx = x + 14 + i * 62, dy = 44;
        var g = svg(layer, "g", {"class": "rv-die", "data-die": d.die, "data-value": d.value});
        svg(g, "rect", {x: dx, y: dy, width: 48, height: 48, rx: 8, fill: d.used_by === null ? "#fff" : "#eee",
                         stroke: d.used_by === null ? "#333" : seatColour(doc, d.used_by), "stroke-width": d.used_by === null ? 1.5 : 4});
        label(dx + 24, dy + 24, d.value, 24, g, {"font-weight": "bold", fill: d.used_by === null ? "#222" : "#999"});
        label(dx + 24, dy + 60, d.die, 10, g, {fill: "#555"});
        title(g, d.die + " die: " + d.value + (d.used_by === null ? "" : ", taken by " + m.seats[d.used_by].label));
      });
      // wave tiles still on the board, the hot spring token, the bag
      var wy = 42;
      Object.keys(v.waves).forEach(function (c) {
        var w = v.waves[c];
        if (w.holder !== null) { return; }
        var g = svg(layer, "g", {"class": "rv-wave", "data-tile": c});
        svg(g, "rect", {x: x + 204, y: wy, width: 168, height: 20, rx: 10, fill: "#d7ebf9", stroke: "#3f86c7"});
        label(x + 288, wy + 10, "\u223F " + c + ": " + w.side, 11, g, {fill: "#1f5f95"});
        wy += 23;
      });
      var holder = v.hot_spring === null ? "on the board" : "held by " + m.seats[v.hot_spring].label;
      var sg = svg(layer, "g", {"class": "rv-spring-line"});
      svg(sg, "circle", {cx: x + 22, cy: 122, r: 9, fill: SPACE_FILL.hot_spring, stroke: "#fff", "stroke-width": 2, "class": v.hot_spring === null ? "rv-spring" : null});
      label(x + 22, 122, "H", 10, sg, {fill: "#fff", "font-weight": "bold"});
      label(x + 36, 122, "hot spring token " + holder, 11, sg, {"text-anchor": "start", fill: "#555"});
      label(x + 12, 144, "bag", 11, layer, {"text-anchor": "start", fill: "#555"});
      doc.board.wares.forEach(function (w, i) {
        var g = svg(layer, "g", {"class": "rv-bag", "data-ware": w.name});
        svg(g, "rect", {x: x + 44 + i * 84, y: 136, width: 14, height: 16, rx: 2, fill: wareColour(doc.board, w.name)});
        label(x + 62 + i * 84, 144, w.name + " " + (v.bag[w.name] || 0), 11, g, {"text-anchor": "start", fill: "#555"});
      });
      if (v.keep_pool) {
        label(x + 12, 164, "choosing from: " + Object.keys(v.keep_pool).filter(function (w) { return v.keep_pool[w]; }).map(function (w) { return w + " " + v.keep_pool[w]; }).join(", "), 11, layer, {"text-anchor": "start", fill: "#555"});
      }
      if (v.end_triggers.length) {
        var last = "Last round: " + v.end_triggers.join("; ");
        label(x + 12, 182, last, last.length > 60 ? 9 : 11, layer, {"text-anchor": "start", fill: "#b03030", "font-weight": "bold"});
      }
    },

    player: function (layer, v, doc, p, y) {
      var b = doc.board, x = 810, seat = doc.match.seats[p.seat], c = seatColour(doc, p.seat);
      var g = svg(layer, "g", {"class": "rv-player", "data-seat": p.seat});
      panelBox(g, x, y, 382, 292);
      svg(g, "rect", {x: x, y: y, width: 8, height: 292, rx: 3, fill: c});
      var score = p.score, total = 0;
      Object.keys(score).forEach(function (k) { total += score[k]; });
      label(x + 18, y + 18, seat.label + " \u00B7 " + seat.name, 14, g, {"text-anchor": "start", "font-weight": "bold"});
      label(x + 372, y + 18, total, 20, g, {"text-anchor": "end", "font-weight": "bold", "class": "rv-score"});
      label(x + 372, y + 38, Object.keys(score).map(function (k) { return k + " " + score[k]; }).join(" \u00B7 "), 10, g, {"text-anchor": "end", fill: "#666"});
      TOKAIDO.track(g, x + 18, y + 56, "temple", p.temple, b.limits.temple_end, SPACE_FILL.temple);
      TOKAIDO.track(g, x + 18, y + 84, "garden", p.garden, b.limits.garden_end, SPACE_FILL.garden);
      // coins and gold slabs
      label(x + 18, y + 114, "coins " + p.coins, 11, g, {"text-anchor": "start"});
      for (var i = 0; i < p.coins; i++) { svg(g, "circle", {cx: x + 80 + i * 11, cy: y + 114, r: 5, fill: "#e0b43a", stroke: "#a07a10"}); }
      label(x + 190, y + 114, "slabs", 11, g, {"text-anchor": "start"});
      for (var s = 0; s < Math.max(b.limits.slabs, p.slabs); s++) {
        svg(g, "rect", {x: x + 226 + s * 24, y: y + 107, width: 20, height: 14, rx: 2, fill: s < p.slabs ? "#d4a017" : "none", stroke: "#b08a20", "class": s < p.slabs ? "rv-slab" : null});
      }
      // wares
      label(x + 18, y + 142, "wares " + sumValues(p.wares) + "/" + p.ware_cap, 11, g, {"text-anchor": "start"});
      var wx = x + 90;
      b.wares.forEach(function (w) {
        for (var k = 0; k < (p.wares[w.name] || 0); k++) {
          var r = svg(g, "rect", {x: wx, y: y + 134, width: 14, height: 16, rx: 2, fill: wareColour(b, w.name), "class": "rv-ware", "data-ware": w.name});
          title(r, w.name);
          wx += 17;
        }
      });
      if (sumValues(p.wares)) { label(wx + 6, y + 142, b.wares.filter(function (w) { return p.wares[w.name]; }).map(function (w) { return w.name + " " + p.wares[w.name]; }).join(", "), 10, g, {"text-anchor": "start", fill: "#666"}); }
      // paintings: gifted, revealed, face down
      label(x + 18, y + 170, "paintings", 11, g, {"text-anchor": "start"});
      p.paintings.forEach(function (slot, k) {
        var px = x + 18 + k * 36, py = y + 180;
        var sg = svg(g, "g", {"class": "rv-painting", "data-state": slot.state, "data-slot": slot.slot});
        if (slot.state === "hidden") {
          svg(sg, "rect", {x: px, y: py, width: 32, height: 40, rx: 3, fill: "#5b4a3a", stroke: "#3a2e24"});
          svg(sg, "path", {d: "M" + (px + 6) + " " + (py + 6) + " l20 28 M" + (px + 26) + " " + (py + 6) + " l-20 28", stroke: "#7a6650", "stroke-width": 1});
          title(sg, "face down");
        } else {
          var bg = slot.state === "gifted" ? "#f4efe2" : "#fff";
          svg(sg, "rect", {x: px, y: py, width: 32, height: 40, rx: 3, fill: bg, stroke: slot.state === "gifted" ? "#c9b98a" : "#888", "stroke-dasharray": slot.state === "gifted" ? "3 2" : null});
          icon(sg, slot.icon, px + 16, py + 17, 22, bg);
          if (slot.state === "gifted") { label(px + 16, py + 34, "gift", 8, sg, {fill: "#a08440"}); }
          title(sg, slot.icon + (slot.state === "gifted" ? ", gifted" : ", revealed"));
        }
      });
      // wave tiles and the hot spring
      var ty = y + 246, tx = x + 18;
      p.waves.forEach(function (c) {
        var side = v.waves[c] ? v.waves[c].side : "";
        var wg = svg(g, "g", {"class": "rv-wave", "data-tile": c});
        svg(wg, "rect", {x: tx, y: ty, width: 112, height: 20, rx: 10, fill: "#d7ebf9", stroke: "#3f86c7"});
        label(tx + 56, ty + 10, "\u223F " + c + ": " + side, 10, wg, {fill: "#1f5f95"});
        tx += 118;
      });
      if (v.hot_spring === p.seat) {
        svg(g, "circle", {cx: x + 30, cy: y + 280, r: 9, fill: SPACE_FILL.hot_spring, "class": "rv-spring"});
        label(x + 44, y + 280, "hot spring token", 10, g, {"text-anchor": "start"});
      }
      if (p.next_gift) { label(x + 372, y + 280, "next gift: " + p.next_gift, 10, g, {"text-anchor": "end", fill: "#666"}); }
    },

    track: function (g, x, y, name, value, end, fill) {
      label(x, y, name, 11, g, {"text-anchor": "start"});
      for (var i = 1; i <= end; i++) {
        var on = i <= value;
        svg(g, "rect", {x: x + 60 + (i - 1) * 30, y: y - 10, width: 26, height: 20, rx: 3, fill: on ? fill : "#fff", stroke: fill, opacity: on ? 1 : 0.7});
        label(x + 73 + (i - 1) * 30, y, i, 10, g, {fill: on ? "#fff" : "#999"});
      }
      svg(g, "circle", {cx: x + 73 + (value - 1) * 30, cy: y - 13, r: 4, fill: "#222", "class": "rv-marker", "data-track": name, "data-value": value});
    },

    automa: function (layer, v, doc, p, y) {
      var a = v.automa, facts = doc.board.automa, x = 810, c = seatColour(doc, p.seat);
      var g = svg(layer, "g", {"class": "rv-player rv-automa", "data-seat": p.seat});
      panelBox(g, x, y, 382, 292);
      svg(g, "rect", {x: x, y: y, width: 8, height: 292, rx: 3, fill: c});
      var total = 0;
      Object.keys(p.score).forEach(function (k) { total += p.score[k]; });
      label(x + 18, y + 18, "the Automa \u00B7 level " + a.level, 14, g, {"text-anchor": "start", "font-weight": "bold"});
      label(x + 372, y + 18, total, 20, g, {"text-anchor": "end", "font-weight": "bold", "class": "rv-score"});
      label(x + 18, y + 38, "placeholder ranks: the printed cards are not public", 10, g, {"text-anchor": "start", fill: "#a05a00"});
      Object.keys(a.tracks).forEach(function (ch, k) {
        var t = a.tracks[ch], ty = y + 70 + k * 62;
        label(x + 18, ty, ch + " \u00B7 rank " + t.rank, 11, g, {"text-anchor": "start"});
        for (var q = 1; q <= t.length; q++) {
          var bx = x + 18 + (q - 1) * 35, by = ty + 10, here = q === t.position;
          var wave = facts && facts.wave_spaces.indexOf(q) >= 0;
          var sg = svg(g, "g", {"class": "rv-rank" + (here ? " rv-rank-here" : ""), "data-track": ch, "data-space": q});
          svg(sg, "rect", {x: bx, y: by, width: 31, height: 26, rx: 3, fill: here ? c : "#fff", stroke: wave ? "#3f86c7" : "#aaa", "stroke-width": wave ? 2 : 1});
          label(bx + 15.5, by + 13, facts ? facts.ranks[q - 1] : q, 11, sg, {fill: here ? "#fff" : "#444"});
          if (t.wave_at === q) {
            svg(sg, "rect", {x: bx + 2, y: by + 2, width: 27, height: 22, rx: 3, fill: "#d7ebf9", opacity: 0.9});
            label(bx + 15.5, by + 13, "\u223F", 14, sg, {fill: "#1f5f95"});
          }
        }
        if (t.position === 0) { label(x + 372, ty, "at the start", 10, g, {"text-anchor": "end", fill: "#666"}); }
      });
      var held = p.waves.length ? "waves: " + p.waves.join(", ") : "no wave tiles";
      label(x + 18, y + 268, held + (v.hot_spring === p.seat ? " \u00B7 holds the hot spring token" : ""), 10, g, {"text-anchor": "start", fill: "#555"});
    }
  };

  function sumValues(o) { var s = 0; Object.keys(o).forEach(function (k) { s += o[k]; }); return s; }

  // ---------------------------------------------------------------- Doubletrack

  var SQUARE_STYLE = {
    NUMBER: ["#ffffff", "#444"], PLAY_A_CARD: ["#d9f0d3", "#2e6b28"], SELL_A_CARD: ["#fde3c8", "#9a4d00"],
    SELL_A_PASS: ["#e6dcf5", "#5b3a8c"], SELL_THE_LEAD: ["#fff1b3", "#7a6000"], TAKE_25: ["#f9d5dc", "#9a2440"]
  };
  var BOX = {x0: 46, y0: 46, x1: 754, y1: 754, r: 90};

  function squareText(sq) {
    if (sq.kind === "NUMBER") { return [sq.lo === sq.hi ? String(sq.lo) : sq.lo + "-" + sq.hi, ""]; }
    return {PLAY_A_CARD: ["PLAY", "card"], SELL_A_CARD: ["SELL", "card"], SELL_A_PASS: ["SELL", "pass"],
            SELL_THE_LEAD: ["SELL", "lead"], TAKE_25: ["TAKE", "$25"], TAKE_PASS: ["TAKE", "pass"]}[sq.kind] || [sq.kind.slice(0, 4), ""];
  }

  // A point at arc length u along the rounded square, clockwise from the top-left corner's middle.
  function perimeter() {
    var L = BOX.x1 - BOX.x0 - 2 * BOX.r, q = Math.PI * BOX.r / 2;
    return 4 * (L + q);
  }

  function boxPoint(u) {
    var r = BOX.r, L = BOX.x1 - BOX.x0 - 2 * r, q = Math.PI * r / 2, side = L + q;
    var corners = [[BOX.x0 + r, BOX.y0 + r], [BOX.x1 - r, BOX.y0 + r], [BOX.x1 - r, BOX.y1 - r], [BOX.x0 + r, BOX.y1 - r]];
    var total = 4 * side;
    u = ((u + q / 2) % total + total) % total; // start of side 0 = the top-left arc's start
    var k = Math.floor(u / side), f = u - k * side, c = corners[k], nc = corners[(k + 1) % 4];
    var a0 = Math.PI + k * Math.PI / 2;
    if (f < q) {
      var a = a0 + f / r;
      return [c[0] + r * Math.cos(a), c[1] + r * Math.sin(a)];
    }
    var t = (f - q) / L, e = a0 + Math.PI / 2;
    var s = [c[0] + r * Math.cos(e), c[1] + r * Math.sin(e)], d = [nc[0] + r * Math.cos(e), nc[1] + r * Math.sin(e)];
    return [s[0] + (d[0] - s[0]) * t, s[1] + (d[1] - s[1]) * t];
  }

  var DOUBLETRACK = {
    layout: function (doc, layer) {
      var b = doc.board, n = b.main_len, step = perimeter() / n, at = {};
      var shift = b.rejoin_offset / 2; // each corner's middle sits half-way between fork and rejoin
      for (var i = 0; i < n; i++) { at[i] = boxPoint((i - shift) * step); }
      var cx = 400, cy = 400;
      b.colours.forEach(function (col, q) {
        var f = at[q * b.quadrant_len], r = at[q * b.quadrant_len + b.rejoin_offset];
        var mx = (f[0] + r[0]) / 2, my = (f[1] + r[1]) / 2, dx = cx - mx, dy = cy - my, dl = Math.sqrt(dx * dx + dy * dy) || 1;
        var ctrl = [mx + dx / dl * 70, my + dy / dl * 70];
        var path = "M" + f[0] + " " + f[1] + " Q" + ctrl[0] + " " + ctrl[1] + " " + r[0] + " " + r[1];
        svg(layer, "path", {d: path, fill: "none", stroke: colour(col), "stroke-width": 6, opacity: 0.35});
        for (var k = 0; k < b.shortcut_len; k++) {
          var t = (k + 1) / (b.shortcut_len + 1), it = 1 - t;
          at[n + q * b.shortcut_len + k] = [it * it * f[0] + 2 * it * t * ctrl[0] + t * t * r[0], it * it * f[1] + 2 * it * t * ctrl[1] + t * t * r[1]];
        }
        var gt = 0.16, gi = 1 - gt, gp = [gi * gi * f[0] + 2 * gi * gt * ctrl[0] + gt * gt * r[0], gi * gi * f[1] + 2 * gi * gt * ctrl[1] + gt * gt * r[1]];
        at["gate:" + col] = gp;
      });
      // the main loop's line, then every square
      var line = [];
      for (var s = 0; s <= 200; s++) { var p = boxPoint(perimeter() * s / 200); line.push(p[0].toFixed(1) + "," + p[1].toFixed(1)); }
      svg(layer, "polyline", {points: line.join(" "), fill: "none", stroke: "#cfc6b0", "stroke-width": 26});
      b.squares.forEach(function (sq) {
        var p = at[sq.pos], style = SQUARE_STYLE[sq.kind] || ["#eee", "#333"];
        var fill = sq.kind === "TAKE_PASS" ? colour(sq.gate) : style[0];
        var ink = sq.kind === "TAKE_PASS" ? "#fff" : style[1];
        var g = svg(layer, "g", {"class": "rv-square", "data-pos": sq.pos, "data-kind": sq.kind});
        svg(g, "circle", {cx: p[0], cy: p[1], r: 20, fill: fill, stroke: sq.shortcut ? colour(sq.shortcut.gate) : "#8a7f66", "stroke-width": sq.shortcut ? 3 : 1.5});
        var words = squareText(sq);
        if (words[1]) {
          label(p[0], p[1] - 5, words[0], 9, g, {fill: ink, "font-weight": "bold"});
          label(p[0], p[1] + 6, words[1], 8.5, g, {fill: ink});
        } else {
          label(p[0], p[1], words[0], sq.lo === sq.hi ? 15 : 12, g, {fill: ink, "font-weight": "bold"});
        }
        title(g, "square " + sq.pos + ": " + sq.name + (sq.shortcut ? " (" + sq.shortcut.gate + " shortcut)" : ""));
      });
      var inner = DOUBLETRACK.innerLayout(b);
      DOUBLETRACK.drawInner(layer, b, inner);
      return {at: at, inner: inner};
    },

    innerLayout: function (b) {
      var home = b.home, cols = home <= 100 ? 10 : Math.ceil(Math.sqrt(home)), rows = Math.ceil(home / cols);
      var x0 = 200, x1 = 600, y0 = 610, y1 = 210;
      var dx = (x1 - x0) / (cols - 1), dy = rows > 1 ? (y0 - y1) / (rows - 1) : 0;
      var at = {};
      for (var c = 1; c <= home; c++) {
        var row = Math.floor((c - 1) / cols), col = (c - 1) % cols;
        if (row % 2) { col = cols - 1 - col; }
        at[c] = [x0 + col * dx, y0 - row * dy];
      }
      at[0] = [x0 - dx * 1.6, y0];
      return {at: at, r: Math.min(16, dx * 0.38)};
    },

    drawInner: function (layer, b, inner) {
      var at = inner.at, home = b.home;
      var path = [];
      for (var c = 0; c <= home; c++) { path.push(at[c][0].toFixed(1) + "," + at[c][1].toFixed(1)); }
      svg(layer, "polyline", {points: path.join(" "), fill: "none", stroke: "#d8d0bd", "stroke-width": 10, "stroke-linejoin": "round"});
      var defs = svg(layer, "defs", {});
      var mk = svg(defs, "marker", {id: "rv-arrow", viewBox: "0 0 10 10", refX: 9, refY: 5, markerWidth: 5, markerHeight: 5, orient: "auto"});
      svg(mk, "path", {d: "M0 0 L10 5 L0 10 z", fill: "#7b3fa0"});
      Object.keys(b.purple_shortcuts).forEach(function (k) {
        var a = at[Number(k)], t = at[b.purple_shortcuts[k]];
        var dx = t[0] - a[0], dy = t[1] - a[1], d = Math.sqrt(dx * dx + dy * dy) || 1, ux = dx / d, uy = dy / d;
        var s0 = [a[0] + ux * inner.r, a[1] + uy * inner.r], s1 = [t[0] - ux * (inner.r + 1), t[1] - uy * (inner.r + 1)];
        var bend = uy > 0 ? -0.3 : 0.3; // bow the arrow to one side so it clears the circles between
        var ctrl = [(s0[0] + s1[0]) / 2 - uy * d * bend, (s0[1] + s1[1]) / 2 + ux * d * bend];
        svg(layer, "path", {d: "M" + s0[0] + " " + s0[1] + " Q" + ctrl[0] + " " + ctrl[1] + " " + s1[0] + " " + s1[1],
                            fill: "none", stroke: "#7b3fa0", "stroke-width": 2.5, "marker-end": "url(#rv-arrow)", "class": "rv-purple-shortcut"});
      });
      for (var i = 0; i <= home; i++) {
        var p = at[i], purple = b.purple_shortcuts[String(i)] !== undefined;
        var g = svg(layer, "g", {"class": "rv-circle", "data-circle": i});
        if (i === 0 || i === home) {
          svg(g, "rect", {x: p[0] - 30, y: p[1] - 16, width: 60, height: 32, rx: 16, fill: i ? "#2f2f2f" : "#fff", stroke: "#2f2f2f", "stroke-width": 2});
          label(p[0], p[1], i ? "HOME" : "START", 12, g, {fill: i ? "#fff" : "#2f2f2f", "font-weight": "bold"});
        } else {
          svg(g, "circle", {cx: p[0], cy: p[1], r: inner.r, fill: purple ? "#7b3fa0" : "#fff", stroke: purple ? "#4f2370" : "#9a9078", "stroke-width": 1.5});
          label(p[0], p[1], i, 10, g, {fill: purple ? "#fff" : "#666"});
        }
        title(g, i === 0 ? "START" : i === home ? "HOME" : "circle " + i + (purple ? ": purple shortcut to " + b.purple_shortcuts[String(i)] : ""));
      }
    },

    // the big pawn of the seat on turn: where a narrow screen opens the board
    focus: function (frame) { return ".rv-big[data-seat='" + frame.view.active + "']"; },

    draw: function (layers, frame, doc, lay, ply) {
      var v = frame.view, b = doc.board, layer = layers.board;
      // gates: who controls each one
      b.colours.forEach(function (col) {
        var p = lay.at["gate:" + col], ctl = v.gates[col];
        var g = svg(layer, "g", {"class": "rv-gate", "data-gate": col, "data-controller": ctl === null ? "none" : ctl});
        svg(g, "rect", {x: p[0] - 15, y: p[1] - 9, width: 30, height: 18, rx: 4, fill: ctl === null ? "#999" : seatColour(doc, ctl), stroke: colour(col), "stroke-width": 3});
        label(p[0], p[1], ctl === null ? "shut" : "gate", 8.5, g, {fill: "#fff", "font-weight": "bold"});
        title(g, col + " gate: " + (ctl === null ? "nobody controls it (closed)" : "controlled by " + doc.match.seats[ctl].label));
      });
      // big pawns on the outer track, small pawns on the inner track
      var byBig = {}, bySmall = {};
      v.seats.forEach(function (s) {
        (byBig[s.big.pos] = byBig[s.big.pos] || []).push(s.seat);
        (bySmall[s.small] = bySmall[s.small] || []).push(s.seat);
      });
      var moved = {};
      frame.events.forEach(function (e) { if (e.type === "roll") { moved["big" + e.seat] = true; } if (e.type === "small" || e.type === "trade") { moved["small" + e.seat] = true; if (e.other !== undefined) { moved["small" + e.other] = true; } } });
      Object.keys(byBig).forEach(function (pos) {
        var p = lay.at[pos], seats = byBig[pos], out = outward(p, Number(pos) >= b.main_len);
        seats.forEach(function (seat, k) {
          // beside the square, off the track, so the square stays readable; several side by side
          var along = (k - (seats.length - 1) / 2) * 17;
          var off = [out[0] * 29 - out[1] * along, out[1] * 29 + out[0] * along];
          svg(layer, "line", {x1: p[0] + out[0] * 18, y1: p[1] + out[1] * 18, x2: p[0] + off[0], y2: p[1] + off[1], stroke: seatColour(doc, seat), "stroke-width": 2});
          pawn(layer, p[0] + off[0], p[1] + off[1], 9, seatColour(doc, seat), "",
               {"class": "rv-piece rv-big" + (moved["big" + seat] ? " rv-moved" : "") + (v.active === seat && !v.over ? " rv-active" : ""), "data-seat": seat, "data-pos": Number(pos)});
        });
      });
      Object.keys(bySmall).forEach(function (c) {
        var p = lay.inner.at[c], seats = bySmall[c];
        seats.forEach(function (seat, k) {
          var off = seats.length > 1 ? [(k - (seats.length - 1) / 2) * 15, 0] : [0, 0];
          pawn(layer, p[0] + off[0], p[1] + off[1] - (Number(c) === 0 || Number(c) === b.home ? 26 : 0), 8, seatColour(doc, seat), "",
               {"class": "rv-piece rv-small" + (moved["small" + seat] ? " rv-moved" : ""), "data-seat": seat, "data-circle": Number(c)});
        });
      });
      DOUBLETRACK.side(layers.side, frame, doc, ply);
    },

    side: function (layer, frame, doc, ply) {
      var v = frame.view, x = 810, seats = doc.match.seats;
      panelBox(layer, x, 8, 382, 96, "#fbfaf7");
      var status = v.over ? (v.winner !== null ? seats[v.winner].label + " wins" : "game over") : seats[v.active].label + " on turn";
      label(x + 12, 26, "Turn " + v.turn + " / " + v.turn_limit + " \u00B7 " + status, 15, layer, {"text-anchor": "start", "font-weight": "bold"});
      var roll = latest(doc.frames, ply, "roll");
      if (roll) {
        var e = roll.event;
        e.dice.forEach(function (d, i) {
          var g = svg(layer, "g", {"class": "rv-die", "data-value": d});
          svg(g, "rect", {x: x + 12 + i * 44, y: 40, width: 36, height: 36, rx: 7, fill: "#fff", stroke: seatColour(doc, e.seat), "stroke-width": 3});
          label(x + 30 + i * 44, 58, d, 18, g, {"font-weight": "bold"});
        });
        label(x + 110, 58, seats[e.seat].label + " rolled " + e.dice.reduce(function (a, c) { return a + c; }, 0) +
              (roll.ply === ply ? "" : " (earlier)"), 11, layer, {"text-anchor": "start", fill: "#555"});
      }
      label(x + 12, 92, "draw pile " + v.draw_pile_size + " cards" + (v.on_sale ? " \u00B7 on sale: a face-down card from " + seats[v.on_sale.seller].label : ""), 11, layer, {"text-anchor": "start", fill: "#555", "class": "rv-onsale"});
      var y = 112;
      v.seats.forEach(function (s) {
        var g = svg(layer, "g", {"class": "rv-seat", "data-seat": s.seat});
        panelBox(g, x, y, 382, 92, v.active === s.seat && !v.over ? "#fffbea" : "#fff");
        svg(g, "rect", {x: x, y: y, width: 8, height: 92, rx: 3, fill: seatColour(doc, s.seat)});
        label(x + 18, y + 16, s.colour + " \u00B7 " + seats[s.seat].name, 13, g, {"text-anchor": "start", "font-weight": "bold"});
        label(x + 372, y + 16, "$" + s.money, 16, g, {"text-anchor": "end", "font-weight": "bold", "class": "rv-money"});
        for (var k = 0; k < s.hand_size; k++) {
          svg(g, "rect", {x: x + 18 + k * 16, y: y + 30, width: 22, height: 30, rx: 3, fill: "#35507a", stroke: "#fff", "class": "rv-card-back"});
        }
        label(x + 30 + s.hand_size * 16, y + 45, s.hand_size + " cards" + (s.known_cards.length ? " (known: " + s.known_cards.join(", ") + ")" : ""), 10, g, {"text-anchor": "start", fill: "#555"});
        label(x + 18, y + 76, "big pawn: " + s.big.square.replace(/_/g, " ") + " \u00B7 small pawn: " + (s.small === 0 ? "START" : s.small === doc.board.home ? "HOME" : s.small), 10, g, {"text-anchor": "start", fill: "#555"});
        s.gates.forEach(function (gate, k) {
          svg(g, "rect", {x: x + 260 + k * 28, y: y + 32, width: 24, height: 16, rx: 3, fill: colour(gate), "class": "rv-pass", "data-gate": gate});
          label(x + 272 + k * 28, y + 56, "pass", 7, g, {fill: "#777"});
        });
        y += 98;
      });
      // the latest auction, once revealed, and the cards played lately
      var bids = latest(doc.frames, ply, "bids");
      if (bids) {
        var e = bids.event, what = {card: "the card on sale", pass: "a gate pass", lead: "the lead"}[e.auction] || e.auction;
        var bg = svg(layer, "g", {"class": "rv-bids", "font-weight": bids.ply === ply ? "bold" : "normal"});
        label(x + 6, y + 8, "Last auction, for " + what + ": " + seats[e.winner].label + " wins", 11, bg, {"text-anchor": "start"});
        e.bids.forEach(function (bid, seat) {
          if (bid === null) { return; }
          svg(bg, "circle", {cx: x + 12 + seat * 94, cy: y + 26, r: 5, fill: seatColour(doc, seat)});
          label(x + 21 + seat * 94, y + 26, seats[seat].label + " $" + bid, 11, bg, {"text-anchor": "start"});
        });
      }
      var played = v.cards_played.slice(-6);
      label(x + 6, y + 48, played.length ? "Cards played (latest last):" : "No card played yet", 11, layer, {"text-anchor": "start", fill: "#555"});
      played.forEach(function (c, k) {
        var cx = x + 6 + k * 63;
        var g = svg(layer, "g", {"class": "rv-played", "data-card": c.card});
        svg(g, "rect", {x: cx, y: y + 58, width: 58, height: 40, rx: 4, fill: "#fff", stroke: seatColour(doc, c.seat), "stroke-width": 2});
        cardWords(c.card).forEach(function (w, i) { label(cx + 29, y + 70 + i * 11, w, 8.5, g); });
        title(g, seats[c.seat].label + " played " + c.card);
      });
    }
  };

  function cardWords(card) {
    if (card.indexOf("number-") === 0) { return ["Number", card.slice(7)]; }
    return {trade_places: ["Trade", "Places"], take_the_lead: ["Take The", "Lead"], back_10: ["Back 10"],
            go_farthest_back: ["Farthest", "Back"], steal_a_gate_pass: ["Steal", "Gate Pass"], worthless: ["Worthless"]}[card] || [card];
  }

  // The unit vector pointing off the track at p: away from the rounded square's core for the
  // main loop, away from the board's centre on a shortcut.
  function outward(p, onShortcut) {
    var r = BOX.r, q;
    if (onShortcut) { q = [400, 400]; } else {
      q = [Math.max(BOX.x0 + r, Math.min(BOX.x1 - r, p[0])), Math.max(BOX.y0 + r, Math.min(BOX.y1 - r, p[1]))];
    }
    var dx = p[0] - q[0], dy = p[1] - q[1], d = Math.sqrt(dx * dx + dy * dy) || 1;
    return [dx / d, dy / d];
  }

  // ---------------------------------------------------------------- any other game

  var GENERIC = {
    layout: function () { return {}; },
    draw: function (layers, frame) {
      var layer = layers.board, lines = JSON.stringify(frame.view, null, 1).split("\n").slice(0, 60);
      lines.forEach(function (l, i) { label(20, 20 + i * 12, l, 10, layer, {"text-anchor": "start", "font-family": "monospace"}); });
    }
  };

  var GAMES = {"tokaido-duo": TOKAIDO, "doubletrack": DOUBLETRACK};

  // ---------------------------------------------------------------- mounting

  function plyFromUrl() {
    var m = /(?:^|[#&])ply=(\d+)/.exec(location.hash) || /[?&]ply=(\d+)/.exec(location.search);
    return m ? Number(m[1]) : null;
  }

  function mount(root) {
    if (root.getAttribute("data-mounted")) { return; }
    root.setAttribute("data-mounted", "true");
    var fromUrl = plyFromUrl(), given = Number(root.getAttribute("data-ply") || 0);
    var start = fromUrl !== null ? fromUrl : given;
    var dataId = root.getAttribute("data-frames");
    var start_viewer = function (doc) {
      var fallback = root.querySelector(".rv-static");
      if (fallback) { fallback.hidden = true; }
      root.viewer = new Viewer(root, doc, start);
      // a page that is only the viewer (referee view) gives it the keys from the start
      if (root.hasAttribute("data-autofocus")) { root.focus({preventScroll: true}); }
    };
    if (dataId) {
      start_viewer(JSON.parse(document.getElementById(dataId).textContent));
    } else if (root.getAttribute("data-frames-url")) {
      fetch(root.getAttribute("data-frames-url")).then(function (r) {
        if (!r.ok) { throw new Error("HTTP " + r.status); }
        return r.json();
      }).then(start_viewer).catch(function (err) {
        html(root, "p", {"class": "rv-error"}, "The replay could not be loaded: " + err.message);
      });
    }
  }

  // ---------------------------------------------------------------- a match being played

  var POLL_MS = 1000;

  // New frames at the end: the timeline and slider grow; a viewer on the last frame (not
  // playing) follows the match, one looking back stays where it is.
  Viewer.prototype.extend = function (more) {
    if (!more.length) { return; }
    var following = !this.timer && this.ply >= this.frames.length - 1;
    Array.prototype.push.apply(this.frames, more);
    this.troubles = this.frames.filter(hasTrouble).map(function (f) { return f.ply; });
    var strike = this.more.querySelector("[data-act='trouble']");
    if (strike && this.troubles.length) { strike.disabled = false; strike.title = "next strike or fault (n)"; }
    while (this.timeline.firstChild) { this.timeline.removeChild(this.timeline.firstChild); }
    this.drawTimeline();
    this.scrub.max = String(this.frames.length - 1);
    this.show(following ? this.frames.length - 1 : this.ply);
  };

  // A live box (data-referee-live: the URL of the match's live frames) polls for the frames
  // after those it has; when the match is over (its state is not "running"), played again
  // (another attempt) or no longer to be shown (a refusal), the page is loaded again: it then
  // shows the stored replay, or says why not.
  function follow(box) {
    var url = box.getAttribute("data-referee-live"), attempt = box.getAttribute("data-attempt");
    var root = box.querySelector("[data-referee-viewer]");
    function again(ms) { setTimeout(poll, ms); }
    function poll() {
      var have = root && root.viewer ? root.viewer.frames.length : 0;
      fetch(url + "?since=" + have, {headers: {Accept: "application/json"}, cache: "no-store"}).then(function (r) {
        if (r.status === 429 || r.status >= 500) { again(POLL_MS * 10); return null; }
        if (!r.ok) { location.reload(); return null; }
        return r.json();
      }).then(function (doc) {
        if (!doc) { return; }
        if (doc.state !== "running" || String(doc.attempt) !== attempt || (!(root && root.viewer) && doc.frames.length)) { location.reload(); return; }
        if (root && root.viewer) { root.viewer.extend(doc.frames); }
        again(POLL_MS);
      }).catch(function () { again(POLL_MS * 10); });
    }
    again(POLL_MS);
  }

  window.RefereeViewer = {mount: mount};
  function mountAll() {
    Array.prototype.forEach.call(document.querySelectorAll("[data-referee-viewer]"), mount);
    Array.prototype.forEach.call(document.querySelectorAll("[data-referee-live]"), follow);
  }
  if (document.readyState === "loading") { document.addEventListener("DOMContentLoaded", mountAll); } else { mountAll(); }
})();

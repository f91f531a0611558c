// The Action Point map (issue 22 item 1): pick a spot for the selected creature — tap the map,
// drag its token, or with the keyboard (Enter on the token, arrow keys move a cursor, Enter) —
// and see what the move costs before sending it: "Move to (3, 4.5): 2 AP", then Confirm sends
// "ID: move to X,Y" through the page's own command form (the outbox of caltrop.js).
// The page holds no rules: the cost is read off the token's data-steps, the view model's list
// of (farthest meters, cost) for each price (table/movement.py, from the engine's R35 price,
// economy/points/movement.py::move_steps); a spot past the last step is out of reach. The only
// arithmetic here is the map's own geometry (map units <-> meters) and the distance.
(function () {
  "use strict";
  // what the player is doing on the map, kept across screen updates (the map is re-rendered
  // with every view): the creature, the spot (meters), and "cursor" or "preview"
  var pick = null;
  var drag = null;
  var THERE = 1e-6; // meters: a spot this close is where the creature stands (no move)

  function map() { return document.getElementById("map"); }
  function num(el, name) { return parseFloat(el.getAttribute(name)); }
  function frame(m) {
    return { scale: num(m, "data-scale"), x0: num(m, "data-x0"), y0: num(m, "data-y0"),
             width: num(m, "data-width"), height: num(m, "data-height"), grid: num(m, "data-grid") };
  }
  function token(m, id) {
    return id ? m.querySelector('g.token.movable[data-move="' + CSS.escape(id) + '"]') : null;
  }
  function selectedId(m) { return m.getAttribute("data-selected"); }
  // a spot's meters to the map's units, and back
  function toMap(f, x, y) { return { x: (x - f.x0) * f.scale, y: (y - f.y0) * f.scale }; }
  function toMeters(f, X, Y) { return { x: f.x0 + X / f.scale, y: f.y0 + Y / f.scale }; }
  // a tenth of a meter: what a command names
  function tenth(v) { return Math.round(v * 10) / 10; }
  function text(v) {
    var r = tenth(v);
    return (Object.is(r, -0) ? 0 : r).toString();
  }
  function clamp(f, spot) {
    var lo = toMeters(f, 0, 0), hi = toMeters(f, f.width, f.height);
    return { x: Math.min(Math.max(spot.x, lo.x), hi.x), y: Math.min(Math.max(spot.y, lo.y), hi.y) };
  }

  function select(m, id) {
    m.setAttribute("data-selected", id);
    m.querySelectorAll(".rings .reach").forEach(function (g) {
      g.classList.toggle("off", g.getAttribute("data-for") !== id);
    });
    m.querySelectorAll(".reach-text").forEach(function (p) {
      p.hidden = p.getAttribute("data-for") !== id;
    });
  }

  // the cost of a move of `meters` from the creature's steps: the first price whose farthest
  // distance reaches it (R35 as the engine charges it), or null past them all
  function costOf(t, meters) {
    var steps = JSON.parse(t.getAttribute("data-steps") || "[]");
    for (var i = 0; i < steps.length; i++) {
      if (meters <= steps[i][0]) { return steps[i][1]; }
    }
    return null;
  }

  function draw(m, t, spot) {
    var f = frame(m);
    var from = toMap(f, num(t, "data-x"), num(t, "data-y"));
    var to = toMap(f, spot.x, spot.y);
    var cursor = m.querySelector("g.cursor");
    if (!cursor) { return; }
    cursor.setAttribute("display", "inline");
    var line = cursor.querySelector("line"), dot = cursor.querySelector("circle");
    line.setAttribute("x1", from.x); line.setAttribute("y1", from.y);
    line.setAttribute("x2", to.x); line.setAttribute("y2", to.y);
    dot.setAttribute("cx", to.x); dot.setAttribute("cy", to.y);
  }

  // what a move to `spot` costs, in words, and the command; null cost when out of reach
  function quote(t, spot) {
    var x = tenth(spot.x), y = tenth(spot.y);
    var meters = Math.hypot(x - num(t, "data-x"), y - num(t, "data-y"));
    var there = meters < THERE;
    var cost = there ? null : costOf(t, meters);
    var where = "Move to (" + text(x) + ", " + text(y) + ")";
    var far = text(meters) + " m";
    var words;
    if (there) { words = where + ": " + t.getAttribute("data-name") + " is there"; }
    else if (cost === null) { words = where + ": " + far + ", out of reach now"; }
    else { words = where + ": " + cost + " (" + far + ")"; }
    return { words: words, cost: cost,
             command: t.getAttribute("data-move") + ": move to " + text(x) + "," + text(y) };
  }

  function status(m, words) {
    var s = m.querySelector("#map-status");
    if (s) { s.textContent = words; }
  }

  // a new command id (caltrop.js, loaded first, makes every id of the page)
  function freshId() { return window.caltropFreshId(); }

  // show the spot: while choosing ("cursor"), only the words; once chosen ("preview"), the
  // Confirm form with the command (a fresh command_id: another spot is another command)
  function show(focusConfirm) {
    var m = map();
    if (!m || !pick) { return; }
    var t = token(m, pick.id);
    if (!t) { pick = null; return; }
    if (selectedId(m) !== pick.id) { select(m, pick.id); }
    draw(m, t, pick.spot);
    var q = quote(t, pick.spot);
    var form = m.querySelector("form.map-move");
    if (pick.mode === "cursor") {
      status(m, q.words + ". Arrow keys move, Enter shows the cost to confirm, Escape cancels.");
      if (form) { form.hidden = true; }
      return;
    }
    status(m, q.words);
    if (!form) { return; }
    var command = form.querySelector("input[name=command]");
    if (command.value !== q.command) {
      command.value = q.command;
      form.querySelector("input[name=command_id]").value = freshId();
    }
    var confirm = form.querySelector("button.confirm");
    confirm.disabled = q.cost === null;
    confirm.textContent = q.cost === null ? "Out of reach" : "Confirm: " + q.cost;
    form.hidden = false;
    if (focusConfirm) {
      // scrolled into view from below, never up under a phone's sticky "now" panel
      if (q.cost === null) { t.focus({ preventScroll: true }); } else { confirm.focus({ preventScroll: true }); }
      form.scrollIntoView({ block: "nearest" });
    }
  }

  function cancel() {
    var m = map();
    pick = null;
    if (!m) { return; }
    var cursor = m.querySelector("g.cursor");
    if (cursor) { cursor.setAttribute("display", "none"); }
    var form = m.querySelector("form.map-move");
    if (form) { form.hidden = true; }
    status(m, "");
  }

  function svgPoint(svg, e) {
    var p = svg.createSVGPoint();
    p.x = e.clientX; p.y = e.clientY;
    var ctm = svg.getScreenCTM();
    return ctm ? p.matrixTransform(ctm.inverse()) : p;
  }

  // -- pointer: drag a token, or tap a spot ----------------------------------------------------
  document.addEventListener("pointerdown", function (e) {
    var m = map();
    if (!m || !e.target.closest) { return; }
    var svg = e.target.closest("#map svg");
    if (!svg) { return; }
    var t = e.target.closest("g.token.movable");
    if (t && t.getAttribute("data-move") === selectedId(m)) {
      drag = { id: t.getAttribute("data-move"), moved: false, x: e.clientX, y: e.clientY };
      try { svg.setPointerCapture(e.pointerId); } catch (err) { /* not capturable */ }
      e.preventDefault();
    }
  });
  document.addEventListener("pointermove", function (e) {
    var m = map();
    if (!drag || !m) { return; }
    if (Math.abs(e.clientX - drag.x) + Math.abs(e.clientY - drag.y) < 4 && !drag.moved) { return; }
    drag.moved = true;
    var svg = m.querySelector("svg");
    var f = frame(m), p = svgPoint(svg, e);
    pick = { id: drag.id, spot: clamp(f, toMeters(f, p.x, p.y)), mode: "cursor" };
    show(false);
  });
  document.addEventListener("pointerup", function (e) {
    var m = map();
    if (!m) { drag = null; return; }
    var svg = m.querySelector("svg");
    if (drag) {
      var was = drag;
      drag = null;
      if (!was.moved) { return; }
      var f = frame(m), p = svgPoint(svg, e);
      pick = { id: was.id, spot: clamp(f, toMeters(f, p.x, p.y)), mode: "preview" };
      show(true);
      return;
    }
    // a tap on the map itself (not on a creature): that spot, for the selected creature
    if (!e.target.closest || !e.target.closest("#map svg") || e.target.closest("g.token")) { return; }
    var id = selectedId(m);
    if (!id) { return; }
    var fr = frame(m), q = svgPoint(svg, e);
    if (q.y > fr.height) { return; } // the scale bar's strip
    pick = { id: id, spot: toMeters(fr, q.x, q.y), mode: "preview" };
    show(true);
  });
  // a finger on the token drags it, it does not scroll the page (touch-action is not honoured
  // on an SVG group); a drag the browser cancels all the same shows the spot it reached
  document.addEventListener("touchstart", function (e) {
    var m = map();
    var t = m && e.target.closest && e.target.closest("#map g.token.movable");
    if (t && t.getAttribute("data-move") === selectedId(m)) { e.preventDefault(); }
  }, { passive: false });
  document.addEventListener("pointercancel", function () {
    if (!drag) { return; }
    var was = drag;
    drag = null;
    if (was.moved && pick) { pick.mode = "preview"; show(true); }
  });
  // the GM (or anyone who moves several creatures) taps another movable creature to select it
  document.addEventListener("click", function (e) {
    var m = map();
    var t = m && e.target.closest && e.target.closest("#map g.token.movable");
    if (t && t.getAttribute("data-move") !== selectedId(m)) {
      cancel();
      select(m, t.getAttribute("data-move"));
    }
  });

  // -- keyboard: Enter on the token starts a cursor, arrows move it, Enter previews -----------
  document.addEventListener("keydown", function (e) {
    var m = map();
    var t = m && e.target.closest && e.target.closest("#map g.token.movable");
    if (!t) {
      if (e.key === "Escape" && pick && m && m.contains(e.target)) { cancel(); }
      return;
    }
    var id = t.getAttribute("data-move");
    var f = frame(m);
    if (e.key === "Enter" || e.key === " ") {
      e.preventDefault();
      if (!pick || pick.id !== id) {
        select(m, id);
        pick = { id: id, spot: { x: num(t, "data-x"), y: num(t, "data-y") }, mode: "cursor" };
        show(false);
      } else {
        pick.mode = "preview";
        show(true);
      }
      return;
    }
    if (e.key === "Escape") { e.preventDefault(); cancel(); return; }
    var moves = { ArrowLeft: [-1, 0], ArrowRight: [1, 0], ArrowUp: [0, -1], ArrowDown: [0, 1] };
    var d = moves[e.key];
    if (!d || !pick || pick.id !== id) { return; }
    e.preventDefault();
    var by = e.shiftKey ? f.grid : 1;
    pick.spot = clamp(f, { x: tenth(pick.spot.x) + d[0] * by, y: tenth(pick.spot.y) + d[1] * by });
    pick.mode = "cursor";
    show(false);
  });

  document.addEventListener("click", function (e) {
    if (e.target.closest && e.target.closest("#map form.map-move button.cancel")) {
      var m = map();
      var id = pick && pick.id;
      cancel();
      var t = m && token(m, id);
      if (t) { t.focus(); }
    }
  });
  // sent: the next screen shows the creature where it went; the keyboard's focus goes back to
  // its token (kept across the new screen by its id, caltrop.js), ready for the next move
  document.addEventListener("submit", function (e) {
    if (!e.target.closest || !e.target.closest("#map form.map-move")) { return; }
    var m = map();
    var t = m && pick && token(m, pick.id);
    if (t && m.contains(document.activeElement)) { t.focus({ preventScroll: true }); }
    pick = null;
  }, true);
  // a new screen (anyone's command) redraws the map: keep the spot being chosen
  document.addEventListener("htmx:wsAfterMessage", function () {
    if (pick) { show(false); }
  });
})();

// Caltrop's screens: what htmx does not do itself (issue 12). The page holds no rules: the
// server sends every part of the screen as HTML over the page socket (htmx's ws extension).
// Here: the "reconnecting" badge while the socket is closed, a resync when the page becomes
// visible again (a phone that slept), a vibration and visual cue when a reaction window
// opens for this player, tapping a creature on the distance map to fill "move toward", and
// the outbox: command forms go over the page socket, and a tap made while it is closed
// (offline, reconnecting) waits, is shown as "waiting to send", and is sent with its
// command_id once the socket is back (issue 20 §1, issue 22 item 5).
(function () {
  "use strict";
  var socket = null; // htmx's socket wrapper: send, reconnect
  var open = false;
  var reactions = 0;

  // the page's own socket, so that a browser that knows it went offline closes it (and shows
  // the badge) instead of waiting for the connection to time out
  var raw = null;
  htmx.createWebSocket = function (url) {
    raw = new WebSocket(url);
    return raw;
  };
  var OFFLINE = 4001; // our own close code: htmx's extension does not retry it; "online" does

  // reconnect soon and often: at a table a dropped phone should come back within seconds
  htmx.config.wsReconnectDelay = function (retries) {
    return Math.min(500 * Math.pow(2, retries), 4000) * (0.5 + Math.random() / 2);
  };

  function badge(show) {
    var b = document.getElementById("badge");
    if (b) { b.hidden = !show; }
    document.documentElement.classList.toggle("offline", show);
  }

  document.addEventListener("htmx:wsOpen", function (e) {
    socket = e.detail.socketWrapper;
    open = true;
    badge(false);
    flush();
  });
  document.addEventListener("htmx:wsClose", function () {
    open = false;
    badge(true);
  });
  document.addEventListener("htmx:wsError", function () { badge(true); });
  document.addEventListener("htmx:wsConnecting", function () { if (!open) { badge(true); } });

  function resync() {
    if (!socket) { return; }
    if (open) { socket.send("resync"); } else { socket.reconnect(); }
  }
  document.addEventListener("visibilitychange", function () {
    if (document.visibilityState === "visible") { resync(); }
  });
  window.addEventListener("offline", function () {
    if (raw && raw.readyState <= 1) { raw.close(OFFLINE, "offline"); }
    badge(true);
  });
  window.addEventListener("online", resync);
  window.addEventListener("pageshow", function (e) { if (e.persisted) { resync(); } });

  // a new screen replaces the buttons: keep the keyboard focus on the same control
  var focused = null;
  document.addEventListener("htmx:wsBeforeMessage", function () {
    var el = document.activeElement;
    var live = document.getElementById("live");
    focused = null;
    if (el && live && live.contains(el)) {
      var form = el.closest("form");
      var command = form && form.querySelector("input[name=command]");
      focused = command ? command.value : (el.id || null);
    }
  });
  function refocus() {
    if (focused === null) { return; }
    var inputs = document.querySelectorAll("#live form input[name=command]");
    for (var i = 0; i < inputs.length; i++) {
      if (inputs[i].value === focused) {
        var button = inputs[i].form.querySelector("button");
        if (button) { button.focus(); return; }
      }
    }
    var byId = document.getElementById(focused);
    var target = byId || document.getElementById("actions-h");
    if (target) {
      if (!byId) { target.setAttribute("tabindex", "-1"); }
      target.focus();
    }
  }

  // whether the user has tapped, clicked or typed on this page yet (issue 22 item 8): the
  // events that give a page its user activation (HTML's activation-triggering events), seen
  // here, and the browser's own record where it keeps one
  var gesture = false;
  ["keydown", "mousedown", "pointerup", "touchend", "click"].forEach(function (type) {
    document.addEventListener(type, function () { gesture = true; }, { capture: true, passive: true });
  });
  function tapped() {
    var ua = navigator.userActivation;
    return gesture && (ua ? ua.hasBeenActive : true);
  }

  // a reaction window opened for this player: vibrate once, flash the actions
  document.addEventListener("htmx:wsAfterMessage", function () {
    refocus();
    var live = document.getElementById("live");
    if (!live) { return; }
    var now = parseInt(live.getAttribute("data-reactions") || "0", 10);
    var screen = document.getElementById("table");
    var player = screen && screen.classList.contains("player");
    if (player && now > 0 && reactions === 0) {
      // Chromium blocks (and logs) a vibration before the page's first tap: only after one
      if (navigator.vibrate && tapped()) { try { navigator.vibrate([120, 60, 120]); } catch (err) { /* no vibration */ } }
      var actions = document.getElementById("actions");
      if (actions) { actions.classList.add("cue-flash"); }
    }
    reactions = now;
  });

  // the distance map: a creature is a button that fills "move toward ID"
  function fill(target) {
    var box = document.getElementById("command-text");
    var text = target.getAttribute("data-fill");
    if (box && text) { box.value = text; box.focus(); }
  }
  document.addEventListener("click", function (e) {
    var t = e.target.closest && e.target.closest("[data-fill]");
    if (t) { fill(t); }
  });
  document.addEventListener("keydown", function (e) {
    var t = e.target.closest && e.target.closest("[data-fill]");
    if (t && (e.key === "Enter" || e.key === " ")) { e.preventDefault(); fill(t); }
  });

  // -- the outbox ---------------------------------------------------------------------------
  // Every command form tapped once the page socket has opened goes over the socket as
  // {"form": {field: [values]}, "command_id", "expected_seq"?} and stays in the outbox (kept in
  // sessionStorage: a reload loses nothing) until its answer comes. A tap made while the socket
  // is closed waits with the seq of the screen it was made on: sent once the socket is back, the
  // server refuses it (409) if the table moved on meanwhile. Resending an unanswered tap uses its
  // command_id, so the server applies it once. Before the socket ever opened (or without this
  // script) the forms post over HTTP as before.
  var KEY = "caltrop-outbox";
  var SLOW = 2000; // ms without an answer before a sent tap shows as waiting
  var outbox = [];
  var forms = {}; // command_id -> the form it came from (while it is on the page)
  try { outbox = JSON.parse(sessionStorage.getItem(KEY) || "[]") || []; } catch (err) { outbox = []; }
  function save() {
    try { sessionStorage.setItem(KEY, JSON.stringify(outbox)); } catch (err) { /* private mode */ }
  }
  function freshId() {
    var bytes = new Uint8Array(12);
    crypto.getRandomValues(bytes);
    var s = "";
    for (var i = 0; i < bytes.length; i++) { s += ("0" + bytes[i].toString(16)).slice(-2); }
    return s;
  }
  // the one maker of command ids for every script of the page (gm_rows.js, map.js)
  window.caltropFreshId = freshId;
  function fieldsOf(formData) {
    var fields = {};
    formData.forEach(function (value, name) {
      if (typeof value !== "string") { return; }
      (fields[name] = fields[name] || []).push(value);
    });
    return fields;
  }
  function sameFields(a, b) {
    var strip = function (f) {
      var copy = {};
      Object.keys(f).sort().forEach(function (k) { if (k !== "command_id") { copy[k] = f[k]; } });
      return JSON.stringify(copy);
    };
    return strip(a) === strip(b);
  }
  function labelOf(form, fields) {
    if (fields.command && fields.command[0] && !fields.die && !fields.faces) { return fields.command[0]; }
    var legend = form.querySelector("legend");
    var button = form.querySelector("button");
    return ((legend && legend.textContent) || (button && button.textContent) || "command").trim();
  }
  function outboxList() {
    var list = document.getElementById("outbox");
    if (!list) {
      list = document.createElement("div");
      list.id = "outbox";
      list.className = "outbox";
      var b = document.getElementById("badge");
      var place = (b && b.parentNode) || document.getElementById("table") || document.body;
      place.insertBefore(list, b ? b.nextSibling : place.firstChild);
    }
    return list;
  }
  function showOutbox() {
    var list = outboxList();
    var old = list.querySelectorAll(".waiting-to-send");
    for (var i = 0; i < old.length; i++) { old[i].remove(); }
    outbox.forEach(function (entry) {
      var p = document.createElement("p");
      p.className = "waiting-to-send";
      p.setAttribute("role", "status");
      p.setAttribute("data-command-id", entry.command_id);
      p.textContent = "waiting to send: " + entry.label;
      list.appendChild(p);
    });
  }
  function say(form, text, refused) {
    var out = form && document.body.contains(form) ? form.querySelector("output") : null;
    if (out) {
      out.innerHTML = "";
      if (text) {
        var span = document.createElement("span");
        span.className = refused ? "refusal" : "ok";
        span.setAttribute("role", refused ? "alert" : "status");
        span.textContent = text;
        out.appendChild(span);
      }
      return true;
    }
    return false;
  }
  function sendEntry(entry) {
    var message = { form: entry.form, command_id: entry.command_id };
    if (entry.expected_seq !== null && entry.expected_seq !== undefined) {
      message.expected_seq = entry.expected_seq;
    }
    raw.send(JSON.stringify(message));
  }
  function socketReady() { return open && raw && raw.readyState === 1; }
  function flush() {
    if (!socketReady()) { return; }
    outbox.forEach(sendEntry);
  }
  function tap(form, formData) {
    var notices = outboxList().querySelectorAll(".refusal"); // the last refusals were read
    for (var n = 0; n < notices.length; n++) { notices[n].remove(); }
    var fields = fieldsOf(formData);
    var id = (fields.command_id || [""])[0];
    for (var i = 0; i < outbox.length; i++) {
      if (outbox[i].command_id === id) {
        if (sameFields(outbox[i].form, fields)) { return; } // a double tap: the same command
        id = freshId(); // the same form, another command (typed while offline): its own id
        var input = form.querySelector("input[name=command_id]");
        if (input) { input.value = id; }
        break;
      }
    }
    fields.command_id = [id];
    var live = document.getElementById("live");
    var seq = live ? parseInt(live.getAttribute("data-seq") || "", 10) : NaN;
    var entry = { command_id: id, form: fields, label: labelOf(form, fields), expected_seq: null };
    forms[id] = form;
    if (socketReady()) {
      outbox.push(entry);
      save();
      sendEntry(entry);
      // no answer soon (a socket that died without a word): show it waiting; it is sent
      // again with its command_id once the socket is back
      setTimeout(showOutbox, SLOW);
      return;
    }
    // made on a screen that may be stale: refused if the table moves on before it is sent
    if (!isNaN(seq)) { entry.expected_seq = seq; }
    outbox.push(entry);
    save();
    showOutbox();
    say(form, "waiting to send", false);
  }
  function answered(data) {
    var entry = null;
    outbox = outbox.filter(function (e) {
      if (e.command_id === data.command_id) { entry = e; return false; }
      return true;
    });
    save();
    showOutbox();
    if (!entry) { return; }
    var form = forms[entry.command_id];
    delete forms[entry.command_id];
    document.dispatchEvent(new CustomEvent("caltrop:answered", { detail: { form: form, ok: data.type === "answer" } }));
    if (data.type === "answer") {
      say(form, "", false);
      if (form && form.classList.contains("text")) {
        var box = form.querySelector("input[name=command]");
        if (box && box.value === entry.form.command[0]) { box.value = ""; }
      }
      return;
    }
    var why = data.detail || "refused";
    if (data.status === 409 && data.head !== undefined) {
      why = "not sent: the table moved on while it waited (" + why + "); look again and tap again";
    }
    if (!say(form, why, true)) {
      var p = document.createElement("p");
      p.className = "refusal";
      p.setAttribute("role", "alert");
      p.textContent = entry.label + ": " + why;
      outboxList().appendChild(p);
    }
  }
  document.addEventListener("htmx:beforeRequest", function (e) {
    var form = e.detail.elt;
    if (!form || form.tagName !== "FORM" || form.getAttribute("hx-post") !== "/table/command") { return; }
    if (socket === null && navigator.onLine !== false) { return; } // no socket yet: HTTP
    e.preventDefault();
    var config = e.detail.requestConfig;
    tap(form, (config && config.formData) || new FormData(form));
  });
  document.addEventListener("htmx:wsBeforeMessage", function (e) {
    var text = e.detail.message;
    if (typeof text !== "string" || text.charAt(0) !== "{") { return; }
    e.preventDefault(); // a command's answer, not a screen to swap
    var data;
    try { data = JSON.parse(text); } catch (err) { return; }
    if (data.type === "answer" || data.type === "refused") { answered(data); }
  });
  if (outbox.length) {
    document.addEventListener("DOMContentLoaded", showOutbox);
  }

  // after an accepted command the button's form is replaced by the next screen; a refusal
  // stays beside the form. Clear a text box once its command went through.
  document.addEventListener("htmx:afterRequest", function (e) {
    var form = e.detail.elt;
    // a refusal is answered 200 too, its status in X-Caltrop-Status (web/refusals.py): kept
    var refused = e.detail.xhr && e.detail.xhr.getResponseHeader("X-Caltrop-Status");
    if (e.detail.successful && e.detail.xhr.status === 200 && !refused && form.classList &&
        form.classList.contains("text")) {
      var box = form.querySelector("input[name=command]");
      if (box) { box.value = ""; }
    }
  });
})();

// Caltrop's screens: what htmx does not do itself (issue 12). The page holds no rules: the
// server sends every part of the screen as HTML over the page socket (htmx's ws extension).
// Here: the "reconnecting" badge while the socket is closed, a resync when the page becomes
// visible again (a phone that slept), a vibration and visual cue when a reaction window
// opens for this player, and tapping a creature on the distance map to fill "move toward".
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

  // a reaction window opened for this player: vibrate once, flash the actions
  document.addEventListener("htmx:wsAfterMessage", function () {
    refocus();
    var live = document.getElementById("live");
    if (!live) { return; }
    var now = parseInt(live.getAttribute("data-reactions") || "0", 10);
    var screen = document.getElementById("table");
    var player = screen && screen.classList.contains("player");
    if (player && now > 0 && reactions === 0) {
      if (navigator.vibrate) { try { navigator.vibrate([120, 60, 120]); } catch (err) { /* no vibration */ } }
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

  // after an accepted command the button's form is replaced by the next screen; a refusal
  // stays beside the form. Clear a text box once its command went through.
  document.addEventListener("htmx:afterRequest", function (e) {
    var form = e.detail.elt;
    if (e.detail.successful && e.detail.xhr.status === 200 && form.classList &&
        form.classList.contains("text")) {
      var box = form.querySelector("input[name=command]");
      if (box) { box.value = ""; }
    }
  });
})();

// The GM screen's creature rows and tool forms (issue 22 items 7 and 8). No rules here: the
// server renders every row from the view model. This keeps what the GM is doing across the
// screens the socket sends while the GM works:
// - a row the GM opened or closed by hand stays so, until whether it decides now changes (the
//   server opens the rows of the creatures that decide now);
// - what the GM typed or chose and has not applied (a row's amount, DC or Aspect; the creature
//   to add) survives another player's command;
// - a tool form is emptied after a successful Apply, with a fresh command_id (a second Apply
//   is a new command), and keeps its values after a refusal (to be corrected and sent again);
//   a row's one-tap form (Health ± 1, conditions, up / down) gets a fresh command_id likewise.
(function () {
  "use strict";
  var chosen = {}; // row id -> {open, decides} the GM chose by hand
  var typed = {}; // input id -> value, kept over one screen swap

  // a new command id (caltrop.js, loaded first, makes every id of the page)
  function freshId() { return window.caltropFreshId(); }

  document.addEventListener("click", function (e) {
    var summary = e.target.closest && e.target.closest("details.choices > summary");
    if (!summary) { return; }
    var details = summary.parentNode;
    // the click comes before the toggle: the state it is going to
    chosen[details.id] = { open: !details.open, decides: details.getAttribute("data-decides") };
  });

  document.addEventListener("htmx:wsBeforeMessage", function (e) {
    var text = e.detail.message;
    if (typeof text !== "string" || text.charAt(0) === "{") { return; } // an answer, no screen
    typed = {};
    var inputs = document.querySelectorAll("input[data-keep], select[data-keep]");
    for (var i = 0; i < inputs.length; i++) {
      if (inputs[i].id && inputs[i].value !== "") { typed[inputs[i].id] = inputs[i].value; }
    }
  });

  // the Add picker comes with every screen; it is swapped only when its choices change (the
  // table went on to another encounter), so a picker the GM has open is not closed under them
  document.addEventListener("htmx:oobBeforeSwap", function (e) {
    var target = e.detail && e.detail.target;
    if (!target || target.id !== "add-source") { return; }
    var incoming = e.detail.fragment && e.detail.fragment.firstElementChild;
    if (incoming && incoming.getAttribute("data-choices") === target.getAttribute("data-choices")) {
      e.detail.shouldSwap = false;
    }
  });

  document.addEventListener("htmx:wsAfterMessage", function () {
    Object.keys(chosen).forEach(function (id) {
      var details = document.getElementById(id);
      if (!details) { delete chosen[id]; return; }
      if (details.getAttribute("data-decides") !== chosen[id].decides) { delete chosen[id]; return; }
      details.open = chosen[id].open;
    });
    Object.keys(typed).forEach(function (id) {
      var input = document.getElementById(id);
      if (!input) { return; }
      if (input.tagName === "SELECT") { // the choice, if the new screen still offers it
        for (var k = 0; k < input.options.length; k++) {
          if (input.options[k].value === typed[id]) { input.selectedIndex = k; break; }
        }
      } else if (input.value === "") { input.value = typed[id]; }
    });
    typed = {};
  });

  function applied(form) {
    if (!form || !form.classList) { return; }
    var taps = form.classList.contains("row-taps");
    if (!taps && !form.classList.contains("tool")) { return; }
    var fields = form.querySelectorAll("input, select, textarea");
    for (var i = 0; i < fields.length; i++) {
      var f = fields[i];
      // a row's taps share one form: the next tap is a new command, with an id of its own,
      // even before the new screen brings fresh ids (the server answers a used id with the
      // stored answer of the command it was used for)
      if (f.name === "command_id") { f.value = freshId(); continue; }
      if (taps) { continue; }
      if (f.type === "hidden" || f.type === "checkbox" || f.type === "radio") { continue; }
      if (f.tagName === "SELECT") { f.selectedIndex = 0; continue; }
      f.value = "";
    }
  }
  // over the page socket (caltrop.js's outbox tells which form was answered)
  document.addEventListener("caltrop:answered", function (e) {
    if (e.detail && e.detail.ok) { applied(e.detail.form); }
  });
  // over HTTP (before the page socket opened)
  document.addEventListener("htmx:afterRequest", function (e) {
    var form = e.detail.elt;
    // a refusal is answered 200 too, its status in X-Caltrop-Status (web/refusals.py)
    if (e.detail.successful && e.detail.xhr && e.detail.xhr.status === 200 &&
        !e.detail.xhr.getResponseHeader("X-Caltrop-Status") &&
        form && form.getAttribute && form.getAttribute("hx-post") === "/table/command") {
      applied(form);
    }
  });
})();

// The whole log on the page (issue 22 item 6). The page socket swaps #log-live (the latest
// entries) on every view; the entries that leave it as the table goes on are kept at the top
// of #log-older, so the page never loses an entry between the live list and the pages fetched
// going back. "Older entries" asks for the page below the oldest entry shown (its before= is
// set here from the page, so it stays right as the list grows). A new encounter (the log
// starts again) empties the pages fetched.
(function () {
  "use strict";
  var kept = null; // the live list before this message: its entries and its encounter
  var older = null; // the first "Older entries" control, to restore for a new encounter

  function seqOf(li) { return parseInt(li.getAttribute("data-seq") || "", 10); }
  function entries(list) {
    return list ? Array.prototype.filter.call(list.children, function (li) {
      return !isNaN(seqOf(li));
    }) : [];
  }
  document.addEventListener("DOMContentLoaded", function () {
    var more = document.getElementById("log-more");
    if (more && more.querySelector("button")) { older = more.innerHTML; }
  });
  document.addEventListener("htmx:wsBeforeMessage", function () {
    var live = document.getElementById("log-live");
    kept = live ? {
      encounter: live.getAttribute("data-encounter"),
      items: entries(live).map(function (li) { return li.cloneNode(true); })
    } : null;
  });
  document.addEventListener("htmx:wsAfterMessage", function () {
    var live = document.getElementById("log-live");
    var pages = document.getElementById("log-older");
    if (!kept || !live || !pages) { return; }
    var now = entries(live).map(seqOf);
    var newest = now.length ? Math.max.apply(null, now) : -1;
    var oldest = now.length ? Math.min.apply(null, now) : Infinity;
    var before = kept.items.map(seqOf);
    var wasNewest = before.length ? Math.max.apply(null, before) : -1;
    if (live.getAttribute("data-encounter") !== kept.encounter || newest < wasNewest) {
      pages.innerHTML = ""; // a new encounter: its log starts again
      var more = document.getElementById("log-more");
      if (more && older !== null) { more.innerHTML = older; htmx.process(more); }
      kept = null;
      return;
    }
    var shown = {};
    entries(pages).forEach(function (li) { shown[seqOf(li)] = true; });
    // what left the live list, newest first, goes on top of the pages going back
    var left = kept.items.filter(function (li) { return seqOf(li) < oldest && !shown[seqOf(li)]; });
    for (var i = left.length - 1; i >= 0; i--) { pages.insertBefore(left[i], pages.firstChild); }
    kept = null;
  });
  // a refused page (a revoked seat, say: answered 200 with X-Caltrop-Status, web/refusals.py)
  // is said beside the button, never swapped into the list
  document.addEventListener("htmx:beforeSwap", function (e) {
    var elt = (e.detail.requestConfig && e.detail.requestConfig.elt) || e.target;
    var status = e.detail.xhr && e.detail.xhr.getResponseHeader("X-Caltrop-Status");
    if (!elt || !elt.classList || !elt.classList.contains("older") || !status) { return; }
    e.detail.shouldSwap = false;
    var why = "refused (" + status + ")";
    try { why = JSON.parse(e.detail.xhr.responseText).detail || why; } catch (err) { /* text */ }
    var more = document.getElementById("log-more");
    if (!more) { return; }
    var note = more.querySelector(".refusal") || document.createElement("p");
    note.className = "refusal";
    note.setAttribute("role", "alert");
    note.textContent = "Older entries: " + why;
    more.appendChild(note);
  });
  // "Older entries": the page below the oldest entry on the page
  document.addEventListener("htmx:configRequest", function (e) {
    var elt = e.detail.elt;
    if (!elt || !elt.classList || !elt.classList.contains("older")) { return; }
    var seqs = entries(document.getElementById("log-live"))
      .concat(entries(document.getElementById("log-older"))).map(seqOf);
    if (seqs.length) { e.detail.parameters.before = String(Math.min.apply(null, seqs)); }
  });
})();

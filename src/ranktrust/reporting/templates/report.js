/* ranktrust report: sortable tables, model filter, open <details> for printing. No framework, no network. */
(function () {
  "use strict";
  document.documentElement.classList.add("js");

  function key(td) {
    if (!td) { return null; }
    var v = td.getAttribute("data-sort");
    if (v === null) { v = td.textContent.trim(); }
    if (v === "" || v === "null" || v === "–") { return null; }
    var f = Number(v);
    return isNaN(f) ? v.toLowerCase() : f;
  }

  function sortBy(table, th, col) {
    var asc = th.getAttribute("aria-sort") !== "ascending";
    var heads = table.tHead.rows[0].cells;
    for (var i = 0; i < heads.length; i++) { heads[i].removeAttribute("aria-sort"); }
    th.setAttribute("aria-sort", asc ? "ascending" : "descending");
    var body = table.tBodies[0];
    var rows = Array.prototype.slice.call(body.rows);
    var keyed = rows.map(function (r, i) { return [key(r.cells[col]), i, r]; });
    keyed.sort(function (a, b) {
      var x = a[0], y = b[0];
      if (x === null || y === null) { return x === y ? a[1] - b[1] : (x === null ? 1 : -1); } /* missing last */
      if (typeof x !== typeof y) { x = String(x); y = String(y); }
      var c = x < y ? -1 : (x > y ? 1 : 0);
      return (asc ? c : -c) || a[1] - b[1];
    });
    var frag = document.createDocumentFragment();
    keyed.forEach(function (k) { frag.appendChild(k[2]); });
    body.appendChild(frag);
  }

  Array.prototype.forEach.call(document.querySelectorAll("table.sortable"), function (table) {
    if (!table.tHead || !table.tBodies.length) { return; }
    Array.prototype.forEach.call(table.tHead.rows[0].cells, function (th, col) {
      th.tabIndex = 0;
      th.title = "Sort by " + th.textContent.trim();
      th.addEventListener("click", function () { sortBy(table, th, col); });
      th.addEventListener("keydown", function (e) {
        if (e.key === "Enter" || e.key === " ") { e.preventDefault(); sortBy(table, th, col); }
      });
    });
  });

  Array.prototype.forEach.call(document.querySelectorAll("input[data-filter]"), function (input) {
    var table = document.getElementById(input.getAttribute("data-filter"));
    var count = document.querySelector('[data-count-for="' + input.getAttribute("data-filter") + '"]');
    if (!table) { return; }
    var rows = Array.prototype.slice.call(table.tBodies[0].rows);
    function update() {
      var q = input.value.trim().toLowerCase(), shown = 0;
      rows.forEach(function (r) {
        var hit = !q || (r.getAttribute("data-model") || "").toLowerCase().indexOf(q) !== -1;
        r.hidden = !hit;
        if (hit) { shown += 1; }
      });
      if (count) { count.textContent = shown + " of " + rows.length + " models"; }
    }
    input.addEventListener("input", update);
    update();
  });

  var opened = [];
  window.addEventListener("beforeprint", function () {
    Array.prototype.forEach.call(document.querySelectorAll("details:not([open])"), function (el) {
      el.open = true; opened.push(el);
    });
  });
  window.addEventListener("afterprint", function () {
    opened.forEach(function (el) { el.open = false; });
    opened = [];
  });
})();

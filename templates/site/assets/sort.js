// Optional: click a column header of a .sortable table to sort by it. Pages read fine without.
"use strict";
(function () {
  function key(cell) {
    var text = cell.textContent.trim();
    var num = parseFloat(text.replace(/[^0-9eE+\-.]/g, ""));
    return /^[-+]?[0-9.]/.test(text) && !isNaN(num) ? num : text.toLowerCase();
  }
  function sortBy(table, index, th) {
    var body = table.tBodies[0];
    if (!body) { return; }
    var asc = th.getAttribute("aria-sort") !== "ascending";
    var rows = Array.prototype.slice.call(body.rows);
    rows.sort(function (a, b) {
      var x = key(a.cells[index]), y = key(b.cells[index]);
      if (typeof x !== typeof y) { x = String(x); y = String(y); }
      return (x < y ? -1 : x > y ? 1 : 0) * (asc ? 1 : -1);
    });
    Array.prototype.forEach.call(th.parentNode.children, function (h) { h.removeAttribute("aria-sort"); });
    th.setAttribute("aria-sort", asc ? "ascending" : "descending");
    rows.forEach(function (r) { body.appendChild(r); });
  }
  document.querySelectorAll("table.sortable").forEach(function (table) {
    if (!table.tHead) { return; }
    Array.prototype.forEach.call(table.tHead.rows[0].cells, function (th, i) {
      th.addEventListener("click", function () { sortBy(table, i, th); });
    });
  });
}());

(function () {
  'use strict';
  document.documentElement.classList.add('js');
  var rows = Array.prototype.slice.call(document.querySelectorAll('tr.item'));
  var filter = document.getElementById('filter');
  var sort = document.getElementById('sort');
  var shown = document.getElementById('shown');
  if (!rows.length) { return; }
  var tbody = rows[0].parentNode;

  function visible() { return rows.filter(function (r) { return !r.hidden; }); }

  function open(row, focus) {
    rows.forEach(function (r) {
      if (r === row) { r.setAttribute('aria-current', 'true'); } else { r.removeAttribute('aria-current'); }
    });
    document.querySelectorAll('.detail.open').forEach(function (d) { d.classList.remove('open'); });
    var d = document.getElementById(row.dataset.target);
    if (d) {
      d.classList.add('open');
      // Show the pair: if the first of the two is out of view, scroll it
      // a quarter into it (the lane names then scroll away).
      var scroll = d.querySelector('.scroll');
      var first = d.querySelector('.pair.first rect');
      if (scroll && first) {
        var x = Number(first.getAttribute('x'));
        var w = Number(first.getAttribute('width'));
        scroll.scrollLeft = x + w > scroll.clientWidth ? x - scroll.clientWidth / 4 : 0;
      }
    }
    if (focus) { row.focus(); }
    try { history.replaceState(null, '', '#' + row.dataset.target); } catch (e) { /* a file: URL may refuse */ }
  }

  function applyFilter() {
    var words = filter.value.toLowerCase().split(/\s+/).filter(Boolean);
    rows.forEach(function (r) {
      var text = [r.dataset.kind, r.dataset.handlers, r.dataset.subject].join(' ').toLowerCase();
      r.hidden = !words.every(function (w) { return text.indexOf(w) >= 0; });
    });
    shown.textContent = visible().length + ' of ' + rows.length + ' shown';
  }

  function applySort() {
    var key = sort.value;
    var numeric = key === 'rank' || key === 'count';
    rows.sort(function (a, b) {
      var c;
      if (numeric) {
        c = Number(a.dataset[key]) - Number(b.dataset[key]);
        if (key === 'count') { c = -c; }
      } else {
        c = a.dataset[key].localeCompare(b.dataset[key]);
      }
      return c || Number(a.dataset.rank) - Number(b.dataset.rank);
    });
    rows.forEach(function (r) { tbody.appendChild(r); });
  }

  rows.forEach(function (r) {
    r.addEventListener('click', function () { open(r, true); });
  });
  tbody.addEventListener('keydown', function (e) {
    var list = visible();
    var i = list.indexOf(document.activeElement);
    if (i < 0) { return; }
    var next = null;
    if (e.key === 'ArrowDown' || e.key === 'j') { next = list[Math.min(i + 1, list.length - 1)]; }
    if (e.key === 'ArrowUp' || e.key === 'k') { next = list[Math.max(i - 1, 0)]; }
    if (e.key === 'Home') { next = list[0]; }
    if (e.key === 'End') { next = list[list.length - 1]; }
    if (e.key === 'Enter' || e.key === ' ') { next = list[i]; }
    if (next) { e.preventDefault(); open(next, true); }
  });
  document.addEventListener('keydown', function (e) {
    if (e.key === '/' && document.activeElement !== filter) { e.preventDefault(); filter.focus(); }
    if (e.key === 'Escape' && document.activeElement === filter) { filter.value = ''; applyFilter(); }
  });
  filter.addEventListener('input', applyFilter);
  sort.addEventListener('change', applySort);

  var start = rows[0];
  var hash = decodeURIComponent(location.hash.slice(1));
  rows.forEach(function (r) { if (r.dataset.target === hash) { start = r; } });
  open(start, false);
  applyFilter();
})();

// The dashboard's own script (served as /assets/dashboard.js): links from a
// table's project and session cells to the pages that go deeper, and from a
// model cell to the page filtered to that model (keeping
// the page's filters and the token), and the live update: the page reloads
// when the server says the store changed (server-sent events).
export const DASHBOARD_JS = `(function () {
  'use strict';
  var here = new URL(location.href);
  var keep = ['token', 'since', 'until', 'tz', 'harness', 'model', 'cost'];
  function link(path, extra) {
    var u = new URL(path, location.origin);
    keep.forEach(function (k) { var v = here.searchParams.get(k); if (v) u.searchParams.set(k, v); });
    Object.keys(extra).forEach(function (k) { u.searchParams.set(k, extra[k]); });
    return u.pathname + u.search;
  }
  Array.prototype.forEach.call(document.querySelectorAll('table'), function (table) {
    if (!table.tHead) return;
    var heads = Array.prototype.map.call(table.tHead.rows[0].cells, function (th) { return th.textContent.trim().toLowerCase(); });
    heads.forEach(function (h, i) {
      var to = h === 'project' ? function (v) { return link('/sessions', { project: v }); }
        : h === 'session' ? function (v) { return link('/session', { id: v }); }
        : h === 'model' && location.pathname !== '/session' ? function (v) { return link(location.pathname, { model: v }); } : null;
      if (!to) return;
      Array.prototype.forEach.call(table.tBodies[0].rows, function (tr) {
        var td = tr.cells[i];
        var v = td && (td.getAttribute('data-v') || td.textContent.trim());
        if (!v || td.querySelector('a')) return;
        var a = document.createElement('a');
        a.href = to(v);
        a.className = h + '-link';
        while (td.firstChild) a.appendChild(td.firstChild);
        td.appendChild(a);
      });
    });
  });
  // A session's responses: each line links to itself (#line-N), and the one linked to is marked.
  Array.prototype.forEach.call(document.querySelectorAll('table'), function (table) {
    if (!table.tHead || table.tHead.rows[0].cells[0].textContent.trim().toLowerCase() !== 'line') return;
    Array.prototype.forEach.call(table.tBodies[0].rows, function (tr) {
      var td = tr.cells[0], n = td.textContent.trim();
      if (!/^[0-9]+$/.test(n)) return;
      tr.id = 'line-' + n;
      var a = document.createElement('a');
      a.href = '#line-' + n;
      a.className = 'response-link';
      a.textContent = n;
      td.textContent = '';
      td.appendChild(a);
    });
  });
  function mark() {
    Array.prototype.forEach.call(document.querySelectorAll('tr[aria-current]'), function (r) { r.removeAttribute('aria-current'); r.style.background = ''; });
    var r = location.hash && document.getElementById(location.hash.slice(1));
    if (r) { r.setAttribute('aria-current', 'true'); r.style.background = '#fff3c4'; }
  }
  window.addEventListener('hashchange', mark);
  mark();
  if (window.EventSource) {
    var es = new EventSource(link('/events', {}));
    es.addEventListener('change', function () { location.reload(); });
  }
})();`;

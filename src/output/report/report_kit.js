// gpuscope HTML report, its kit: error reporting, number formatting, DOM and SVG builders and
// the bar table, shared by the report's views (report.js, which follows this file in the page).
'use strict';
const gpuscopeKit = (function () {
  const SVG = 'http://www.w3.org/2000/svg';
  const errors = [];
  function reportError(where, err) {
    errors.push(where + ': ' + (err && err.message ? err.message : String(err)));
    const box = document.getElementById('js-errors');
    box.hidden = false;
    box.textContent = 'Part of this report could not be drawn: ' + errors.join('; ');
    document.body.dataset.jsErrors = String(errors.length);
  }
  window.addEventListener('error', (e) => reportError('script', e.error || e.message));

  // ---- formatting ----
  function fmtDur(ns) {
    if (ns === null || ns === undefined || ns < 0) return 'n/a';
    const a = Math.abs(ns);
    if (a >= 60e9) return (ns / 60e9).toFixed(1) + ' min';
    if (a >= 1e9) return (ns / 1e9).toFixed(a >= 1e10 ? 1 : 2) + ' s';
    if (a >= 1e6) return (ns / 1e6).toFixed(a >= 1e8 ? 0 : a >= 1e7 ? 1 : 2) + ' ms';
    if (a >= 1e3) return (ns / 1e3).toFixed(a >= 1e5 ? 0 : a >= 1e4 ? 1 : 2) + ' \u00b5s';
    return ns + ' ns';
  }
  function fmtBytes(b) {
    if (b === null || b === undefined) return 'not recorded';
    const u = ['B', 'KB', 'MB', 'GB', 'TB'];
    let i = 0, v = b;
    while (v >= 1024 && i < u.length - 1) { v /= 1024; i++; }
    return (i ? v.toFixed(v >= 100 ? 0 : 1) : String(v)) + ' ' + u[i];
  }
  function fmtCount(n) { return Number(n).toLocaleString('en-US'); }
  function shorten(s, n) { return s.length <= n ? s : s.slice(0, n - 1) + '\u2026'; }
  function el(tag, attrs, text) {
    const e = document.createElement(tag);
    for (const k in attrs || {}) e.setAttribute(k, attrs[k]);
    if (text !== undefined) e.textContent = text;
    return e;
  }
  function svgEl(tag, attrs, text) {
    const e = document.createElementNS(SVG, tag);
    for (const k in attrs || {}) e.setAttribute(k, attrs[k]);
    if (text !== undefined) e.textContent = text;
    return e;
  }
  // A data table: the header row, then one row per item - its cells and a bar of `barPx` at
  // most, scaled to the item's value against the largest.
  function barTable(id, headers, items, cells, value, barPx) {
    const table = el('table', { class: 'data', id: id });
    const head = el('tr');
    for (const h of headers.concat([''])) head.append(el('th', {}, h));
    table.append(head);
    const max = Math.max(...items.map(value), 1);
    for (const item of items) {
      const tr = el('tr');
      const meter = el('td');
      const bar = el('div', { class: 'meter' });
      bar.style.width = Math.max(1, barPx * value(item) / max) + 'px';
      meter.append(bar);
      tr.append(...cells(item), meter);
      table.append(tr);
    }
    return table;
  }
  function section(name, fn) {
    try { fn(); } catch (err) { reportError(name, err); }
  }
  const data = JSON.parse(document.getElementById('gpuscope-data').textContent);
  return { fmtDur, fmtBytes, fmtCount, shorten, el, svgEl, barTable, section, data };
})();

// The table is HTML already (every figure formatted by the build); this only sorts, filters and shows
// small cells. Each cell's sort value is its data-sort (a number, or text where its head says
// data-type="text"; empty: no value, always last). URL parameters preset: sort, dir, protocol, scope, judge, small.
const q = new URLSearchParams(location.search);
const board = document.getElementById('board');
const small = document.getElementById('f-small');
const judgeFilter = document.getElementById('f-judge');
const fProtocol = document.getElementById('f-protocol'), fScope = document.getElementById('f-scope');
small.checked = q.get('small') === '1';
judgeFilter.value = q.get('judge') || '';
if (q.get('protocol')) fProtocol.value = q.get('protocol');
if (q.get('scope')) fScope.value = q.get('scope');
function value(group, key, text) {
  const td = group.querySelector('td[data-key="' + CSS.escape(key) + '"]');
  if (!td || td.dataset.sort === '' || td.dataset.sort === undefined) return null;
  if (td.classList.contains('small') && td.closest('table').classList.contains('hide-small')) return null;
  return text ? td.dataset.sort.toLowerCase() : parseFloat(td.dataset.sort);
}
function sortTable(table, key, dir) {
  const th = table.querySelector('th[data-key="' + CSS.escape(key) + '"]');
  if (!th) return;
  const text = th.dataset.type === 'text';
  const groups = table.tBodies.length > 1 ? [...table.tBodies] : [...table.tBodies[0].rows];
  const parent = table.tBodies.length > 1 ? table : table.tBodies[0];
  groups.sort((a, b) => { const x = value(a, key, text), y = value(b, key, text);
    if (x == null && y == null) return 0; if (x == null) return 1; if (y == null) return -1;
    return (x < y ? -1 : x > y ? 1 : 0) * dir; });
  groups.forEach(g => parent.appendChild(g));
  table.querySelectorAll('th').forEach(h => h.classList.remove('sorted-asc', 'sorted-desc'));
  th.classList.add(dir > 0 ? 'sorted-asc' : 'sorted-desc');
}
document.querySelectorAll('table.sortable').forEach(table => {
  table.querySelectorAll('th[data-key]').forEach(th => th.addEventListener('click', () => {
    const key = th.dataset.key, was = table.dataset.sortKey === key ? +table.dataset.sortDir : 0;
    const dir = was ? -was : (th.dataset.type === 'text' ? 1 : -1);
    table.dataset.sortKey = key; table.dataset.sortDir = dir; sortTable(table, key, dir);
  }));
});
function filter() {
  const pr = fProtocol.value, sc = fScope.value, jf = judgeFilter.value.toLowerCase();
  board.classList.toggle('hide-small', !small.checked);
  let cols = 0;
  board.querySelectorAll('th[data-col]').forEach(th => {
    const hide = (pr && th.dataset.protocol !== pr) || (sc && th.dataset.scope !== sc);
    if (!hide) cols++;
    board.querySelectorAll('[data-col="' + CSS.escape(th.dataset.col) + '"]').forEach(e => e.classList.toggle('hidden-col', hide));
  });
  let rows = 0, hidden = 0;
  [...board.tBodies].forEach(tb => { const hide = jf && !tb.dataset.judge.toLowerCase().includes(jf);
    tb.hidden = !!hide; if (!hide) { rows++;
      hidden += [...tb.querySelectorAll('td.small')].filter(td => !td.classList.contains('hidden-col') && !small.checked).length; } });
  document.getElementById('count').textContent = rows + ' judges, ' + cols + ' columns' +
    (hidden ? ', ' + hidden + ' small cells hidden' : '');
  const key = board.dataset.sortKey; if (key) sortTable(board, key, +board.dataset.sortDir);
}
[fProtocol, fScope, small].forEach(e => e.addEventListener('change', filter));
judgeFilter.addEventListener('input', filter);
if (q.get('sort')) { board.dataset.sortKey = q.get('sort');
  board.dataset.sortDir = q.get('dir') === 'asc' ? 1 : q.get('dir') === 'desc' ? -1 : (q.get('sort') === 'judge' ? 1 : -1); }
filter();

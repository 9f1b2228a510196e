const data = JSON.parse(document.getElementById('data').textContent);
const q = new URLSearchParams(location.search);
let sortKey = q.get('sort') || 'judge', sortDir = q.get('dir') === 'asc' ? 1 : (q.get('sort') ? -1 : 1);
const pct = v => v == null ? '–' : (100 * v).toFixed(1);
const pctU = v => v == null ? '–' : (100 * v).toFixed(1) + '%';  // '–': unknown (no budget records)
function quality(td, c) {
  const qv = c.quality;
  if (!qv) td.appendChild(el('div', 'ref q', 'quality –'));
  else {
    td.appendChild(el('div', 'ref inv', 'invalid ' + pctU(qv.invalid_rate) + ' · answer 1 ' + pctU(qv.answer1_share)));
    if (qv.n_agent_turns) td.appendChild(el('div', 'ref q', 'no-arg ' + pctU(qv.argumentless_rate) + ' · forced ' +
      pctU(qv.forced_rate) + ' · cut ' + pctU(qv.cut_rate)));
  }
  if (c.flagged && c.flagged.length) td.appendChild(el('div', 'flag', '⚑ ' + c.flagged.join('; ')));
}
function excluded(h) {
  if (h.excluded && h.excluded.length) return ' (without ⚑ ' + h.excluded.join(', ') + ')';
  if (h.flagged_included && h.flagged_included.length) return ' (with ⚑ ' + h.flagged_included.join(', ') + ')';
  return '';
}
const el = (tag, cls, text) => { const e = document.createElement(tag); if (cls) e.className = cls;
  if (text != null) e.textContent = text; return e; };
function fill(id, values, preset) {
  const s = document.getElementById(id);
  values.forEach(v => { const o = el('option', null, v); o.value = v; s.appendChild(o); });
  if (preset) s.value = preset; s.addEventListener('change', render);
}
fill('f-protocol', [...new Set(data.columns.map(c => c.protocol))], q.get('protocol'));
fill('f-scope', [...new Set(data.columns.map(c => c.scope))], q.get('scope'));
const small = document.getElementById('f-small'); small.checked = q.get('small') === '1';
small.addEventListener('change', render);
const judgeFilter = document.getElementById('f-judge'); judgeFilter.value = q.get('judge') || '';
judgeFilter.addEventListener('input', render);
function sortValue(r, key) {
  if (key === 'judge') return r.judge;
  const c = r.cells[key]; if (!c || (c.small && !small.checked)) return null; return c.accuracy;
}
function render() {
  const pr = document.getElementById('f-protocol').value, sc = document.getElementById('f-scope').value;
  const cols = data.columns.filter(c => (!pr || c.protocol === pr) && (!sc || c.scope === sc));
  const jf = judgeFilter.value.toLowerCase();
  const rows = data.judges.filter(r => !jf || r.judge.toLowerCase().includes(jf));
  rows.sort((a, b) => { const x = sortValue(a, sortKey), y = sortValue(b, sortKey);
    if (x == null) return 1; if (y == null) return -1; return (x < y ? -1 : x > y ? 1 : 0) * sortDir; });
  const head = document.querySelector('#board thead tr'); head.innerHTML = '';
  const heads = [['judge', 'judge']].concat(cols.map(c => [c.key, c.protocol + ' · ' + c.scope]))
    .concat([['_h0', data.headline_names[0]], ['_h1', data.headline_names[1]], ['_dev', 'deviations from the paper']]);
  heads.forEach(([k, label]) => { const th = el('th', null, label); th.dataset.key = k;
    if (k === sortKey) th.className = sortDir > 0 ? 'sorted-asc' : 'sorted-desc';
    if (!k.startsWith('_')) th.onclick = () => { sortDir = (sortKey === k) ? -sortDir : (k === 'judge' ? 1 : -1); sortKey = k; render(); };
    head.appendChild(th); });
  const body = document.querySelector('#board tbody'); body.innerHTML = '';
  let hidden = 0;
  rows.forEach(r => { const tr = el('tr', 'row ' + r.kind); tr.dataset.judge = r.judge;
    tr.appendChild(el('td', 'c-judge', r.judge + (r.kind === 'human' ? ' (human reference)' : '')));
    cols.forEach(col => { const c = r.cells[col.key]; const td = el('td', 'cell'); td.dataset.col = col.key;
      if (!c) { td.textContent = '–'; }
      else if (c.small && !small.checked) { hidden++; td.className = 'cell hidden-cell'; td.textContent = 'n<' + data.min_n + (c.carried ? ' †' : '');
        td.title = 'n = ' + c.n + ' questions: hidden (tick "show cells with n < ' + data.min_n + '")'; }
      else { if (c.small) { td.className = 'cell small-cell'; td.title = 'n = ' + c.n + ' < ' + data.min_n + ': weak evidence'; }
        const flagged = c.flagged && c.flagged.length; if (flagged) td.className += ' flagged-cell';
        const a = el('a', 'acc', pct(c.accuracy) + (c.small ? ' ⚠' : '') + (flagged ? ' ⚑' : '')); a.href = c.transcripts || '#'; td.appendChild(a);
        td.appendChild(el('div', 'ci', '[' + pct(c.ci_low) + ', ' + pct(c.ci_high) + '] n=' + c.n));
        quality(td, c);
        if (c.carried) td.appendChild(el('div', 'ref carried', '† from the build of ' + String(c.carried.generated || 'unknown').slice(0, 10)));
        if (c.reference) td.appendChild(el('div', 'ref', 'human ' + pct(c.reference.accuracy) + ' on same rooms (n=' +
          c.reference.n + ', p=' + (c.reference.p_value == null ? '–' : c.reference.p_value.toPrecision(2)) + ')')); }
      tr.appendChild(td); });
    r.headlines.forEach((h, i) => { const td = el('td', 'headline h' + i);
      td.textContent = h.diff == null ? '–' : (h.diff >= 0 ? '+' : '') + pct(h.diff) + ' pts, p=' + h.p_value.toPrecision(2) + ' (n=' + h.n + ')' + (h.carried ? ' †' : '');
      td.textContent += excluded(h);
      tr.appendChild(td); });
    tr.appendChild(el('td', 'dev', r.deviations.length ? r.deviations.join('; ') : 'none recorded'));
    body.appendChild(tr); });
  document.getElementById('count').textContent = rows.length + ' judges, ' + cols.length + ' cells' +
    (hidden ? ', ' + hidden + ' small cells hidden' : '');
}
render();

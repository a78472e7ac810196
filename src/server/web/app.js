// The rowbridge status page: polls /status (every 1.5 s) and /status/history (every 5 s, the
// history's interval) and renders them. No framework and no build step.
//
// Every text from the server goes into the page through textContent or setAttribute, never as
// HTML: table names, errors and reasons come from the source and may hold '<', quotes or '&'.
'use strict';

const STATUS_EVERY_MS = 1500;
const HISTORY_EVERY_MS = 5000;
const SVG = 'http://www.w3.org/2000/svg';

let latestHistory = null;

function $(id) {
  return document.getElementById(id);
}

function setText(node, text) {
  const value = text === null || text === undefined ? '–' : String(text);
  if (node.textContent !== value) node.textContent = value;
}

function element(tag, className, text) {
  const node = document.createElement(tag);
  if (className) node.className = className;
  if (text !== undefined) node.textContent = text;
  return node;
}

function formatNumber(n) {
  if (n === null || n === undefined || Number.isNaN(n)) return '–';
  return Math.round(n).toLocaleString('en-US');
}

function formatSeconds(s) {
  if (s === null || s === undefined) return '–';
  if (s < 10) return s.toFixed(2) + ' s';
  if (s < 120) return Math.round(s) + ' s';
  if (s < 7200) return Math.floor(s / 60) + ' min ' + Math.round(s % 60) + ' s';
  return Math.floor(s / 3600) + ' h ' + Math.round((s % 3600) / 60) + ' min';
}

function formatRate(r) {
  if (r === null || r === undefined) return '–';
  return r < 10 ? r.toFixed(1) : formatNumber(r);
}

function ago(isoTime) {
  if (!isoTime) return 'never';
  const seconds = Math.max(0, (Date.now() - Date.parse(isoTime)) / 1000);
  return isoTime + ' (' + formatSeconds(seconds) + ' ago)';
}

function tableKey(source) {
  return source ? source.database + '.' + source.table : '?';
}

// ---- source panel ---------------------------------------------------------------------------

function renderSource(status) {
  setText($('version'), status.version);
  const health = $('health');
  setText(health, (status.health.healthy ? 'healthy: ' : 'unhealthy: ') + status.health.reason);
  health.title = health.textContent;  // the badge is cut to one line; the whole reason on hover
  health.className = 'badge ' + (status.health.healthy ? 'ok' : 'bad');
  setText($('state'), status.status);
  const source = status.source;
  const position = source.position;
  setText($('source-position'), position.file ? position.file + ':' + position.position : null);
  setText($('source-gtid'), position.gtid_set || null);
  setText($('source-lag'), formatSeconds(source.lag_seconds));
  setText($('source-last-event'), ago(source.last_event_at));
  setText($('source-events'), formatNumber(source.events) + ' / ' + formatNumber(source.heartbeats));
  setText($('started-at'), status.started_at);
}

// ---- tables ---------------------------------------------------------------------------------

// The latest rows/s of each table, from the history (its last sample).
function latestTableRates() {
  const rates = new Map();
  if (!latestHistory) return rates;
  for (const t of latestHistory.tables) {
    const values = t.rows_per_second;
    rates.set(t.database + '.' + t.table, values.length ? values[values.length - 1] : null);
  }
  return rates;
}

function renderState(cell, table) {
  cell.replaceChildren();
  cell.appendChild(element('span', 'state ' + table.state, table.state));
  if (table.state === 'copying' && table.copy) {
    const copy = table.copy;
    const bar = element('div', 'progress');
    const fill = element('div');
    fill.style.width = Math.min(100, copy.fraction * 100).toFixed(1) + '%';
    bar.appendChild(fill);
    cell.appendChild(bar);
    const eta = copy.eta_seconds === null ? 'ETA unknown' : 'ETA ' + formatSeconds(copy.eta_seconds);
    cell.appendChild(element('div', 'progress-text',
        Math.floor(copy.fraction * 100) + '% · ' + formatNumber(copy.rows_copied) + ' of ~' +
        formatNumber(copy.rows_estimated) + ' rows · ' + eta));
  }
  if (table.state === 'stopped' && table.stopped) {
    const reason = element('div', 'reason', table.stopped.reason);
    reason.title = table.stopped.reason;  // cut to a few lines; the whole reason on hover
    cell.appendChild(reason);
  }
}

// The last error, unless it is the stop the state cell already tells.
function lastError(table) {
  const error = table.last_error;
  if (!error) return '';
  if (table.stopped && error.message === 'stopped: ' + table.stopped.reason) return '';
  return error.at + ': ' + error.message;
}

// Where the table lifecycle's buttons (resnapshot, resume) go once that issue lands: POSTs to the
// admin server, built here with textContent labels like everything else.
function renderActions(cell, table) {
  if (!cell.firstChild) cell.appendChild(element('span', 'empty', '–'));
}

function renderTables(status) {
  const body = document.querySelector('#tables tbody');
  const rates = latestTableRates();
  const rows = new Map();
  for (const tr of body.querySelectorAll('tr[data-table]')) rows.set(tr.dataset.table, tr);
  const seen = new Set();
  for (const table of status.tables) {
    const key = tableKey(table.source);
    seen.add(key);
    let tr = rows.get(key);
    if (!tr) {
      tr = document.createElement('tr');
      tr.setAttribute('data-table', key);
      for (const name of ['name', 'target', 'state-cell', 'lag num', 'rate num', 'copied num',
                          'streamed num', 'error', 'actions']) {
        tr.appendChild(element('td', name));
      }
      body.appendChild(tr);
    }
    const cells = tr.children;
    setText(cells[0], key);
    setText(cells[1], table.target ? tableKey(table.target) : null);
    renderState(cells[2], table);
    setText(cells[3], formatSeconds(table.lag_seconds));
    setText(cells[4], formatRate(rates.has(key) ? rates.get(key) : null));
    setText(cells[5], formatNumber(table.rows.copied));
    setText(cells[6], formatNumber(table.rows.insert + table.rows.update + table.rows.delete));
    if (!cells[7].firstChild) cells[7].appendChild(element('div', 'clamp'));
    setText(cells[7].firstChild, lastError(table));
    cells[7].firstChild.title = cells[7].firstChild.textContent;
    renderActions(cells[8], table);
  }
  for (const [key, tr] of rows) {
    if (!seen.has(key)) tr.remove();
  }
  setText($('table-count'), '(' + status.tables.length + ')');
}

// ---- charts ---------------------------------------------------------------------------------

function svg(tag, attributes) {
  const node = document.createElementNS(SVG, tag);
  for (const [name, value] of Object.entries(attributes)) node.setAttribute(name, value);
  return node;
}

// A line over the history's window: x is time (now - window .. now), y from 0 to the maximum.
// Unknown values (null) break the line.
function drawChart(chart, times, values, format) {
  // Drawn in the chart's own pixels, so its text is never stretched.
  const width = chart.clientWidth || 600, height = 160, top = 14, bottom = 18;
  chart.setAttribute('viewBox', '0 0 ' + width + ' ' + height);
  chart.replaceChildren();
  const window_ = latestHistory ? latestHistory.window_seconds : 900;
  const end = times.length ? times[times.length - 1] : Date.now() / 1000;
  const start = end - window_;
  let max = 0;
  for (const v of values) if (v !== null && v > max) max = v;
  const scale = max > 0 ? max * 1.1 : 1;
  const x = (t) => ((t - start) / window_) * width;
  const y = (v) => top + (1 - v / scale) * (height - top - bottom);
  for (const fraction of [0, 0.5, 1]) {
    const gy = top + fraction * (height - top - bottom);
    chart.appendChild(svg('line', {class: 'grid', x1: 0, x2: width, y1: gy, y2: gy}));
  }
  let path = '';
  let pen = false;
  for (let i = 0; i < times.length; i++) {
    if (values[i] === null) {
      pen = false;
      continue;
    }
    path += (pen ? 'L' : 'M') + x(times[i]).toFixed(1) + ' ' + y(values[i]).toFixed(1) + ' ';
    pen = true;
  }
  if (path) chart.appendChild(svg('path', {class: 'line', d: path}));
  const label = (text, attributes) => {
    const node = svg('text', attributes);
    node.textContent = text;
    chart.appendChild(node);
  };
  label('max ' + format(max), {x: 4, y: 11});
  label('-' + Math.round(window_ / 60) + ' min', {x: 4, y: height - 4});
  label('now', {x: width - 26, y: height - 4});
  const last = values.length ? values[values.length - 1] : null;
  chart.setAttribute('data-last', last === null ? '' : String(last));
  chart.setAttribute('data-points', String(times.length));
}

function renderHistory() {
  if (!latestHistory) return;
  drawChart($('lag-chart'), latestHistory.times, latestHistory.lag_seconds, formatSeconds);
  drawChart($('rate-chart'), latestHistory.times, latestHistory.rows_per_second,
            (r) => formatRate(r) + ' rows/s');
}

// ---- polling --------------------------------------------------------------------------------

async function getJson(path) {
  const response = await fetch(path, {cache: 'no-store'});
  if (!response.ok) throw new Error(path + ': HTTP ' + response.status);
  return response.json();
}

async function pollStatus() {
  try {
    const status = await getJson('/status');
    renderSource(status);
    renderTables(status);
    setText($('updated-at'), 'updated ' + new Date().toISOString());
  } catch (error) {
    const health = $('health');
    setText(health, 'no answer from rowbridge: ' + error.message);
    health.className = 'badge bad';
  }
  setTimeout(pollStatus, STATUS_EVERY_MS);
}

async function pollHistory() {
  try {
    latestHistory = await getJson('/status/history');
    renderHistory();
  } catch (error) {
    // The status poll says when the server does not answer; the charts keep their last picture.
  }
  setTimeout(pollHistory, HISTORY_EVERY_MS);
}

pollHistory();
pollStatus();

// Usage (usage.html): the organisation in view against its limits (a bar of
// headroom each), its catalogs' stored bytes and objects by UTC day (charts,
// with the same figures as a table for screen readers and copying), and each
// catalog's last measurement with how fresh it is and a "Measure now" button.
// Everything comes from GET /v1/usage?org_id=&days= and
// POST /v1/warehouses/{id}/measure; nothing is computed that the API does
// not answer, except percentages and the words around the figures.
import { ago, bytes, call, consolePage, empty, explain, h, here, params, section, table, when } from '/app/console.js';

/** The history lengths offered: the API takes 1 to 30 days. */
const DAY_CHOICES = [7, 14, 30];

/** The limits by the API's key, in words; a key the page does not know yet is shown by its own name. */
const LIMIT_LABELS = {
  storage_bytes: 'Private storage',
  public_storage_bytes: 'Public storage',
  objects: 'Objects',
  warehouses: 'Catalogs',
  warehouses_per_project: 'Catalogs in the fullest project',
  projects: 'Projects',
  device_sinks: 'Device sinks',
  pending_invitations: 'Pending invitations',
};
const BYTE_LIMITS = new Set(['storage_bytes', 'public_storage_bytes']);
/** At or past this share of a limit its bar says so. */
const NEAR = 80;

const count = (n) => Number(n).toLocaleString('en');

/** The share of `value` used, as a number (for the bar) and in words ("12%", "<1%"). */
function share(current, value) {
  const pct = value > 0 ? (current / value) * 100 : current > 0 ? 100 : 0;
  const words = pct > 0 && pct < 1 ? '<1%' : `${Math.round(pct)}%`;
  return { pct, words };
}

/** How fresh a measurement is, in words: "measured 5 min ago", "stale (measured 3 h ago)", "not measured yet". */
function freshness(measuredAt, staleAfter) {
  if (!measuredAt) return 'not measured yet';
  const said = `measured ${ago(measuredAt)}`;
  return staleAfter && Date.now() > Date.parse(staleAfter) ? `stale (${said})` : said;
}

/** One limit: its figures in words, a bar of the share used, and how Floe enforces it. */
function limitRow(key, limit) {
  const fmt = BYTE_LIMITS.has(key) ? bytes : count;
  const { pct, words } = share(limit.current, limit.value);
  const state = limit.over_limit || pct >= 100 ? 'over' : pct >= NEAR ? 'near' : null;
  const fill = h('span');
  fill.style.width = `${Math.min(pct, 100).toFixed(2)}%`; // through the CSSOM: the pages' policy forbids style attributes
  const id = `limit-${key}`;
  const metered = 'measured_at' in limit;
  return h('li', { dataset: { limit: key } },
    h('h3', { id }, LIMIT_LABELS[key] ?? key.replaceAll('_', ' ')),
    h('p', { class: 'figures' }, `${fmt(limit.current)} of ${fmt(limit.value)} (${words})`),
    h('div', { class: ['bar', state].filter(Boolean).join(' '), 'aria-hidden': 'true' }, fill),
    state ? h('p', { class: 'over-note' }, state === 'over' ? 'Over the limit.' : 'Near the limit.') : null,
    metered ? h('p', { class: 'hint' }, limit.unmetered ? `not measured yet${limit.unmetered_catalogs ? ` (${limit.unmetered_catalogs} catalog${limit.unmetered_catalogs === 1 ? '' : 's'})` : ''}` : freshness(limit.measured_at, limit.stale_after)) : null,
    h('details', {}, h('summary', { 'aria-describedby': id }, 'How it is enforced'), h('p', {}, limit.enforcement)));
}

function limitsSection(usage) {
  return section('limits-title', 'Limits',
    h('p', { class: 'hint' }, `Plan ${usage.plan}. Each bar is the share of the limit in use.`),
    h('ul', { class: 'limits' }, Object.entries(usage.limits).map(([key, limit]) => limitRow(key, limit))));
}

// ---- charts -------------------------------------------------------------

const SVG_NS = 'http://www.w3.org/2000/svg';
/** An SVG element (`h` makes HTML ones). */
function s(tag, attrs = {}, ...children) {
  const el = document.createElementNS(SVG_NS, tag);
  for (const [k, v] of Object.entries(attrs)) if (v !== null && v !== undefined) el.setAttribute(k, String(v));
  el.append(...children.flat().filter(Boolean));
  return el;
}

const SERIES_STYLES = 5;
const seriesClass = (i) => `series-${i % SERIES_STYLES}`;

/** One line in words: where it starts and ends, its highest, and the days without a sample. */
function lineInWords(name, days, values, fmt) {
  const measured = values.map((v, i) => [v, days[i]]).filter(([v]) => v !== null);
  if (!measured.length) return `${name}: no measurement in these ${days.length} days.`;
  const missing = days.length - measured.length;
  const gap = missing ? ` ${missing} of ${days.length} days without a measurement.` : '';
  if (measured.length === 1) return `${name}: ${fmt(measured[0][0])} on ${measured[0][1]}, the only day measured.${gap}`;
  const [first, last] = [measured[0], measured[measured.length - 1]];
  const top = Math.max(...measured.map(([v]) => v));
  return `${name}: ${fmt(first[0])} on ${first[1]}, ${fmt(last[0])} on ${last[1]}, highest ${fmt(top)}.${gap}`;
}

/**
 * A line chart, one line per series over `days` (null where a day has no
 * sample: the line breaks there). Its <title> and <desc> label it, and the
 * desc says every line's figures in words.
 */
function lineChart({ id, title, axis, days, series, fmt }) {
  const [W, H, left, right, top, bottom] = [640, 240, 72, 16, 12, 44];
  const max = Math.max(1, ...series.flatMap((l) => l.values.filter((v) => v !== null)));
  const x = (i) => left + (days.length === 1 ? (W - left - right) / 2 : (i * (W - left - right)) / (days.length - 1));
  const y = (v) => H - bottom - (v / max) * (H - top - bottom);
  const every = Math.ceil(days.length / 7);
  const svg = s('svg', { class: 'chart', role: 'img', viewBox: `0 0 ${W} ${H}`, 'aria-labelledby': `${id}-title ${id}-desc` },
    s('title', { id: `${id}-title` }, title),
    s('desc', { id: `${id}-desc` }, `${title}, ${days[0]} to ${days[days.length - 1]}. ${series.map((l) => lineInWords(l.name, days, l.values, fmt)).join(' ')}`),
    s('line', { class: 'chart-axis', x1: left, y1: H - bottom, x2: W - right, y2: H - bottom }),
    s('line', { class: 'chart-axis', x1: left, y1: top, x2: left, y2: H - bottom }),
    [...new Set([0, Math.round(max / 2), max])].map((v) => s('text', { x: left - 6, y: y(v) + 4, 'text-anchor': 'end' }, fmt(v))),
    days.map((d, i) => (i % every === 0 || i === days.length - 1 ? s('text', { x: x(i), y: H - bottom + 16, 'text-anchor': 'middle' }, d.slice(5)) : null)),
    s('text', { x: (left + W - right) / 2, y: H - 6, 'text-anchor': 'middle' }, 'Day (UTC)'),
    s('text', { x: 12, y: (top + H - bottom) / 2, 'text-anchor': 'middle', transform: `rotate(-90 12 ${(top + H - bottom) / 2})` }, axis));
  series.forEach((l, n) => {
    let path = '';
    l.values.forEach((v, i) => {
      if (v === null) return;
      path += `${path && l.values[i - 1] !== null && i > 0 ? 'L' : 'M'}${x(i).toFixed(1)},${y(v).toFixed(1)} `;
      svg.append(s('circle', { class: `chart-dot ${seriesClass(n)}`, cx: x(i).toFixed(1), cy: y(v).toFixed(1), r: 3 }));
    });
    if (path) svg.append(s('path', { class: `chart-line ${seriesClass(n)}`, d: path.trim() }));
  });
  return svg;
}

/** A chart of one figure per catalog per day, its legend, and the same figures as a table in a <details>. */
function chartBlock({ id, title, axis, usage, pick, fmt, exact }) {
  const days = usage.warehouses[0].days.map((d) => d.day);
  const series = usage.warehouses.map((w) => ({ name: w.name, values: w.days.map(pick) }));
  const cell = (v) => (v === null ? '—' : h('data', { value: v }, exact(v)));
  return h('div', { class: 'chart-block', id },
    h('h3', { id: `${id}-heading` }, title),
    lineChart({ id: `${id}-chart`, title, axis, days, series, fmt }),
    h('ul', { class: 'legend', 'aria-label': `Lines of ${title.toLowerCase()}` },
      series.map((l, n) => h('li', {}, h('span', { class: `swatch ${seriesClass(n)}`, 'aria-hidden': 'true' }), l.name))),
    h('details', {},
      h('summary', { id: `${id}-table` }, `${title}: the figures as a table`),
      table(`${id}-table`, ['Day (UTC)', ...series.map((l) => l.name)],
        days.map((d, i) => [d, ...series.map((l) => cell(l.values[i]))]))));
}

function chartsSection(usage) {
  const heading = `Storage by day, ${usage.window.from} to ${usage.window.to}`;
  if (!usage.warehouses.length) return section('history-title', heading, empty('No catalogs here that you can see.'));
  if (!usage.warehouses.some((w) => w.days.some((d) => d.bytes !== null))) {
    return section('history-title', heading, empty('No measurement in these days yet. A catalog is first measured about 2 minutes after it is made; “Measure now” measures it at once.'));
  }
  const exactBytes = (v) => (v < 1000 ? bytes(v) : `${bytes(v)} (${v} bytes)`);
  return section('history-title', heading,
    chartBlock({ id: 'bytes', title: 'Stored bytes per catalog', axis: 'Bytes', usage, pick: (d) => d.bytes, fmt: bytes, exact: exactBytes }),
    chartBlock({ id: 'objects', title: 'Stored objects per catalog', axis: 'Objects', usage, pick: (d) => d.objects, fmt: count, exact: count }));
}

// ---- catalogs -------------------------------------------------------------

/** A catalog's last measurement, with a button to measure it now (once a minute per catalog; read level is enough). */
function catalogCard(w, onMeasured) {
  const figures = { stored: h('dd'), objects: h('dd'), measured: h('dd') };
  const status = h('p', { role: 'status', class: 'hint' });
  const alert = h('p', { role: 'alert' });
  let shown = w.footprint;
  const show = (fp) => {
    shown = fp;
    figures.stored.replaceChildren(fp ? `${bytes(fp.bytes)} (tables ${bytes(fp.table.bytes)}, files ${bytes(fp.blob.bytes)})${fp.complete ? '' : ', at least'}` : '—');
    figures.objects.replaceChildren(fp ? count(fp.objects) : '—');
    figures.measured.replaceChildren(freshness(fp?.measured_at, fp?.stale_after), fp ? ' · ' : '', fp ? when(fp.measured_at) : '');
  };
  show(w.footprint);
  const button = h('button', { type: 'button', class: 'secondary', 'aria-label': `Measure now: ${w.name}`, onclick: async () => {
    button.disabled = true;
    alert.textContent = '';
    status.textContent = '';
    figures.measured.replaceChildren('measuring…');
    try {
      const m = await call('POST', `/v1/warehouses/${encodeURIComponent(w.warehouse_id)}/measure`);
      show({ bytes: m.bytes, objects: m.objects, table: { bytes: m.table_bytes }, blob: { bytes: m.blob_bytes }, complete: m.complete, measured_at: m.measured_at, stale_after: m.stale_after });
      status.textContent = `Measured ${w.name}: ${bytes(m.bytes)} in ${count(m.objects)} object${m.objects === 1 ? '' : 's'}.${m.partial ? ' The bucket has more objects than one measurement lists, so this is a lower bound.' : ''}`;
      await onMeasured().catch((err) => { alert.textContent = `Measured, but the limits and charts could not be drawn again: ${explain(err)}`; });
    } catch (err) {
      show(shown);
      alert.textContent = err.code === 'rate_limited'
        ? `Not measured: Floe measures a catalog at most once a minute. Try again in ${err.details?.retry_after_seconds ?? 60} seconds.`
        : explain(err);
    } finally {
      button.disabled = false;
    }
  } }, 'Measure now');
  return h('li', { class: 'card', dataset: { catalog: w.name, warehouse: w.warehouse_id } },
    h('h3', {}, h('a', { href: `/app/catalog?catalog=${encodeURIComponent(w.warehouse_id)}` }, w.name)),
    h('p', { class: 'hint' }, `Project ${w.project} · ${w.tier} · your level: ${w.my_level}`),
    h('dl', {},
      h('dt', {}, 'Stored'), figures.stored,
      h('dt', {}, 'Objects'), figures.objects,
      h('dt', {}, 'Measured'), figures.measured,
      h('dt', {}, 'Traffic'), h('dd', {}, w.traffic ? `${count(w.traffic.requests)} requests, ${bytes(w.traffic.bytes_in)} in, ${bytes(w.traffic.bytes_out)} out` : 'not metered yet')),
    h('div', { class: 'actions' }, button), status, alert);
}

await consolePage({
  area: 'usage',
  title: 'Usage',
  render: async (ctx) => {
    const asked = Number(params.get('days'));
    const days = Number.isInteger(asked) && asked >= 1 && asked <= 30 ? asked : 7;
    const load = () => call('GET', `/v1/usage?org_id=${encodeURIComponent(ctx.org.org_id)}&days=${days}`);
    const usage = await load();
    const limits = h('div', {}, limitsSection(usage));
    const history = h('div', {}, chartsSection(usage));
    // A measurement changes the limits and the history: both are drawn again from a fresh answer; the cards keep focus and messages.
    const redraw = async () => {
      const fresh = await load();
      limits.replaceChildren(limitsSection(fresh));
      history.replaceChildren(chartsSection(fresh));
    };
    ctx.heading = `Usage of ${ctx.org.name}`;
    ctx.body.append(
      h('p', { class: 'hint' }, usage.note),
      h('nav', { class: 'picker', 'aria-label': 'Days of history' }, 'Show',
        DAY_CHOICES.map((n) => h('a', { href: here({ days: n }), 'aria-current': n === days ? 'true' : null }, `${n} days`))),
      limits,
      section('catalogs-title', 'Catalogs',
        usage.warehouses.length
          ? h('ul', { class: 'cards' }, usage.warehouses.map((w) => catalogCard(w, redraw)))
          : empty('No catalogs here that you can see.')),
      history);
  },
});

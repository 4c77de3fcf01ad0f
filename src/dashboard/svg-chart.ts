// Charts drawn on the server as inline SVG (no script, no inline style: colours are SVG
// attributes, which the dashboard's CSP allows). Every chart comes with its numbers in a table
// (chartTable), which is what a screen reader or a copy-paste reads.
import { type Html, html } from "./html.ts";

export type Series = { name: string; color: string; values: number[] };

const WIDTH = 720;
const HEIGHT = 180;
const LEFT = 44;
const RIGHT = 24; // room for the last day's label
const BOTTOM = 22;
const TOP = 8;

/** A round axis maximum at or above `max` (1, 2, 5 × 10^n). */
function niceMax(max: number): number {
  if (max <= 0) return 1;
  const power = 10 ** Math.floor(Math.log10(max));
  for (const step of [1, 2, 5, 10]) if (step * power >= max) return step * power;
  return 10 * power;
}

function axes(labels: string[], max: number, unit: string): Html {
  const plotH = HEIGHT - TOP - BOTTOM;
  // Counts are whole numbers: a half-way line only where it falls on one.
  const ticks = Number.isInteger(max / 2) || unit ? [0, max / 2, max] : [0, max];
  const slot = (WIDTH - LEFT - RIGHT) / labels.length;
  return html`${ticks.map((t) => {
    const y = TOP + plotH - (t / max) * plotH;
    return html`<line x1="${LEFT}" x2="${WIDTH - RIGHT}" y1="${y}" y2="${y}" stroke="#e2e5ea"/><text x="${LEFT - 4}" y="${y + 4}" text-anchor="end" font-size="14" fill="#4f5965">${formatTick(t)}${unit}</text>`;
  })}
${labels.map((label, i) =>
  (labels.length - 1 - i) % 7 === 0
    ? html`<text x="${LEFT + slot * i + slot / 2}" y="${HEIGHT - 6}" text-anchor="middle" font-size="14" fill="#4f5965">${label.slice(5)}</text>`
    : html``,
)}`;
}

function formatTick(value: number): string {
  return Number.isInteger(value) ? String(value) : value.toFixed(1);
}

function svg(label: string, body: Html): Html {
  return html`<svg viewBox="0 0 ${WIDTH} ${HEIGHT}" role="img" aria-label="${label}" xmlns="http://www.w3.org/2000/svg" preserveAspectRatio="xMidYMid meet">${body}</svg>`;
}

export function legend(series: { name: string; color: string }[]): Html {
  return html`<p class="legend">${series.map((s) => html`<span><svg width="12" height="12" aria-hidden="true"><rect width="12" height="12" rx="2" fill="${s.color}"/></svg> ${s.name}</span>`)}</p>`;
}

/** Stacked bars, one per label (day), one colour per series. */
export function stackedBars(label: string, labels: string[], series: Series[]): Html {
  const totals = labels.map((_, i) => series.reduce((sum, s) => sum + (s.values[i] ?? 0), 0));
  const max = niceMax(Math.max(0, ...totals));
  const plotH = HEIGHT - TOP - BOTTOM;
  const slot = (WIDTH - LEFT - RIGHT) / labels.length;
  const bars = labels.map((day, i) => {
    let y = TOP + plotH;
    return series.map((s) => {
      const value = s.values[i] ?? 0;
      if (value === 0) return html``;
      const h = (value / max) * plotH;
      y -= h;
      return html`<rect x="${(LEFT + slot * i + slot * 0.15).toFixed(1)}" y="${y.toFixed(1)}" width="${(slot * 0.7).toFixed(1)}" height="${h.toFixed(1)}" fill="${s.color}"><title>${day} ${s.name}: ${value}</title></rect>`;
    });
  });
  return html`${svg(label, html`${axes(labels, max, "")}${bars}`)}${legend(series)}`;
}

/** A line over days; a day without a value is a gap, not a zero. */
export function lineChart(label: string, labels: string[], values: (number | null)[], color: string, unit: string): Html {
  const max = niceMax(Math.max(0, ...values.map((v) => v ?? 0)));
  const plotH = HEIGHT - TOP - BOTTOM;
  const slot = (WIDTH - LEFT - RIGHT) / labels.length;
  const point = (i: number, v: number) => [LEFT + slot * i + slot / 2, TOP + plotH - (v / max) * plotH] as const;
  const runs: string[][] = [[]];
  values.forEach((v, i) => {
    if (v === null) {
      if (runs[runs.length - 1]!.length) runs.push([]);
      return;
    }
    const [x, y] = point(i, v);
    runs[runs.length - 1]!.push(`${x.toFixed(1)},${y.toFixed(1)}`);
  });
  const dots = values.map((v, i) => {
    if (v === null) return html``;
    const [x, y] = point(i, v);
    return html`<circle cx="${x.toFixed(1)}" cy="${y.toFixed(1)}" r="3" fill="${color}"><title>${labels[i]}: ${v}${unit}</title></circle>`;
  });
  const lines = runs
    .filter((r) => r.length > 1)
    .map((r) => html`<polyline points="${r.join(" ")}" fill="none" stroke="${color}" stroke-width="2"/>`);
  return svg(label, html`${axes(labels, max, unit)}${lines}${dots}`);
}

/** The numbers behind a chart: a row per day that has any, a column per series. */
export function chartTable(caption: string, labels: string[], series: { name: string; values: (number | null)[] }[]): Html {
  const rows = labels
    .map((day, i) => ({ day, cells: series.map((s) => s.values[i] ?? null) }))
    .filter((r) => r.cells.some((v) => v !== null && v !== 0))
    .reverse();
  return html`<details class="numbers"><summary>${caption}: the numbers</summary><div class="scroll"><table class="compact"><thead><tr><th>Day (UTC)</th>${series.map((s) => html`<th>${s.name}</th>`)}</tr></thead>
<tbody>${rows.length ? rows.map((r) => html`<tr><td>${r.day}</td>${r.cells.map((v) => html`<td>${v ?? "—"}</td>`)}</tr>`) : html`<tr><td colspan="${series.length + 1}">Nothing in the last 30 days.</td></tr>`}</tbody></table></div></details>`;
}

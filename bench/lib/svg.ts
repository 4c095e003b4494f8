/**
 * A log-log line chart as a hand-written SVG string: no chart library, no fonts to load, and a
 * stable output for the same data (so a re-run only changes the numbers in the diff).
 */

export interface Series {
  readonly label: string;
  readonly color: string;
  readonly dashed?: boolean;
  readonly points: ReadonlyArray<{ readonly x: number; readonly y: number }>;
}

export interface ChartOptions {
  readonly title: string;
  readonly subtitle?: string;
  readonly xLabel: string;
  readonly yLabel: string;
  readonly formatX: (value: number) => string;
  readonly formatY: (value: number) => string;
}

const WIDTH = 760;
const HEIGHT = 460;
const MARGIN = { top: 64, right: 24, bottom: 64, left: 78 };

function escape(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}

function decades(lo: number, hi: number): number[] {
  const out: number[] = [];
  for (let e = Math.floor(Math.log10(lo)); e <= Math.ceil(Math.log10(hi)); e++) out.push(10 ** e);
  return out;
}

export function logLogChart(series: readonly Series[], options: ChartOptions): string {
  const all = series.flatMap((s) => s.points).filter((p) => p.x > 0 && p.y > 0 && Number.isFinite(p.y));
  if (all.length === 0) throw new Error('chart: no positive data points');
  const xTicks = decades(Math.min(...all.map((p) => p.x)), Math.max(...all.map((p) => p.x)));
  const yTicks = decades(Math.min(...all.map((p) => p.y)), Math.max(...all.map((p) => p.y)));
  const [x0, x1] = [Math.log10(xTicks[0]!), Math.log10(xTicks[xTicks.length - 1]!)];
  const [y0, y1] = [Math.log10(yTicks[0]!), Math.log10(yTicks[yTicks.length - 1]!)];
  const plotW = WIDTH - MARGIN.left - MARGIN.right;
  const plotH = HEIGHT - MARGIN.top - MARGIN.bottom;
  const sx = (x: number): number => MARGIN.left + ((Math.log10(x) - x0) / (x1 - x0 || 1)) * plotW;
  const sy = (y: number): number => MARGIN.top + plotH - ((Math.log10(y) - y0) / (y1 - y0 || 1)) * plotH;
  const r = (n: number): string => n.toFixed(1);

  const out: string[] = [];
  out.push(
    `<svg xmlns="http://www.w3.org/2000/svg" width="${WIDTH}" height="${HEIGHT}" viewBox="0 0 ${WIDTH} ${HEIGHT}" font-family="system-ui, -apple-system, 'Segoe UI', sans-serif" font-size="12">`,
  );
  out.push(`<title>${escape(options.title)}</title>`);
  out.push(`<rect width="${WIDTH}" height="${HEIGHT}" fill="#ffffff"/>`);
  out.push(`<text x="${MARGIN.left}" y="24" font-size="16" font-weight="600" fill="#212529">${escape(options.title)}</text>`);
  if (options.subtitle) out.push(`<text x="${MARGIN.left}" y="42" fill="#495057">${escape(options.subtitle)}</text>`);

  // Grid: every decade solid, 2..9 within a decade faint.
  for (const tick of xTicks) {
    const x = sx(tick);
    out.push(`<line x1="${r(x)}" y1="${MARGIN.top}" x2="${r(x)}" y2="${MARGIN.top + plotH}" stroke="#dee2e6"/>`);
    out.push(`<text x="${r(x)}" y="${MARGIN.top + plotH + 18}" text-anchor="middle" fill="#495057">${escape(options.formatX(tick))}</text>`);
  }
  for (const tick of yTicks) {
    const y = sy(tick);
    out.push(`<line x1="${MARGIN.left}" y1="${r(y)}" x2="${MARGIN.left + plotW}" y2="${r(y)}" stroke="#dee2e6"/>`);
    out.push(`<text x="${MARGIN.left - 8}" y="${r(y + 4)}" text-anchor="end" fill="#495057">${escape(options.formatY(tick))}</text>`);
    if (tick !== yTicks[yTicks.length - 1]) {
      for (let k = 2; k <= 9; k++) {
        const yy = sy(tick * k);
        out.push(`<line x1="${MARGIN.left}" y1="${r(yy)}" x2="${MARGIN.left + plotW}" y2="${r(yy)}" stroke="#f1f3f5"/>`);
      }
    }
  }
  out.push(`<rect x="${MARGIN.left}" y="${MARGIN.top}" width="${plotW}" height="${plotH}" fill="none" stroke="#adb5bd"/>`);
  out.push(
    `<text x="${MARGIN.left + plotW / 2}" y="${HEIGHT - 16}" text-anchor="middle" fill="#212529">${escape(options.xLabel)}</text>`,
  );
  out.push(
    `<text transform="translate(18 ${MARGIN.top + plotH / 2}) rotate(-90)" text-anchor="middle" fill="#212529">${escape(options.yLabel)}</text>`,
  );

  // Series.
  for (const s of series) {
    const points = s.points.filter((p) => p.x > 0 && p.y > 0 && Number.isFinite(p.y));
    const path = points.map((p) => `${r(sx(p.x))},${r(sy(p.y))}`).join(' ');
    out.push(
      `<polyline points="${path}" fill="none" stroke="${s.color}" stroke-width="2"${s.dashed ? ' stroke-dasharray="6 4"' : ''}/>`,
    );
    for (const p of points) {
      out.push(
        `<circle cx="${r(sx(p.x))}" cy="${r(sy(p.y))}" r="3.5" fill="${s.color}"><title>${escape(`${s.label}: ${options.formatX(p.x)} groups, ${options.formatY(p.y)}`)}</title></circle>`,
      );
    }
  }

  // Legend, top-left inside the plot.
  const legendX = MARGIN.left + 12;
  let legendY = MARGIN.top + 16;
  out.push(
    `<rect x="${legendX - 8}" y="${legendY - 12}" width="236" height="${series.length * 18 + 8}" fill="#ffffff" fill-opacity="0.9" stroke="#dee2e6"/>`,
  );
  for (const s of series) {
    out.push(
      `<line x1="${legendX}" y1="${legendY - 4}" x2="${legendX + 26}" y2="${legendY - 4}" stroke="${s.color}" stroke-width="2"${s.dashed ? ' stroke-dasharray="6 4"' : ''}/>`,
    );
    out.push(`<text x="${legendX + 34}" y="${legendY}" fill="#212529">${escape(s.label)}</text>`);
    legendY += 18;
  }
  out.push('</svg>');
  return `${out.join('\n')}\n`;
}

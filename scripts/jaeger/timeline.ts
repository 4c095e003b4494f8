/**
 * A trace timeline as one self-contained HTML page (no scripts, no network), drawn from the
 * spans Jaeger's query API returned: the layout of Jaeger UI's trace view (a span tree on the
 * left, bars on a shared time axis on the right), so the README can show what the demo's trace
 * looks like in a real backend when the real UI is not available. The page says what it is.
 */
import type { DecodedSpan } from '../../__test__/helpers/protobuf';

export interface TimelineSource {
  /** What the page must say it was drawn from, e.g. "Jaeger v1.76.0, GET /api/v3/traces/<id>". */
  readonly drawnFrom: string;
  /** Why this is not the real UI, in one sentence. */
  readonly why: string;
}

interface Row {
  readonly span: DecodedSpan;
  readonly depth: number;
}

const PALETTE = ['#17becf', '#ff7f0e', '#2ca02c', '#9467bd', '#8c564b', '#e377c2', '#bcbd22', '#1f77b4'];

const escape = (text: string) =>
  text.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);

const ms = (nanos: bigint) => Number(nanos) / 1e6;

function formatMs(value: number): string {
  if (value >= 1000) return `${(value / 1000).toFixed(2)} s`;
  if (value >= 10) return `${value.toFixed(0)} ms`;
  return `${value.toFixed(2)} ms`;
}

/** Depth-first, children in start order: the order Jaeger UI lists spans in. */
function rowsOf(spans: DecodedSpan[]): Row[] {
  const ids = new Set(spans.map((span) => span.spanId));
  const children = new Map<string, DecodedSpan[]>();
  const roots: DecodedSpan[] = [];
  for (const span of spans) {
    if (span.parentSpanId && ids.has(span.parentSpanId)) {
      const list = children.get(span.parentSpanId) ?? [];
      list.push(span);
      children.set(span.parentSpanId, list);
    } else {
      roots.push(span);
    }
  }
  const byStart = (a: DecodedSpan, b: DecodedSpan) => (a.startTimeUnixNano < b.startTimeUnixNano ? -1 : a.startTimeUnixNano > b.startTimeUnixNano ? 1 : 0);
  const rows: Row[] = [];
  const visit = (span: DecodedSpan, depth: number) => {
    rows.push({ span, depth });
    for (const child of (children.get(span.spanId) ?? []).sort(byStart)) visit(child, depth + 1);
  };
  for (const root of roots.sort(byStart)) visit(root, 0);
  return rows;
}

function serviceOf(span: DecodedSpan): string {
  const service = span.resource['service.name'];
  return typeof service === 'string' ? service : 'unknown service';
}

/** A process, as Jaeger UI colours them: here by service.instance.id (one per demo run), else the service. */
function processOf(span: DecodedSpan): string {
  const instance = span.resource['service.instance.id'];
  const service = serviceOf(span);
  return typeof instance === 'string' ? `${service} · ${instance}` : service;
}

export function renderTimeline(traceId: string, spans: DecodedSpan[], source: TimelineSource): string {
  const rows = rowsOf(spans);
  const start = spans.reduce((min, span) => (span.startTimeUnixNano < min ? span.startTimeUnixNano : min), spans[0]!.startTimeUnixNano);
  const end = spans.reduce((max, span) => (span.endTimeUnixNano > max ? span.endTimeUnixNano : max), spans[0]!.endTimeUnixNano);
  const total = Math.max(ms(end - start), 1e-3);
  const processes = [...new Set(rows.map((row) => processOf(row.span)))];
  const colour = (span: DecodedSpan) => PALETTE[processes.indexOf(processOf(span)) % PALETTE.length]!;
  const root = rows[0]!.span;
  const depth = Math.max(...rows.map((row) => row.depth)) + 1;
  const services = new Set(spans.map(serviceOf));
  const errors = spans.filter((span) => span.status.code === 2).length;

  const ticks = [0, 0.25, 0.5, 0.75, 1]
    .map((f) => `<div class="tick" style="left:${f * 100}%"><span>${formatMs(f * total)}</span></div>`)
    .join('');
  const legend = processes
    .map((name) => `<span class="chip"><i style="background:${PALETTE[processes.indexOf(name) % PALETTE.length]}"></i>${escape(name)}</span>`)
    .join('');
  const body = rows
    .map(({ span, depth: level }) => {
      const left = (ms(span.startTimeUnixNano - start) / total) * 100;
      const width = Math.max((ms(span.endTimeUnixNano - span.startTimeUnixNano) / total) * 100, 0.15);
      const group = span.attributes['nemo.span_group'];
      const failed = span.status.code === 2;
      const label = `${formatMs(ms(span.endTimeUnixNano - span.startTimeUnixNano))}`;
      const labelSide = left + width > 85 ? `right:${100 - left}%;text-align:right` : `left:${left + width}%`;
      return (
        `<div class="row${failed ? ' failed' : ''}">` +
        `<div class="name" style="padding-left:${8 + level * 14}px"><i style="background:${colour(span)}"></i>${escape(span.name)}` +
        (typeof group === 'string' ? ` <em>${escape(group)}</em>` : '') +
        `</div><div class="lane"><div class="bar" style="left:${left}%;width:${width}%;background:${failed ? '#d62728' : colour(span)}"></div>` +
        `<span class="dur" style="${labelSide}">${label}</span></div></div>`
      );
    })
    .join('');

  return `<!doctype html><html><head><meta charset="utf-8"><style>
  body { margin:0; font: 12px/1.2 -apple-system, "Segoe UI", Roboto, "DejaVu Sans", sans-serif; color:#222; background:#fff; }
  header { padding:12px 16px 8px; border-bottom:1px solid #ddd; background:#f6f6f6; }
  h1 { font-size:18px; margin:0 0 4px; font-weight:500; } h1 small { color:#777; font-size:12px; font-weight:400; margin-left:8px; }
  .facts span { margin-right:18px; } .facts b { font-weight:600; }
  .note { margin-top:6px; color:#8a5a00; background:#fff6df; border:1px solid #f0d58c; padding:4px 8px; border-radius:3px; }
  .legend { margin-top:6px; } .chip { margin-right:14px; white-space:nowrap; }
  .chip i, .name i { display:inline-block; width:8px; height:8px; border-radius:2px; margin-right:5px; vertical-align:0; }
  .axis, .row { display:flex; } .axis { height:20px; border-bottom:1px solid #ddd; color:#666; }
  .axis .name, .row .name { flex:0 0 34%; box-sizing:border-box; overflow:hidden; white-space:nowrap; text-overflow:ellipsis; border-right:1px solid #ddd; }
  .axis .name { padding:4px 8px; font-weight:600; color:#444; }
  .lane { position:relative; flex:1; margin:0 60px 0 8px; }
  .tick { position:absolute; top:0; bottom:0; border-left:1px solid #e4e4e4; } .tick span { position:absolute; left:3px; top:4px; white-space:nowrap; }
  .tick:last-child span { left:auto; right:3px; }
  .row { height:15px; border-bottom:1px solid #f1f1f1; } .row:nth-child(even) { background:#fafafa; }
  .row .name { padding-top:1px; } .row em { color:#888; font-style:normal; font-size:10px; }
  .row.failed .name { color:#d62728; }
  .bar { position:absolute; top:3px; height:9px; border-radius:2px; min-width:1px; }
  .dur { position:absolute; top:1px; padding:0 4px; color:#777; font-size:10px; white-space:nowrap; }
  footer { padding:6px 16px 10px; color:#666; border-top:1px solid #ddd; }
</style></head><body>
<header>
  <h1>${escape(serviceOf(root))}: ${escape(root.name)}<small>${escape(traceId)}</small></h1>
  <div class="facts"><span>Duration <b>${formatMs(total)}</b></span><span>Services <b>${services.size}</b></span><span>Processes <b>${processes.length}</b></span><span>Depth <b>${depth}</b></span><span>Total spans <b>${spans.length}</b></span><span>Errors <b>${errors}</b></span></div>
  <div class="legend">${legend}</div>
  <div class="note">Drawn from ${escape(source.drawnFrom)} by scripts/jaeger/screenshot.ts: the layout of Jaeger UI's trace view, not the Jaeger UI itself. ${escape(source.why)}</div>
</header>
<div class="axis"><div class="name">Service &amp; operation (group)</div><div class="lane">${ticks}</div></div>
<main>${body}</main>
<footer>Each row is a span as Jaeger stored it; bars share one time axis. Grey labels are the span group (<code>nemo.span_group</code>); colours are the exporting process (one per run of the demo, plus the demo's parent).</footer>
</body></html>`;
}

/**
 * Rendering a results file: the terminal table, the Markdown for the README's performance
 * section (between `<!-- performance:start -->` and `<!-- performance:end -->`), and the SVG
 * chart of register + resolve cost against registry size.
 */
import type { Backend, Mode } from '../cases/types';
import { EXPLANATIONS, METHOD, PROPOSALS_INTRO } from './explanations';
import type { Results, TimedEntry } from './results';
import { fmt, fmtDelta, fmtRatio } from './stats';
import { logLogChart, type Series } from './svg';
import { baselineNs, delta, peer, resolution } from './targets';

export const LABELS: Readonly<Record<string, string>> = {
  'baseline/bare': 'baseline: `work()` called directly',
  'baseline/field': 'boolean field `FLAGS.step`',
  'ours/is-hit': "`isSpanGroupEnabled('step')`, enabled",
  'ours/is-miss': "`isSpanGroupEnabled('step')`, disabled",
  'ours/handle': 'handle `STEP.enabled`',
  'ours/managed-string': "`managedSpan('step', …)`",
  'ours/managed-handle': '`managedSpan(STEP, …)`',
  'ours/managed-options': "`managedSpan('step', name, options, fn)`",
  'ours/managed-module': "`nemo.managedSpan('step', …)` via the module object",
  'ours/tracefn': "`traceFn('step', …)` wrapper",
  'ours/tracefn-handle': '`traceFn(STEP, …)` wrapper',
  'peers/set-has': "peer: `enabled.has('step')` (Set)",
  'peers/set-wrapper': 'peer: naive Set.has wrapper',
  'peers/debug': 'peer: disabled `debug` logger',
  'peers/otel-api': 'peer: OTel API, no SDK, `startActiveSpan`',
  'peers/otel-sdk-off': 'peer: OTel SDK, AlwaysOff, `startActiveSpan`',
  'peers/dc-has-subscribers': 'peer: `diagnostics_channel` `hasSubscribers`',
  'enabled/managed-tracer': "`managedSpan('step', name, { tracer }, fn)`",
  'enabled/managed-global': "`managedSpan('step', name, fn)` (global tracer)",
  'enabled/raw': '`tracer.startActiveSpan(name, fn)`',
  'enabled/pipeline-main': "`managedSpan('step', name, fn)`, setupTelemetry's pipeline on the main thread (OTLP to a collector process)",
  'enabled/pipeline-worker': "`managedSpan('step', name, fn)`, setupTelemetry's pipeline with the export worker (OTLP to a collector process)",
  'enabled/raw-attribute': '`tracer.startActiveSpan(name, { attributes }, fn)`',
  'enabled/copy-current': 'candidate: copy of managedSpan\'s enabled path (tracer option)',
  'enabled/copy-one-active': 'candidate: the copy, `context.active()` read once',
  'enabled/copy-lean': 'candidate: read once + one frozen options object per group',
  'proposals/table-fast': 'string gate: fast-mode object, key-less prototype chain (today)',
  'proposals/table-dict': 'string gate: dictionary-mode null-prototype object',
  'proposals/map': 'string gate: `Map#get(name) === true`',
  'proposals/set': 'string gate: `Set#has(name)` of enabled names',
  'proposals/tracefn-current': "`traceFn('step', …)` wrapper reading the table per call (as of 5c21d7b)",
  'proposals/tracefn-proposed': "`traceFn('step', …)` wrapper: handle resolved at wrap time (since adopted in src/span.ts)",
  'baseline/alloc-control': 'control: allocates one small object per call',
};

const MODE_TITLES: Readonly<Record<Mode, string>> = {
  mono: 'Monomorphic: only `step` ever reaches the library functions (inlining on)',
  mega: 'Megamorphic: the same library functions first saw 8 other names and handles (many sites, one library)',
  noinline: 'Inlining off: `node --no-turbo-inlining` (every call stays a call)',
  realistic:
    'Realistic: two libraries, eight groups, two enabled; every name reached every entry point (strings, handles, traceFn; enabled calls ran spans)',
};

const PEER_COLUMNS: ReadonlyArray<[string, string]> = [
  ['set-wrapper', 'Set.has wrapper'],
  ['debug', 'debug'],
  ['otel-api', 'OTel API'],
  ['otel-sdk-off', 'SDK AlwaysOff'],
  ['dc-has-subscribers', 'dc'],
];

function label(entry: { module: string; case: string }): string {
  return LABELS[`${entry.module}/${entry.case}`] ?? `${entry.module}/${entry.case}`;
}

function table(header: readonly string[], rows: ReadonlyArray<readonly string[]>, align?: readonly ('l' | 'r')[]): string {
  const sep = header.map((_, i) => ((align?.[i] ?? (i === 0 ? 'l' : 'r')) === 'l' ? '---' : '---:'));
  return [header, sep, ...rows].map((row) => `| ${row.join(' | ')} |`).join('\n');
}

function microRows(results: Results, mode: Mode): string[][] {
  const base = baselineNs(results, mode);
  const entries = results.micro.filter((e) => e.mode === mode && e.module !== 'proposals');
  const order = (e: TimedEntry): number => (e.module === 'baseline' ? 0 : e.module === 'ours' ? 1 : 2);
  return [...entries]
    .sort((a, b) => order(a) - order(b))
    .map((entry) => {
      const d = delta(results, entry);
      const peers = PEER_COLUMNS.map(([name]) => {
        const other = peer(results, name, mode);
        if (other === undefined || entry.module === 'peers') return '';
        return fmtRatio(other.ns / entry.ns);
      });
      const spread = entry.rounds.length > 1 ? ` (${fmt(entry.spread[0])}–${fmt(entry.spread[1])})` : '';
      return [
        label(entry),
        entry.backend ?? '',
        `${fmt(entry.ns)}${spread}`,
        entry.case === 'bare' && entry.module === 'baseline' ? '' : `${fmtDelta(d ?? NaN)}`,
        base === undefined ? '' : fmtRatio(entry.ns / base),
        ...peers,
      ];
    });
}

function microTable(results: Results, mode: Mode): string {
  return table(
    ['site', 'backend', 'ns/op', 'Δ ns', '× baseline', ...PEER_COLUMNS.map(([, name]) => `vs ${name}`)],
    microRows(results, mode),
    ['l', 'l'],
  );
}

function proposalsTable(results: Results): string {
  const names = [...new Set(results.micro.filter((e) => e.module === 'proposals').map((e) => e.case))];
  const cell = (name: string, mode: Mode): [string, string] => {
    const entry = results.micro.find((e) => e.module === 'proposals' && e.case === name && e.mode === mode);
    return entry === undefined ? ['–', '–'] : [fmt(entry.ns), fmtDelta(delta(results, entry) ?? NaN)];
  };
  return table(
    ['candidate (through a managedSpan-shaped disabled path)', 'mono ns/op', 'mono Δ', 'mega ns/op', 'mega Δ', 'bytes/call'],
    names.map((name) => {
      const memory = results.memory.find((e) => e.module === 'proposals' && e.case === name);
      return [label({ module: 'proposals', case: name }), ...cell(name, 'mono'), ...cell(name, 'mega'), memory ? memory.bytesPerCall.toFixed(4) : ''];
    }),
    ['l'],
  );
}

function enabledTable(results: Results): string {
  const raw = results.enabled.find((e) => e.case === 'raw');
  return table(
    ['enabled span (BatchSpanProcessor, no-op exporter)', 'backend', 'ns/span', '× raw'],
    results.enabled.map((e) => [label(e), e.backend ?? '', fmt(e.ns), raw ? fmtRatio(e.ns / raw.ns) : '']),
    ['l', 'l'],
  );
}

function scaleTable(results: Results): string {
  const sizes = [...new Set(results.scale.map((e) => e.size))].sort((a, b) => a - b);
  const ms = (layer: 'api' | 'core', backend: Backend, size: number): number | undefined =>
    results.scale.find((e) => e.layer === layer && e.backend === backend && e.size === size)?.ms;
  const cell = (value: number | undefined): string => (value === undefined ? '–' : fmt(value));
  const speedup = (layer: 'api' | 'core', size: number): string => {
    const n = ms(layer, 'native', size);
    const j = ms(layer, 'js', size);
    return n === undefined || j === undefined ? '–' : fmtRatio(j / n);
  };
  return table(
    ['groups', 'namespaces', 'API native ms', 'API twin ms', 'twin ÷ native', 'core native ms', 'core twin ms', 'twin ÷ native'],
    sizes.map((size) => [
      size.toLocaleString('en-US'),
      String(results.scale.find((e) => e.size === size)?.namespaces ?? ''),
      cell(ms('api', 'native', size)),
      cell(ms('api', 'js', size)),
      speedup('api', size),
      cell(ms('core', 'native', size)),
      cell(ms('core', 'js', size)),
      speedup('core', size),
    ]),
  );
}

function startupTable(results: Results): string {
  const api = results.startup.find((e) => e.name === 'otel-api');
  return table(
    ['require()', 'import ms (median)', 'IQR', 'whole process ms', '× @opentelemetry/api'],
    results.startup.map((e) => [
      e.label,
      e.name === 'node' ? '–' : fmt(e.importMs),
      e.name === 'node' ? '–' : `${fmt(e.importP25Ms)}–${fmt(e.importP75Ms)}`,
      fmt(e.wallMs),
      api && e.name !== 'node' ? fmtRatio(e.importMs / api.importMs) : '',
    ]),
  );
}

function memoryTable(results: Results): string {
  return table(
    ['site', 'backend', 'calls per loop', 'bytes/call (least of 3 loops)', 'most of 3', 'GCs during the loop'],
    results.memory.map((e) => [
      label(e),
      e.backend ?? '',
      e.calls.toExponential(0),
      e.bytesPerCall.toFixed(4),
      (e.bytesPerCallMax ?? e.bytesPerCall).toFixed(4),
      String(e.gcs),
    ]),
    ['l', 'l'],
  );
}

/** Numbers the notes quote, from this run: `{name}` in a note is replaced by `facts[name]`. */
function facts(results: Results): Record<string, string> {
  const out: Record<string, string> = {};
  const micro = (module: string, name: string, mode: Mode, backend: Backend | null) =>
    results.micro.find((e) => e.module === module && e.case === name && e.mode === mode && e.backend === backend);
  const d = (entry: TimedEntry | undefined): string => (entry === undefined ? '?' : `${fmtDelta(delta(results, entry) ?? NaN)} ns`);
  out['monoBase'] = fmt(baselineNs(results, 'mono') ?? NaN);
  out['noinlineBase'] = fmt(baselineNs(results, 'noinline') ?? NaN);
  out['megaDelta'] = d(micro('ours', 'managed-string', 'mega', 'native'));
  out['realisticString'] = d(micro('ours', 'managed-string', 'realistic', 'native'));
  out['realisticHandle'] = d(micro('ours', 'managed-handle', 'realistic', 'native'));
  out['realisticTracefn'] = d(micro('ours', 'tracefn', 'realistic', 'native'));
  out['realisticNaive'] = d(micro('peers', 'set-wrapper', 'realistic', null));
  out['noinlineDelta'] = d(micro('ours', 'managed-string', 'noinline', 'native'));
  out['setWrapperNoinline'] = d(micro('peers', 'set-wrapper', 'noinline', null));
  out['tracefnMega'] = d(micro('ours', 'tracefn', 'mega', 'native'));
  out['tracefnHandleMega'] = d(micro('ours', 'tracefn-handle', 'mega', 'native'));
  out['proposedMega'] = d(micro('proposals', 'tracefn-proposed', 'mega', null));
  out['setMega'] = d(micro('proposals', 'set', 'mega', null));
  out['tableMega'] = d(micro('proposals', 'table-fast', 'mega', null));
  const raw = results.enabled.find((e) => e.case === 'raw');
  const ratio = (name: string): string => {
    const entry = results.enabled.find((e) => e.case === name && (e.backend === 'native' || e.backend === null));
    return entry && raw ? fmtRatio(entry.ns / raw.ns) : '?';
  };
  out['enabledRatio'] = ratio('managed-tracer');
  out['enabledGlobalRatio'] = ratio('managed-global');
  out['rawAttributeRatio'] = ratio('raw-attribute');
  out['copyRatio'] = ratio('copy-current');
  out['oneActiveRatio'] = ratio('copy-one-active');
  out['leanRatio'] = ratio('copy-lean');
  out['rawSpread'] = raw ? `${Math.round((100 * (Math.max(...raw.rounds) - Math.min(...raw.rounds))) / 2 / raw.ns)}%` : '?';
  const startup = (name: string) => results.startup.find((e) => e.name === name);
  const api = startup('otel-api');
  const ours = startup('nemo-lens');
  const coreModules = startup('nemo-lens-core-modules');
  out['apiMs'] = api ? fmt(api.importMs) : '?';
  out['importMs'] = ours ? fmt(ours.importMs) : '?';
  out['importRatio'] = api && ours ? fmtRatio(ours.importMs / api.importMs) : '?';
  const oursJs = startup('nemo-lens-js');
  out['importJsRatio'] = api && oursJs ? fmtRatio(oursJs.importMs / api.importMs) : '?';
  out['coreModulesRatio'] = api && coreModules ? fmtRatio(coreModules.importMs / api.importMs) : '?';
  return out;
}

function fillFacts(text: string, results: Results): string {
  const values = facts(results);
  return text.replace(/\{(\w+)\}/g, (match, name: string) => values[name] ?? match);
}

function mark(verdict: string): string {
  return verdict === 'met' ? '✅' : verdict === 'missed' ? '❌' : '–';
}

/** The gate targets as a grid: one row per target, one column per backend and mode. */
function gateTargetsTable(results: Results): string {
  const gate = results.targets.filter((t) => t.mode !== undefined);
  const titles = [...new Set(gate.map((t) => t.target))];
  const columns = (['mono', 'mega', 'realistic', 'noinline'] as const).flatMap((mode) => (['native', 'js'] as const).map((backend) => ({ mode, backend })));
  const used = columns.filter((c) => gate.some((t) => t.mode === c.mode && t.backend === c.backend && t.verdict !== 'not measured'));
  return table(
    ["gate target (ratios: disabled managedSpan('step') against the peer, by overhead Δ)", ...used.map((c) => `${c.backend}, ${c.mode}`)],
    titles.map((title) => [
      title,
      ...used.map((c) => {
        const t = gate.find((x) => x.target === title && x.mode === c.mode && x.backend === c.backend);
        return t === undefined || t.verdict === 'not measured' ? '–' : `${mark(t.verdict)} ${t.short ?? t.measured}`;
      }),
    ]),
    ['l'],
  );
}

/** Every other target, one row per scope; the memory target one row per site, both backends in it. */
function otherTargetsTable(results: Results): string {
  const rows: string[][] = [];
  for (const t of results.targets.filter((x) => x.mode === undefined && x.id !== 'memory' && x.verdict !== 'not measured')) {
    rows.push([t.target, t.scope, t.measured, `${mark(t.verdict)} ${t.verdict}`]);
  }
  const memory = results.targets.filter((x) => x.id === 'memory');
  const sites = [...new Set(results.memory.filter((e) => e.module === 'ours').map((e) => e.case))];
  for (const site of sites) {
    const entries = results.memory.filter((e) => e.module === 'ours' && e.case === site);
    const verdicts = memory.filter((t) => t.scope.startsWith(`${site},`)).map((t) => t.verdict);
    const verdict = verdicts.every((v) => v === 'met') ? 'met' : 'missed';
    rows.push([
      '0 bytes allocated per disabled call',
      label({ module: 'ours', case: site }),
      entries.map((e) => `${e.backend}: ${e.bytesPerCall.toFixed(e.bytesPerCall < 1 ? 3 : 1)} B/call, ${e.gcs} GCs`).join('; '),
      `${mark(verdict)} ${verdict}`,
    ]);
  }
  return table(['target', 'scope', 'measured', 'verdict'], rows, ['l', 'l', 'l', 'l']);
}

function targetsTable(results: Results): string {
  const skipped = results.targets.filter((t) => t.verdict === 'not measured').length;
  const parts = [gateTargetsTable(results), otherTargetsTable(results)];
  if (skipped > 0) parts.push(`${skipped} target evaluations had no data in this run (a quick run measures the twin in mode mono only).`);
  return parts.join('\n\n');
}

export function renderChart(results: Results): string {
  const series: Series[] = [];
  const colors: Record<Backend, string> = { native: '#d9480f', js: '#1971c2' };
  for (const layer of ['api', 'core'] as const) {
    for (const backend of ['native', 'js'] as const) {
      const points = results.scale
        .filter((e) => e.layer === layer && e.backend === backend)
        .sort((a, b) => a.size - b.size)
        .map((e) => ({ x: e.size, y: e.ms }));
      if (points.length === 0) continue;
      series.push({
        label: `${backend === 'native' ? 'native (Rust)' : 'twin (TypeScript)'}, ${layer === 'api' ? 'public API' : 'CoreState only'}`,
        color: colors[backend],
        dashed: layer === 'core',
        points,
      });
    }
  }
  const { machine } = results;
  return logLogChart(series, {
    title: 'register + resolve: cost against registry size',
    subtitle: `${machine.cpu}, ${machine.cores} cores, Node ${machine.node}, ${machine.date.slice(0, 10)}${results.quick ? ' (quick run)' : ''}`,
    xLabel: 'groups registered (namespaces = groups / 100, 1 to 1,000), log scale',
    yLabel: 'milliseconds per register + resolve, log scale',
    formatX: (x) => (x >= 1000 ? `${x / 1000}k` : String(x)),
    formatY: (y) => (y >= 1000 ? `${y / 1000} s` : y >= 1 ? `${y} ms` : `${Math.round(y * 1e6) / 1000} µs`),
  });
}

export function renderMarkdown(results: Results, svgPath: string): string {
  const { machine } = results;
  const res = resolution(results, 'mono');
  const missed = new Set(results.targets.filter((t) => t.verdict === 'missed').map((t) => t.id));
  const out: string[] = [];
  out.push('## Performance');
  out.push('');
  out.push(
    'What a disabled site costs, next to what you would use instead, measured by `npm run bench` (mitata, ' +
      'every configuration in its own `node` process, results in [`bench/results/latest.json`](bench/results/latest.json)).',
  );
  out.push('');
  out.push('```');
  out.push('npm run bench                 # full run, 3 rounds (6 to 9 minutes here): bench/results/latest.json, scale.svg, latest.md, profile.md');
  out.push('npm run bench -- --quick      # one short round in under 2 minutes: bench/results/quick.tmp.*');
  out.push('npm run bench -- --readme     # also rewrite this section from the results');
  out.push("npm run bench -- --only 'micro:ours/managed'   # a subset (regular expression over configuration ids)");
  out.push('```');
  out.push('');
  out.push(
    `Machine: ${machine.cpu}, ${machine.cores} cores, ${machine.memoryGiB} GiB, ${machine.os}; Node ${machine.node} (V8 ${machine.v8}); ` +
      `${machine.date.slice(0, 16).replace('T', ' ')} UTC; load average ${machine.loadAverage.start}→${machine.loadAverage.end ?? '?'} ` +
      `(a shared, noisy machine); commit ${machine.commit}${machine.srcDirty ? ' with uncommitted src/ changes' : machine.srcDirty === null ? ' (src/ state unknown)' : ''}` +
      `${results.quick ? '; **quick run**' : `; ${results.settings['rounds']} rounds`}; took ${Math.round(results.durationS)} s.`,
  );
  out.push('');
  out.push(METHOD.replace('{resolution}', res.toFixed(2)));
  out.push('');
  out.push('### Targets');
  out.push('');
  out.push(targetsTable(results));
  out.push('');
  const notes = EXPLANATIONS.filter((note) => (note.when?.(results) ?? false) || note.targets.some((id) => missed.has(id)));
  if (notes.length > 0) {
    out.push('### Why the misses, what would close them, and other findings');
    out.push('');
    for (const note of notes) {
      out.push(fillFacts(note.text.trim(), results));
      out.push('');
    }
  }
  for (const mode of ['mono', 'mega', 'realistic', 'noinline'] as const) {
    if (!results.micro.some((e) => e.mode === mode)) continue;
    out.push(`### ${MODE_TITLES[mode]}`);
    out.push('');
    out.push(microTable(results, mode));
    out.push('');
  }
  if (results.micro.some((e) => e.module === 'proposals')) {
    out.push('### Candidate changes (measured, not shipped)');
    out.push('');
    out.push(PROPOSALS_INTRO);
    out.push('');
    out.push(proposalsTable(results));
    out.push('');
  }
  if (results.enabled.length > 0) {
    out.push('### Enabled spans');
    out.push('');
    out.push(enabledTable(results));
    out.push('');
  }
  if (results.scale.length > 0) {
    out.push('### Register + resolve against registry size');
    out.push('');
    out.push(`![register + resolve cost against registry size, both backends](${svgPath})`);
    out.push('');
    out.push(scaleTable(results));
    out.push('');
    out.push(
      'Fastest of at least 11 samples per configuration (interference on a shared machine only adds time; the medians are in the JSON). ' +
        '"API": `SpanRegistry.register` for every namespace, then `setSpanGroupSpec(\'default,per_step\')`, into the realm state after `clear()` ' +
        '(interned names are kept). "core": the same on a fresh `CoreState` (`JsState`, or the napi `NativeState` from `loadNative()`) with `writeEnabled` into a bitset.',
    );
    out.push('');
  }
  if (results.startup.length > 0) {
    out.push('### Start-up');
    out.push('');
    out.push(startupTable(results));
    out.push('');
  }
  if (results.memory.length > 0) {
    out.push('### Memory');
    out.push('');
    out.push(memoryTable(results));
    out.push('');
    out.push(
      'Bytes allocated in a loop of calls (v8.GCProfiler: bytes freed by every GC during the loop, plus the change in used heap), after 10^6 warm-up calls. ' +
        'A call that allocates allocates at least one small object, 8 B or more (the control row: 32 B); the hundredths of a byte left on the other rows are a fixed ' +
        '~0.2 MB per loop that does not grow with the number of calls (compiler and runtime bookkeeping), hence the target\'s threshold of 0.1 B/call with no GC.',
    );
    out.push('');
  }
  if (results.failures.length > 0) {
    out.push(`**${results.failures.length} configuration(s) failed**: ${results.failures.map((f) => f.id).join(', ')}.`);
    out.push('');
  }
  return `${out.join('\n').trimEnd()}\n`;
}

/** The same content for a terminal: Markdown tables read fine there too. */
export function renderTerminal(results: Results): string {
  return renderMarkdown(results, 'bench/results/scale.svg');
}

const START = '<!-- performance:start -->';
const END = '<!-- performance:end -->';

export function spliceReadme(readme: string, section: string): string {
  const start = readme.indexOf(START);
  const end = readme.indexOf(END);
  if (start === -1 || end === -1 || end < start) throw new Error(`README.md has no ${START} … ${END} block`);
  return `${readme.slice(0, start + START.length)}\n${section}${readme.slice(end)}`;
}

/**
 * The evidence behind the explanations of missed targets, written to bench/results/profile.md
 * (run by a full `npm run bench`, or alone with `npx tsx bench/profile.ts`):
 *   1. IC states of the `table[group]` load in managedSpan with one name and with nine
 *      (node --log-ic): the keyed load goes megamorphic on the second distinct key;
 *   2. where the time of a megamorphic string site goes (perf, when installed): the
 *      KeyedLoadIC_Megamorphic builtin;
 *   3. whether the package's CommonJS exports object is in dictionary mode
 *      (--allow-natives-syntax %HasFastProperties), which makes `nemo.managedSpan` slow;
 *   4. what `require('nemo-lens')` spends its time on, per package (self time of each load);
 *   5. how register + resolve splits across the CoreState calls for both backends, and what
 *      the native core spends its time on (perf);
 *   6. where enabled managedSpan and a raw startActiveSpan spend their time (--cpu-prof).
 * Each probe is a small plain-JS program against dist/, run in its own process.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

import { ROOT, distDir } from './lib/package';

const RESULTS = path.join(ROOT, 'bench', 'results');
const scratch = mkdtempSync(path.join(os.tmpdir(), 'nemo-lens-profile-'));

function script(name: string, source: string): string {
  const file = path.join(scratch, name);
  writeFileSync(file, source);
  return file;
}

function node(args: readonly string[], env: NodeJS.ProcessEnv = {}): string {
  const child = spawnSync(process.execPath, args, {
    cwd: scratch,
    env: { ...process.env, NODE_PATH: path.join(ROOT, 'node_modules'), ...env },
    encoding: 'utf8',
    maxBuffer: 64 * 1024 * 1024,
  });
  if (child.status !== 0) throw new Error(`node ${args.join(' ')} failed:\n${child.stderr}`);
  return child.stdout;
}

function hasPerf(): boolean {
  return spawnSync('perf', ['--version'], { encoding: 'utf8' }).status === 0;
}

/** perf record a node program; the top `count` symbols by self time. */
function perfTop(args: readonly string[], count: number, env: NodeJS.ProcessEnv = {}): string[] {
  const data = path.join(scratch, `perf-${Math.random().toString(36).slice(2)}.data`);
  const recorded = spawnSync('perf', ['record', '-q', '-o', data, process.execPath, '--perf-basic-prof', ...args], {
    cwd: scratch,
    env: { ...process.env, NODE_PATH: path.join(ROOT, 'node_modules'), ...env },
    encoding: 'utf8',
  });
  if (recorded.status !== 0) return [`(perf record failed: ${recorded.stderr.trim().split('\n').pop()})`];
  const report = spawnSync('perf', ['report', '-i', data, '--no-children', '--sort', 'dso,symbol', '--stdio'], { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
  return report.stdout
    .split('\n')
    .filter((line) => /^\s+\d+\.\d+%/.test(line))
    .slice(0, count)
    .map((line) => line.replace(/\s+/g, ' ').trim().slice(0, 140));
}

const GATE_SCRIPT = `
const nemo = require(${JSON.stringify(path.join(distDir(), 'index.js'))});
const { SpanRegistry, setSpanGroupSpec, managedSpan } = nemo;
const others = ['layer', 'rollout', 'forward', 'backward', 'optimizer', 'dataloader', 'eval', 'checkpoint'];
SpanRegistry.register('bench', ['step', ...others, 'spare']);
setSpanGroupSpec('step');
setSpanGroupSpec('spare');
let c = 0;
const work = (x) => (c = (c + (x ? 2 : 1)) | 0);
if (process.argv[2] === 'mega') for (let i = 0; i < 20000; i++) managedSpan(others[i & 7], 'x', work);
const calls = Number(process.argv[3] || 1e6);
let s = 0;
for (let i = 0; i < calls; i++) s += managedSpan('step', 'x', work);
if (s === 42) console.log(s);
`;

function icSection(): string[] {
  const gate = script('gate.js', GATE_SCRIPT);
  const span = readFileSync(path.join(distDir(), 'span.js'), 'utf8').split('\n');
  const start = span.findIndex((line) => /^function managedSpan\(/.test(line));
  const lineIndex = span.findIndex((line, i) => i > start && line.includes('table[group]'));
  const line = lineIndex + 1;
  const out = ['## 1. IC states of `table[group]` in managedSpan (`node --log-ic`)', ''];
  out.push(`dist/span.js line ${line}: \`${span[lineIndex]!.trim()}\``, '');
  for (const mode of ['mono', 'mega']) {
    const log = path.join(scratch, `ic-${mode}.log`);
    node(['--log-ic', `--logfile=${log}`, '--no-logfile-per-isolate', gate, mode, '100000']);
    const lines = readFileSync(log, 'utf8')
      .split('\n')
      .filter((l) => l.startsWith('KeyedLoadIC,') && l.split(',')[3] === String(line));
    out.push(`${mode === 'mono' ? 'Only `step` through managedSpan' : 'Eight other names first, then `step`'} (fields: IC, line, column, old → new state, key):`, '');
    out.push('```');
    for (const l of lines.slice(0, 12)) {
      const f = l.split(',');
      out.push(`${f[0]} ${f[3]}:${f[4]}  ${f[5]} → ${f[6]}  key=${f[8]}`);
    }
    out.push('```', '');
  }
  out.push(
    'States: 0 uninitialised, 1 monomorphic, N megamorphic. One receiver map throughout: the load goes megamorphic on the ' +
      'second distinct *key*, and V8 keeps it there for the life of the process (every managedSpan caller, inlined or not, ' +
      'reads this feedback).',
    '',
  );
  return out;
}

function perfGateSection(): string[] {
  const out = ['## 2. Where a megamorphic string site spends its time (`perf record`, 3·10^7 disabled calls)', ''];
  if (!hasPerf()) return [...out, 'perf is not installed here; skipped.', ''];
  const gate = script('gate-perf.js', GATE_SCRIPT);
  for (const mode of ['mono', 'mega']) {
    out.push(`${mode}:`, '', '```', ...perfTop([gate, mode, '30000000'], 6), '```', '');
  }
  return out;
}

function exportsSection(): string[] {
  const probe = script(
    'exports.js',
    `const nemo = require(${JSON.stringify(path.join(distDir(), 'index.js'))});
const span = require(${JSON.stringify(path.join(distDir(), 'span.js'))});
console.log(JSON.stringify({ index: %HasFastProperties(nemo), span: %HasFastProperties(span),
  getter: String(Object.getOwnPropertyDescriptor(nemo, 'managedSpan').get) }));`,
  );
  const result = JSON.parse(node(['--allow-natives-syntax', probe])) as { index: boolean; span: boolean; getter: string };
  const preamble = readFileSync(path.join(distDir(), 'index.js'), 'utf8')
    .split('\n')
    .find((l) => /^exports\.\w+ = exports\./.test(l));
  return [
    '## 3. The CommonJS exports object of `dist/index.js` (`--allow-natives-syntax`)',
    '',
    `- \`%HasFastProperties(require('nemo-lens'))\`: **${result.index}**; \`dist/span.js\` exports: ${result.span}`,
    `- each export is an accessor: \`${result.getter}\``,
    `- tsc first writes every name as a data property (\`${(preamble ?? '').slice(0, 90)}… = void 0\`), then redefines each as an accessor; redefining data properties as accessors turns the object into a dictionary, and V8 does not inline an accessor found in a dictionary, so \`nemo.managedSpan(…)\` (how tsc-compiled CommonJS code calls it) pays a getter call on every call.`,
    '',
  ];
}

function importSection(): string[] {
  const probe = script(
    'imports.js',
    `const Module = require('module');
const original = Module._load;
const stack = [];
const self = new Map();
Module._load = function (request, parent) {
  const t0 = process.hrtime.bigint();
  stack.push(0n);
  try { return original.apply(this, arguments); } finally {
    const elapsed = process.hrtime.bigint() - t0;
    const children = stack.pop();
    if (stack.length) stack[stack.length - 1] += elapsed;
    let key = 'node:' + request;
    try {
      const file = Module._resolveFilename(request, parent);
      const m = file.match(/node_modules\\/((?:@[^/]+\\/)?[^/]+)/);
      key = m ? m[1] : file.includes('/dist/') ? 'nemo-lens dist/' + file.split('/dist/')[1] : file.includes('/native/') ? 'native binding (' + file.split('/native/')[1] + ')' : file;
    } catch {}
    self.set(key, (self.get(key) || 0n) + elapsed - children);
  }
};
const t0 = process.hrtime.bigint();
require(process.argv[2]);
const total = process.hrtime.bigint() - t0;
console.log(JSON.stringify({ total: Number(total) / 1e6, self: Object.fromEntries([...self].map(([k, v]) => [k, Number(v) / 1e6])) }));`,
  );
  const runs = 7;
  const totals: number[] = [];
  const perPackage = new Map<string, number[]>();
  for (let i = 0; i < runs; i++) {
    const r = JSON.parse(node([probe, path.join(distDir(), 'index.js')])) as { total: number; self: Record<string, number> };
    totals.push(r.total);
    for (const [k, v] of Object.entries(r.self)) perPackage.set(k, [...(perPackage.get(k) ?? []), v]);
  }
  const med = (values: number[]): number => [...values].sort((a, b) => a - b)[values.length >> 1]!;
  const all = [...perPackage].map(([k, v]) => [k, med(v)] as const).sort((a, b) => b[1] - a[1]);
  const sum = (filter: (key: string) => boolean): number => all.filter(([k]) => filter(k)).reduce((t, [, v]) => t + v, 0);
  const own = all.filter(([k]) => k.startsWith('nemo-lens dist/'));
  const others = all.filter(([k]) => !k.startsWith('nemo-lens dist/') && !k.startsWith('node:') && v(k) >= 0.05);
  function v(key: string): number {
    return all.find(([k]) => k === key)?.[1] ?? 0;
  }
  const sdk = others.filter(([k]) => k.startsWith('@opentelemetry/') && k !== '@opentelemetry/api');
  return [
    `## 4. What \`require('nemo-lens')\` loads (self time per module, median of ${runs} processes; total ${med(totals).toFixed(1)} ms)`,
    '',
    '| package or file | ms |',
    '| --- | ---: |',
    ...others.map(([k, value]) => `| ${k} | ${value.toFixed(1)} |`),
    `| nemo-lens's own ${own.length} modules in dist/, together | ${sum((k) => k.startsWith('nemo-lens dist/')).toFixed(1)} |`,
    ...own.slice(0, 8).map(([k, value]) => `| &nbsp;&nbsp;${k.slice('nemo-lens '.length)} | ${value.toFixed(1)} |`),
    '',
    sdk.length > 0
      ? `The import also loads ${sdk.map(([k]) => `\`${k}\``).join(', ')}: the telemetry stack, which a library that only registers groups and gates sites never needs.`
      : "Only `@opentelemetry/api`, the native binding (napi-rs's generated loader and the `.node` file) and nemo-lens's own modules load; no SDK package. The own modules cost a fraction of a millisecond each; together they, and the native binding, are what the import adds to the API's.",
    '',
  ];
}

function scaleSection(): string[] {
  const probe = script(
    'scale.js',
    `const { JsState } = require(${JSON.stringify(path.join(distDir(), 'backends', 'js', 'state.js'))});
const { loadNative } = require(${JSON.stringify(path.join(distDir(), 'backends', 'native.js'))});
const size = Number(process.argv[2]);
const count = Math.min(1000, Math.max(1, Math.round(size / 100)));
const per = size / count;
const registry = Array.from({ length: count }, (_, i) => {
  const groups = Array.from({ length: per }, (_, j) => 'ns' + i + '_g' + j);
  return { name: 'lib' + i, groups, presets: [['default', [groups[0]]], ['per_step', groups.slice(0, Math.ceil(per / 2))]] };
});
const time = (f) => { const t0 = process.hrtime.bigint(); f(); return Number(process.hrtime.bigint() - t0) / 1e6; };
const native = loadNative();
const out = {};
for (const [name, make] of [['js', () => new JsState()], ['native', native.create]]) {
  const acc = { register: [], setSpec: [], names: [], writeEnabled: [] };
  for (let rep = 0; rep < 7; rep++) {
    globalThis.gc();
    const s = make();
    acc.register.push(time(() => { for (const ns of registry) s.register(ns.name, ns.groups, ns.presets, false); }));
    acc.setSpec.push(time(() => s.setSpec('default,per_step')));
    acc.names.push(time(() => s.names(0)));
    acc.writeEnabled.push(time(() => s.writeEnabled(new Uint32Array((s.nameCount() + 31) >>> 5))));
  }
  out[name] = Object.fromEntries(Object.entries(acc).map(([k, v]) => [k, v.sort((a, b) => a - b)[3]]));
}
console.log(JSON.stringify(out));`,
  );
  const out = ['## 5. Register + resolve on the CoreState, call by call (median of 7, ms; fresh state, GC before each)', ''];
  out.push('| groups | backend | register (all namespaces) | setSpec | names(0) | writeEnabled |', '| ---: | --- | ---: | ---: | ---: | ---: |');
  for (const size of [1_000, 10_000, 100_000]) {
    const r = JSON.parse(node(['--expose-gc', probe, String(size)])) as Record<string, Record<string, number>>;
    for (const backend of ['native', 'js']) {
      const b = r[backend]!;
      out.push(`| ${size.toLocaleString('en-US')} | ${backend} | ${b['register']!.toFixed(2)} | ${b['setSpec']!.toFixed(2)} | ${b['names']!.toFixed(2)} | ${b['writeEnabled']!.toFixed(3)} |`);
    }
  }
  out.push('');
  if (hasPerf()) {
    const heavy = script(
      'scale-perf.js',
      `${readFileSync(probe, 'utf8').split('const native = loadNative();')[0]}
const native = loadNative();
for (let rep = 0; rep < 6; rep++) { const s = native.create(); for (const ns of registry) s.register(ns.name, ns.groups, ns.presets, false); s.setSpec('default,per_step'); s.names(0); }`,
    );
    out.push('Native core at 100k groups, `perf record` (the shipped binary is stripped, so Rust frames show as addresses; libc and V8 frames are named):', '');
    out.push('```', ...perfTop([heavy, '100000'], 14), '```', '');
  }
  return out;
}

function enabledSection(): string[] {
  const probe = script(
    'enabled.js',
    `const otel = require('@opentelemetry/api');
const { AlwaysOnSampler, BatchSpanProcessor, NodeTracerProvider } = require('@opentelemetry/sdk-trace-node');
const exporter = { export(spans, done) { done({ code: 0 }); }, shutdown: async () => {}, forceFlush: async () => {} };
const provider = new NodeTracerProvider({ sampler: new AlwaysOnSampler(), spanProcessors: [new BatchSpanProcessor(exporter)] });
provider.register();
const tracer = otel.trace.getTracer('bench');
const nemo = require(${JSON.stringify(path.join(distDir(), 'index.js'))});
nemo.SpanRegistry.register('bench', ['step']);
nemo.setSpanGroupSpec('step');
const { managedSpan } = nemo;
let c = 0;
const work = (span) => (c = (c + (span ? 2 : 1)) | 0);
const body = (span) => { try { return work(span); } finally { span.end(); } };
const options = { tracer };
const site = process.argv[2] === 'raw' ? () => tracer.startActiveSpan('train_step', body) : () => managedSpan('step', 'train_step', options, work);
(async () => {
  for (let n = 0; n < 1500000; n += 256) {
    for (let i = 0; i < 256; i++) site();
    await new Promise(setImmediate);
  }
})();`,
  );
  const summary = (file: string): string[] => {
    const profile = JSON.parse(readFileSync(file, 'utf8')) as {
      nodes: Array<{ id: number; callFrame: { functionName: string; url: string; lineNumber: number } }>;
      samples: number[];
    };
    const byId = new Map(profile.nodes.map((n) => [n.id, n]));
    const self = new Map<string, number>();
    for (const id of profile.samples) {
      const frame = byId.get(id)!.callFrame;
      const key = `${frame.functionName || '(anonymous)'} ${frame.url.split('/').slice(-2).join('/')}:${frame.lineNumber + 1}`;
      self.set(key, (self.get(key) ?? 0) + 1);
    }
    const total = profile.samples.length;
    return [...self]
      .sort((a, b) => b[1] - a[1])
      .slice(0, 16)
      .map(([key, count]) => `${((100 * count) / total).toFixed(1).padStart(5)}%  ${key}`);
  };
  const out = ['## 6. Enabled spans: where managedSpan and a raw startActiveSpan spend their time (`--cpu-prof`, self time)', ''];
  for (const which of ['raw', 'managed']) {
    const dir = path.join(scratch, `cpu-${which}`);
    node(['--cpu-prof', `--cpu-prof-dir=${dir}`, '--cpu-prof-interval=200', probe, which]);
    const file = readdirSync(dir).find((f) => f.endsWith('.cpuprofile'))!;
    out.push(which === 'raw' ? '`tracer.startActiveSpan(name, fn)`:' : "`managedSpan('step', name, { tracer }, fn)`:", '', '```', ...summary(path.join(dir, file)), '```', '');
  }
  out.push(
    'The SDK work (startSpan, the Span constructor, id generation and hex encoding, timestamps, the context) is the ' +
      'same in both and dominates; managedSpan adds its own frames (startAndRun, runInSpan) and its per-span objects on top, none of them large alone.',
    '',
  );
  return out;
}

function main(): void {
  const sections: string[] = [
    '# Profiles behind the performance report',
    '',
    `Generated by \`bench/profile.ts\` on ${new Date().toISOString().slice(0, 16).replace('T', ' ')} UTC, Node ${process.version}, ${os.cpus()[0]?.model.trim() ?? 'unknown CPU'}.`,
    '',
  ];
  for (const section of [icSection, perfGateSection, exportsSection, importSection, scaleSection, enabledSection]) {
    try {
      sections.push(...section());
    } catch (error) {
      sections.push(`(${section.name} failed: ${error instanceof Error ? error.message : String(error)})`, '');
    }
  }
  const target = path.join(RESULTS, process.argv.includes('--quick') ? 'profile.tmp.md' : 'profile.md');
  writeFileSync(target, `${sections.join('\n').trimEnd()}\n`);
  process.stderr.write(`profile: wrote ${path.relative(ROOT, target)}\n`);
}

try {
  main();
} finally {
  rmSync(scratch, { recursive: true, force: true });
}

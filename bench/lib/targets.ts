/**
 * The targets of issue 5, evaluated from a results file. Gate targets use the overhead over
 * the baseline (Δ = ns/op of the site − ns/op of the bare call, same mode), as the spec's
 * numbers do; a Δ below the resolution of the run is clamped to it, and a ratio computed from
 * a clamped Δ is reported as "≥".
 */
import type { Backend, Mode } from '../cases/types';
import type { Results, TargetResult, TimedEntry } from './results';
import { fmtDelta, fmtRatio, median } from './stats';

function medianAbsoluteDeviation(values: readonly number[]): number {
  const m = median(values);
  return median(values.map((v) => Math.abs(v - m)));
}

const MODES: readonly Mode[] = ['mono', 'mega', 'realistic', 'noinline'];
const BACKENDS: readonly Backend[] = ['native', 'js'];

/**
 * Smallest Δ a run can tell from zero in `mode`: the larger of the A/A difference between two
 * identical baseline processes (modes mono and mega run the same baseline), the median absolute
 * deviation of the mode's reference rows over rounds (robust to one disturbed round), 2% of the
 * mode's baseline, and 0.05 ns.
 */
export function resolution(results: Results, mode: Mode = 'mono'): number {
  const mono = find(results.micro, 'baseline', 'bare', 'mono', null);
  const mega = find(results.micro, 'baseline', 'bare', 'mega', null);
  const base = find(results.micro, 'baseline', 'bare', mode, null);
  const spread = results.micro
    .filter((e) => e.module === 'baseline' && e.mode === mode && e.case !== 'alloc-control')
    .map((e) => medianAbsoluteDeviation(e.rounds))
    .reduce((a, b) => Math.max(a, b), 0);
  const aa = mono && mega ? Math.abs(mono.ns - mega.ns) : 0;
  return Math.max(0.05, aa, spread, base ? 0.02 * base.ns : 0);
}

export function find(entries: readonly TimedEntry[], module: string, name: string, mode: Mode, backend: Backend | null): TimedEntry | undefined {
  return entries.find((e) => e.module === module && e.case === name && e.mode === mode && e.backend === backend);
}

export function baselineNs(results: Results, mode: Mode): number | undefined {
  return find(results.micro, 'baseline', 'bare', mode, null)?.ns;
}

export function delta(results: Results, entry: TimedEntry): number | undefined {
  const base = baselineNs(results, entry.mode);
  return base === undefined ? undefined : entry.ns - base;
}

/** A peer's entry in `mode`, falling back to mode mono for peers measured only there. */
export function peer(results: Results, name: string, mode: Mode): TimedEntry | undefined {
  return find(results.micro, 'peers', name, mode, null) ?? find(results.micro, 'peers', name, 'mono', null);
}

function notMeasured(id: string, scope: string, target: string, mode?: Mode, backend?: Backend): TargetResult {
  return { id, scope, target, measured: '–', verdict: 'not measured', mode, backend };
}

function overheadRatio(results: Results, ours: TimedEntry, other: TimedEntry | undefined): { ratio: number; clamped: boolean } | undefined {
  if (other === undefined) return undefined;
  const res = resolution(results, ours.mode);
  const oursDelta = delta(results, ours);
  const otherBase = baselineNs(results, other.mode);
  if (oursDelta === undefined || otherBase === undefined) return undefined;
  const clamped = oursDelta < res;
  return { ratio: (other.ns - otherBase) / Math.max(oursDelta, res), clamped };
}

export function evaluateTargets(results: Results): TargetResult[] {
  const out: TargetResult[] = [];

  for (const mode of MODES) {
    const res = resolution(results, mode);
    for (const backend of BACKENDS) {
      const scope = `${backend}, ${mode}`;
      const managed = find(results.micro, 'ours', 'managed-string', mode, backend);
      const handle = find(results.micro, 'ours', 'handle', mode, backend);
      const field = find(results.micro, 'baseline', 'field', mode, null);

      const t1 = "disabled managedSpan('step') ≤ +0.5 ns over baseline";
      if (managed === undefined) out.push(notMeasured('managed-overhead', scope, t1, mode, backend));
      else {
        const d = delta(results, managed)!;
        out.push({ id: 'managed-overhead', scope, target: t1, measured: `${fmtDelta(d)} ns`, verdict: d <= 0.5 ? 'met' : 'missed', mode, backend, short: `${fmtDelta(d)} ns` });
      }

      const ratioTargets: Array<[string, string, number]> = [
        ['set-wrapper', 'naive Set.has wrapper', 7],
        ['debug', 'disabled debug logger', 10],
        ['otel-api', 'OTel API without SDK', 100],
        ['otel-sdk-off', 'SDK with AlwaysOff', 1000],
      ];
      for (const [name, label, goal] of ratioTargets) {
        const target = `≥ ${goal}× cheaper than ${label}`;
        const other = peer(results, name, mode);
        const r = managed === undefined ? undefined : overheadRatio(results, managed, other);
        if (r === undefined || other === undefined || managed === undefined) {
          out.push(notMeasured(`vs-${name}`, scope, target, mode, backend));
          continue;
        }
        const otherDelta = other.ns - baselineNs(results, other.mode)!;
        out.push({
          id: `vs-${name}`,
          scope,
          target,
          measured: `${r.clamped ? '≥ ' : ''}${fmtRatio(r.ratio)} (Δ ${fmtDelta(otherDelta)} vs ${fmtDelta(delta(results, managed)!)} ns)`,
          verdict: r.ratio >= goal ? 'met' : 'missed',
          note: other.mode !== mode ? `peer measured in mode ${other.mode}` : undefined,
          mode,
          backend,
          short: `${r.clamped ? '≥ ' : ''}${fmtRatio(r.ratio)}`,
        });
      }

      // Issue 14: in a realistic program strings must not lose to the naive wrapper, and
      // handles and traceFn wrappers must stay within 0.3 ns of a bare call.
      const naive = peer(results, 'set-wrapper', mode);
      const tNaive = "disabled managedSpan('step') no slower than the naive Set.has wrapper";
      if (managed === undefined || naive === undefined) out.push(notMeasured('managed-vs-naive', scope, tNaive, mode, backend));
      else {
        const d = delta(results, managed)!;
        const n = naive.ns - baselineNs(results, naive.mode)!;
        out.push({ id: 'managed-vs-naive', scope, target: tNaive, measured: `${fmtDelta(d)} vs ${fmtDelta(n)} ns`, verdict: d <= n ? 'met' : 'missed', mode, backend, short: `${fmtDelta(d)} vs ${fmtDelta(n)} ns` });
      }
      for (const [name, label] of [
        ['managed-handle', 'managedSpan(STEP, …)'],
        ['tracefn', "traceFn('step', …) wrapper"],
      ] as const) {
        const entry = find(results.micro, 'ours', name, mode, backend);
        const target = `disabled ${label} ≤ +0.3 ns over baseline`;
        if (entry === undefined) out.push(notMeasured(`${name}-overhead`, scope, target, mode, backend));
        else {
          const d = delta(results, entry)!;
          out.push({ id: `${name}-overhead`, scope, target, measured: `${fmtDelta(d)} ns`, verdict: d <= Math.max(0.3, res) ? 'met' : 'missed', mode, backend, short: `${fmtDelta(d)} ns` });
        }
      }

      const t3 = 'gate handle indistinguishable from a boolean field (no slower, within resolution)';
      if (handle === undefined || field === undefined) out.push(notMeasured('handle-vs-field', scope, t3, mode, backend));
      else {
        // Overheads over the bare call, clamped at zero: a gate cannot cost less than nothing,
        // and a row below the baseline (code layout, mostly with inlining off) is noise.
        const diff = Math.max(0, delta(results, handle)!) - Math.max(0, delta(results, field)!);
        out.push({
          id: 'handle-vs-field',
          scope,
          target: t3,
          measured: `${fmtDelta(diff)} ns (resolution ${res.toFixed(2)} ns)`,
          verdict: diff <= res ? 'met' : 'missed',
          mode,
          backend,
          short: `${fmtDelta(diff)} ns`,
        });
      }
    }
  }

  const raw = results.enabled.find((e) => e.case === 'raw');
  for (const backend of BACKENDS) {
    for (const [name, how] of [
      ['managed-tracer', 'tracer option'],
      ['managed-global', 'global tracer'],
    ] as const) {
      const scope = `${backend}, ${how}`;
      const target = 'enabled managedSpan ≤ 1.05× raw startActiveSpan';
      const ours = results.enabled.find((e) => e.case === name && e.backend === backend);
      if (ours === undefined || raw === undefined) {
        out.push(notMeasured('enabled', scope, target));
        continue;
      }
      const ratio = ours.ns / raw.ns;
      out.push({
        id: 'enabled',
        scope,
        target,
        measured: `${fmtRatio(ratio)} (${ours.ns.toFixed(0)} vs ${raw.ns.toFixed(0)} ns)`,
        verdict: ratio <= 1.05 ? 'met' : 'missed',
      });
    }
  }

  for (const layer of ['api', 'core'] as const) {
    const at = (size: number, backend: Backend) => results.scale.find((e) => e.layer === layer && e.size === size && e.backend === backend);
    const scope = layer === 'api' ? 'public API' : 'CoreState';
    const big = [at(10_000, 'native'), at(10_000, 'js')] as const;
    const t10k = 'native register+resolve ≥ 2× faster than the twin at 10k groups';
    if (big[0] === undefined || big[1] === undefined) out.push(notMeasured('scale-10k', scope, t10k));
    else {
      const speedup = big[1].ms / big[0].ms;
      out.push({
        id: 'scale-10k',
        scope,
        target: t10k,
        measured: `${fmtRatio(speedup)} (${big[0].ms.toFixed(2)} vs ${big[1].ms.toFixed(2)} ms)`,
        verdict: speedup >= 2 ? 'met' : 'missed',
      });
    }
    const small = [at(10, 'native'), at(10, 'js')] as const;
    const t10 = 'native not slower than the twin at 10 groups';
    if (small[0] === undefined || small[1] === undefined) out.push(notMeasured('scale-10', scope, t10));
    else {
      const speedup = small[1].ms / small[0].ms;
      out.push({
        id: 'scale-10',
        scope,
        target: t10,
        measured: `${fmtRatio(speedup)} (${(small[0].ms * 1000).toFixed(1)} vs ${(small[1].ms * 1000).toFixed(1)} µs)`,
        verdict: speedup >= 1 ? 'met' : 'missed',
      });
    }
  }

  const api = results.startup.find((e) => e.name === 'otel-api');
  for (const name of ['nemo-lens', 'nemo-lens-js']) {
    const ours = results.startup.find((e) => e.name === name);
    const target = 'import ≤ 1.5× importing @opentelemetry/api';
    const scope = name === 'nemo-lens' ? 'native core' : 'js twin';
    if (ours === undefined || api === undefined) {
      out.push(notMeasured('import', scope, target));
      continue;
    }
    const ratio = ours.importMs / api.importMs;
    out.push({
      id: 'import',
      scope,
      target,
      measured: `${fmtRatio(ratio)} (${ours.importMs.toFixed(1)} vs ${api.importMs.toFixed(1)} ms)`,
      verdict: ratio <= 1.5 ? 'met' : 'missed',
    });
  }

  for (const entry of results.memory.filter((e) => e.module === 'ours')) {
    // A call that allocates allocates at least 8 bytes (one small object), so 8 B/call. What
    // remains below 0.1 B/call is a fixed amount per loop (~0.2 MB of compiler and runtime
    // bookkeeping: it does not grow with the number of calls), not an allocation per call.
    const zero = entry.bytesPerCall < 0.1;
    out.push({
      id: 'memory',
      scope: `${entry.case}, ${entry.backend}`,
      target: '0 bytes allocated per disabled call',
      measured: `${entry.bytesPerCall.toFixed(4)} B/call, ${entry.gcs} GCs over ${entry.calls.toExponential(0)} calls (least of 3 loops)`,
      verdict: zero ? 'met' : 'missed',
    });
  }
  return out;
}

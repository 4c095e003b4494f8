/**
 * The prose of the README section that numbers cannot carry: how the figures were taken, and
 * for each target a run can miss, why it misses (with the evidence in bench/results/profile.md)
 * and what would close it. A note appears when one of its targets missed in that run, or
 * when the run shows a finding outside the targets.
 */
import type { Results } from './results';
import { delta, find } from './targets';

export const METHOD = `How to read the tables: every row runs in a fresh \`node\` process (so no OpenTelemetry
global and no JIT feedback leaks between rows) against the compiled package in \`dist/\`, with
the public functions bound to local consts as \`const { managedSpan } = require('nemo-lens')\`
does (the harness compiles \`src/\` into a private snapshot with a copy of \`native/\` first, so
builds elsewhere during a run cannot change the code under test). Each row is the median over rounds of mitata's median batch time; small figures in
brackets are the range over rounds. **Δ** is the overhead over the baseline of the same mode (a
bare call of the same work function); **× baseline** divides by it; **vs X** is X's ns/op divided
by the row's (how many times cheaper the row is, both including the same work). The targets use
Δ; a Δ below the resolution of the run ({resolution} ns in mode mono: the larger of the difference
between two identical baseline processes, the median absolute deviation of the reference rows
over rounds, 2% of the baseline and 0.05 ns) is clamped to it, and the ratio is then a lower bound (≥). Profiles and other
evidence: [\`bench/results/profile.md\`](bench/results/profile.md).`;

export const PROPOSALS_INTRO = `Each row is a stand-alone copy of one way to answer a gate, run like the
rows above (own process; in mode mega the function first saw eight other names). The string
gates all answer false for \`constructor\`, \`__proto__\`, \`toString\`, \`undefined\` and \`null\` (checked
after measuring). Source: [\`bench/cases/proposals.ts\`](bench/cases/proposals.ts).`;

export interface Explanation {
  /** Target ids (lib/targets.ts) this note explains; shown when one of them missed. */
  readonly targets: readonly string[];
  /** Also shown when this holds for the run (a finding outside the targets). */
  readonly when?: (results: Results) => boolean;
  readonly text: string;
}

/** Overhead of an \`ours\` row over the baseline of its mode, in ns (NaN when not measured). */
function oursDelta(results: Results, name: string, mode: 'mono' | 'mega' | 'realistic', backend: 'native' | 'js'): number {
  const entry = find(results.micro, 'ours', name, mode, backend);
  return entry === undefined ? NaN : (delta(results, entry) ?? NaN);
}

export const EXPLANATIONS: readonly Explanation[] = [
  {
    targets: ['managed-overhead', 'vs-set-wrapper', 'vs-debug', 'vs-otel-api', 'vs-otel-sdk-off'],
    text: `**String groups once many names reach the library (modes mega and realistic).** A keyed
load \`table[group]\` inside \`managedSpan\` has one feedback slot for the whole process: the second
distinct name makes it megamorphic, and every caller then pays a generic lookup, about what
\`Set.has\` costs (profile §1–§2). Since issue 14 a string gate reads the table only when more than
four groups are enabled: it first tests a bit per enabled name *length* (two loads and a mask, so
most disabled names stop there), then compares the name with the few enabled names, which V8
compiles to pointer comparisons while both sides are internalized strings (literals at call
sites are; gate.ts internalizes the core's names). Measured here: {megaDelta} in mode mega and
{realisticString} in mode realistic, against {realisticNaive} for the naive wrapper there. What is
left is the price of a name that passes the length filter (same length as an enabled group: a
call and up to four comparisons) and of V8 declining to inline \`managedSpan\` into a site whose
caller has used up its inlining budget. **The cheapest gate is still a handle**
(\`const G = SpanRegistry.register(…)\`, then \`managedSpan(G.step, …)\` or \`if (G.step.enabled)\`):
one field of one hidden class, {realisticHandle} in mode realistic.`,
  },
  {
    targets: ['managed-handle-overhead', 'tracefn-overhead', 'managed-vs-naive'],
    text: `**Mode realistic: what some enabled groups do to the disabled path.** Once a group is
enabled somewhere, TurboFan compiles the enabled path of \`managedSpan\` and of \`traceFn\` wrappers
too; inlined, it (about 900 bytes of bytecode with the OpenTelemetry calls) makes the gate's
optimized code too large to be inlined into call sites, and every disabled call pays a call
frame. Before issue 14: \`managedSpan('step', …)\` +10 ns, \`managedSpan(STEP, …)\` +4 ns, a traceFn
wrapper +13 ns. The enabled paths are now called through a target TurboFan cannot know
(src/out-of-line.ts): {realisticString}, {realisticHandle} and {realisticTracefn} in this run. The
traceFn wrapper keeps ~3 ns: with its enabled path reachable, forwarding \`arguments\` on the
disabled path no longer compiles to a plain inlined call (measured: +1.1 ns when the enabled path
takes no arguments, +0.06 ns when it never ran). Closing it needs a wrapper whose enabled path
gets its arguments without \`arguments\` (a fixed arity per wrapper, or a rest parameter that V8
elides); not done. Sites that cannot afford it test a handle: \`if (G.step.enabled)\`.`,
  },
  {
    targets: ['managed-overhead', 'vs-set-wrapper', 'vs-debug', 'vs-otel-api', 'vs-otel-sdk-off', 'handle-vs-field'],
    text: `**Inlining off (mode noinline).** With \`--no-turbo-inlining\` every call is a real call (the
baseline itself goes from {monoBase} ns to {noinlineBase} ns). \`managedSpan\` puts one call frame between the site and
the work, so its Δ is the price of one call, {noinlineDelta}, the same frame the naive wrapper adds
({setWrapperNoinline} with its \`Set.has\`); ratios of overheads cannot reach 7× or 10× when the denominator is a call
frame, and the debug/OTel ratios shrink for the same reason. Nothing in a wrapper API can remove
that frame. Sites that cannot afford a call test the handle directly: \`if (STEP.enabled)\` costs
the same as a boolean field with or without inlining (row "handle STEP.enabled").`,
  },
  {
    targets: [],
    when: (results) => oursDelta(results, 'tracefn', 'mega', 'native') > 1,
    text: `**A \`traceFn('step', …)\` wrapper pays the megamorphic table read on every call, though its
group is fixed when the wrapper is made.** All wrappers share one closure literal, hence one feedback
vector, so with two string groups anywhere in the process the \`table[group]\` read in every wrapper
is megamorphic (row "traceFn('step', …) wrapper" in mode mega, {tracefnMega}; with a handle, {tracefnHandleMega}).
**What closes it** (row "wrapper: handle resolved at wrap time" in "Candidate changes", {proposedMega}
in mode mega, 0 B/call): resolve a string group to its gate handle once, in \`decorate\`
(\`const gate = typeof group === 'string' ? spanGroup(group) : group\`), and test
\`gate == null || gate.enabled !== true\` per call. Same semantics: exact, case-sensitive, kept
current by every resolution, odd values disabled. (The wrapper no longer allocates per call:
0 B/call in the memory table; an earlier version allocated 56 B/call.)`,
  },
  {
    targets: ['enabled'],
    text: `**Enabled \`managedSpan\` costs more than a hand-written \`startActiveSpan\`** ({enabledRatio} with the
\`tracer\` option, {enabledGlobalRatio} through the global tracer). Both do the same SDK work (ids, a
span, an AsyncLocalStorage context switch, the batch processor), which dominates both profiles
(profile §6). On top of it \`managedSpan\` adds the \`nemo.span_group\` attribute (alone:
{rawAttributeRatio}, row "startActiveSpan(name, { attributes }, fn)"), its own frames
(\`startAndRun\`, \`runInSpan\`, the thenable check, two try/catch), fresh options and attributes
objects per span, and a second \`context.active()\`; with no \`tracer\` option and no
\`setupTelemetry\`, a \`trace.getTracer()\` lookup per span too. The candidate rows are copies of the
enabled path: as today {copyRatio}, with the context read once {oneActiveRatio}, and also with one
frozen options object per group {leanRatio}. Between rounds the raw row itself moves by
±{rawSpread}, and the copies differ from each other by about as much, so none of these changes is a
demonstrated fix on this machine, and no single cost explains the gap. **What would close it:**
fewer frames and objects per span (inline \`runInSpan\` into \`startAndRun\`, read the context once,
build the per-group options once, cache the default tracer per provider), measured with an
in-process A/B that alternates both paths many times (process-to-process noise here is as large as
the target's 5%); and, since the group attribute is part of the product, state the target
against "raw with the same attribute".`,
  },
  {
    targets: ['scale-10k', 'scale-10'],
    text: `**The native core registers and resolves no faster than the TypeScript twin.** (Rows "core" start
from a fresh CoreState each time, so every name is interned again; rows "API" re-register into the
realm's state after \`clear()\`, which keeps interned names, so they can be cheaper than "core". At 10
groups the native core loses on the fixed cost of each napi call, which converts its arguments and
builds an \`Outcome\` object.) Profile §5 splits
the work per CoreState call: \`register\` and \`setSpec\` cost about the same in both backends at 10k
groups and the native ones are slower at 100k; \`names(0)\` (handing every interned name back to JS,
one napi string each) costs tens of times what the twin's does. The native samples are dominated by
the allocator (\`malloc\`, \`malloc_consolidate\`, \`_int_free\`, \`unlink_chunk\`: about 30%) and page
faults on fresh memory, then string compares and hashing. The Rust core clones each name into
several owned \`String\`s (owner map key, registration list, a per-group owner set holding a clone of
the namespace, the intern table's key and vector) and hashes them with SipHash, and every name
crosses napi as its own UTF-8 copy in and out; the twin shares one JS string by reference
everywhere and allocates with a bump pointer. **What would close it:** intern every name once to a
\`u32\` at the boundary and keep only ids inside the core (owners as small vectors of namespace ids,
registrations as id lists), use a fast non-cryptographic hasher (FxHash or ahash), cache the merged
presets between resolutions instead of rebuilding them on every \`resolve\`, and pass names across
napi as one joined string per call (split on a separator on the other side) instead of one napi
value per name.`,
  },
  {
    targets: ['import'],
    text: `**Importing the package costs {importRatio} importing \`@opentelemetry/api\`** ({importMs} against {apiMs} ms;
{importJsRatio} with the twin forced). The SDK and exporters load on first \`setupTelemetry\` since
b74eaff, so profile §4 shows only \`@opentelemetry/api\`, the native binding (napi-rs's generated
loader and the \`.node\` file, a few ms: the difference between the native and twin rows) and
nemo-lens's own modules, about twenty files at a fraction of a millisecond each. The import sits at
the 1.5× line, so run-to-run noise decides the verdict. **What would close it with margin:** load
the TypeScript twin only when the native core does not load (\`select.ts\` requires it
unconditionally), keep the telemetry modules that remain on the import path (\`config\`,
\`setup\`, \`propagation\`, \`exporters\`) behind the functions that need them, and ship \`dist/\` as
one bundled file instead of ~20 modules.`,
  },
  {
    targets: [],
    when: (results) => oursDelta(results, 'managed-module', 'mono', 'native') > 1,
    text: `**\`nemo.managedSpan(…)\` through the module object costs ~8 ns a call** (row "via the module
object"; profile §3). tsc's CommonJS output first sets every export to \`void 0\` and then redefines
each re-export as an accessor; redefining data properties as accessors turns \`exports\` into a
dictionary-mode object, and V8 does not inline an accessor found in a dictionary, so each
\`nemo.managedSpan\` read is a real getter call. TypeScript code compiled to CommonJS calls imports
exactly this way (\`(0, nemo_lens_1.managedSpan)(…)\`); \`const { managedSpan } = require(…)\` and
native ESM named imports do not. **What would close it:** make the object fast again at the end of
\`src/index.ts\`: V8 re-optimises an object for fast access once it is some object's prototype, and
\`void Object.create(exports)\` there took the same access from 8.1 ns to 0.35 ns in a stand-alone
copy of the pattern; or export plain values (\`export const managedSpan = span.managedSpan\` compiles
to a data property, which stays fast); or ship an ESM build.`,
  },
];

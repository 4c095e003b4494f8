/**
 * The prose of the README section that numbers cannot carry: how the figures were taken, and
 * for each target a run can miss, why it misses (with the profile evidence in bench/results/)
 * and what would close it. An explanation appears only when its target missed in that run.
 */

export const METHOD = `How to read the tables: every row runs in a fresh \`node\` process (so no OpenTelemetry
global and no JIT feedback leaks between rows) against the compiled package in \`dist/\`, with
the public functions bound to local consts as \`const { managedSpan } = require('nemo-lens')\`
does. Each row is the median over rounds of mitata's median batch time; small figures in
brackets are the range over rounds. **Δ** is the overhead over the baseline of the same mode (a
bare call of the same work function); **× baseline** divides by it; **vs X** is X's ns/op divided
by the row's (how many times cheaper the row is, both including the same work). The targets use
Δ; a Δ below the resolution of the run ({resolution} ns: the difference between two identical
baseline processes, at least 0.05 ns) is clamped to it and the ratio is then a lower bound (≥).`;

export const EXPLANATIONS: Readonly<Record<string, string>> = {};

// The one global the standalone type checks declare by hand: @opentelemetry/api 1.9
// (build/src/diag/consoleLogger.d.ts) names `typeof console.log`, which lib "es2022" lacks
// without @types/node or "dom". nemo-lens's own declarations need nothing from here.
declare var console: { log(...data: unknown[]): void };

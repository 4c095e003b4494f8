// ESM entry of `nemo-lens`: the CommonJS build re-exported, so that ESM and CommonJS consumers
// share one implementation and one span-group registry. Node lists the CommonJS names with
// cjs-module-lexer; the package test fails if any export of the CommonJS build is missing here.
export * from '../dist/index.js';

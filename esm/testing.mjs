// ESM entry of `nemo-lens/testing`: the CommonJS build re-exported (see index.mjs).
export * from '../dist/testing.js';
// The CommonJS build's `exports.default`. Node's default import of CommonJS is the whole
// `module.exports`; Bun and babel-style interop give `exports.default` itself (the build sets
// `__esModule`), which has no `default` of its own.
import cjs from '../dist/testing.js';
export default cjs.default ?? cjs;

// ESM entry of `nemo-lens`: the CommonJS build re-exported, so that ESM and CommonJS consumers
// share one implementation and one span-group registry. Node lists the CommonJS names with
// cjs-module-lexer; the package test fails if any export of the CommonJS build is missing here.
export * from '../dist/index.js';
// The CommonJS build's `exports.default`. Node's default import of CommonJS is the whole
// `module.exports`; Bun and babel-style interop give `exports.default` itself (the build sets
// `__esModule`), which has no `default` of its own.
import cjs from '../dist/index.js';
export default cjs.default ?? cjs;

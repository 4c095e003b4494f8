// Types of esm/index.mjs: the declarations of the CommonJS build it re-exports.
export * from '../dist/index.js';
export { default } from '../dist/index.js';

// Types of esm/testing.mjs: the declarations of the CommonJS build it re-exports.
export * from '../dist/testing.js';
export { default } from '../dist/testing.js';

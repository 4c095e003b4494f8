// Types of esm/fallbacks.mjs: the declarations of the CommonJS build it re-exports.
export * from '../dist/fallbacks.js';
export { default } from '../dist/fallbacks.js';

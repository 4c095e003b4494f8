// ESM entry of `nemo-lens/fallbacks`: the CommonJS build re-exported (see index.mjs).
export * from '../dist/fallbacks.js';

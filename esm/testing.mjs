// ESM entry of `nemo-lens/testing`: the CommonJS build re-exported (see index.mjs).
export * from '../dist/testing.js';

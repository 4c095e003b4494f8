/**
 * Imported first by worker.ts: the export worker's realm only emits warnings, for which the
 * pure-TypeScript registry is enough; loading the native addon there would cost start-up
 * for nothing. The worker's `process.env` is its own copy, so the host's is untouched.
 */
process.env['NEMO_LENS_BACKEND'] = 'js';

// @ts-check
/**
 * Load the installed package and print which core it chose as one JSON line on stdout:
 * `{ backend, nativeLoadError }`, or `{ error: { code, message } }` when loading threw.
 * The package test runs it under different environments and reads stdout and stderr.
 */
'use strict';
try {
  const { backend, nativeLoadError } = require('nemo-lens');
  console.log(JSON.stringify({ backend, nativeLoadError: nativeLoadError?.message ?? null }));
} catch (error) {
  const { code, message } = /** @type {{ code?: string, message?: string }} */ (error);
  console.log(JSON.stringify({ error: { code, message } }));
}

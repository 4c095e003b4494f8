/**
 * The compiled CommonJS entry keeps its `exports` object in V8's fast mode (no getters), so a
 * consumer calling `nemo.managedSpan(...)` through the module object pays a field load, not a
 * getter call. Checked on dist/ (what ships; `npm test` builds it first).
 */
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';

import test from 'ava';

const entry = path.join(__dirname, '..', 'dist', 'index.js');

test('dist/index.js exports only data properties, in fast mode', (t) => {
  t.true(fs.existsSync(entry), 'dist/ is missing: run `npm run build` (npm test does it first)');
  const script = `
    const m = require(${JSON.stringify(entry)});
    const getters = Object.keys(m).filter((key) => typeof Object.getOwnPropertyDescriptor(m, key).get === 'function');
    process.stdout.write(JSON.stringify({ fast: %HasFastProperties(m), getters, managedSpan: typeof m.managedSpan }));
  `;
  const out = JSON.parse(execFileSync(process.execPath, ['--allow-natives-syntax', '-e', script], { encoding: 'utf8' })) as {
    fast: boolean;
    getters: string[];
    managedSpan: string;
  };
  t.deepEqual(out, { fast: true, getters: [], managedSpan: 'function' });
});

test('each entry has a default export holding every runtime export, as @opentelemetry/api does', (t) => {
  for (const name of ['index', 'fallbacks', 'testing']) {
    const m = require(path.join(__dirname, '..', 'dist', `${name}.js`)) as Record<string, unknown> & { default: Record<string, unknown> };
    const named = Object.keys(m).filter((key) => key !== 'default' && key !== '__esModule');
    t.deepEqual(Object.keys(m.default).sort(), named.sort(), `${name}: the default export's keys`);
    for (const key of named) t.is(m.default[key], m[key], `${name}: default.${key} is the named export`);
  }
});

/**
 * The live spec file (src/telemetry/spec-file.ts): `NEMO_LENS_SPAN_GROUPS_FILE` is read at
 * setup and followed while the job runs; a missing file keeps the last spec, an unreadable
 * one warns once; polling never keeps the process alive and stops at shutdown.
 */
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import * as readline from 'node:readline';

import test from 'ava';

import { NemoLensError, SpanRegistry, enabledSpanGroups, onWarning, setupTelemetry, type NemoLensWarning } from '../src/index';
import { resetTelemetry } from '../src/testing';
import { firstSpecLine, pollSpecFile, specFileSettings, type SpecFileState } from '../src/telemetry/spec-file';
import { withEnvSync } from './helpers/env-warnings';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'nemo-lens-spec-file-'));
test.after.always(async () => {
  await resetTelemetry();
  fs.rmSync(dir, { recursive: true, force: true });
});

const warnings: NemoLensWarning[] = [];
// NO_RANK (a setup without a rank, see resource.ts) is held by parity-identity.spec.ts, not here.
onWarning((warning) => void (warning.code !== 'NEMO_LENS_NO_RANK' && warnings.push(warning)));
let counter = 0;
const freshPath = () => path.join(dir, `spec-${++counter}.txt`);
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));


test('the spec is the first non-blank line, trimmed, without a BOM', (t) => {
  t.is(firstSpecLine('\n  \r\n  default,extra  \nall\n'), 'default,extra');
  t.is(firstSpecLine('\ufeffall'), 'all');
  t.is(firstSpecLine(' \n\t\n'), undefined);
  t.is(firstSpecLine(''), undefined);
});

test('a poll reads only what changed; missing keeps the last spec; unreadable is reported once per run', async (t) => {
  const file = freshPath();
  const state: SpecFileState = {};
  t.deepEqual(await pollSpecFile(file, state), { kind: 'same' }, 'missing: nothing to apply');
  fs.writeFileSync(file, 'default\n');
  t.deepEqual(await pollSpecFile(file, state), { kind: 'changed', spec: 'default' });
  t.deepEqual(await pollSpecFile(file, state), { kind: 'same' });
  // Same size, written at once: the racy rule reads it again although the size is the same.
  fs.writeFileSync(file, 'debug\n\n');
  fs.writeFileSync(file, 'extra\n');
  t.deepEqual(await pollSpecFile(file, state), { kind: 'changed', spec: 'extra' });
  fs.writeFileSync(file, '   \n');
  t.deepEqual(await pollSpecFile(file, state), { kind: 'same' }, 'blank (being written): keep the spec');
  fs.rmSync(file);
  t.deepEqual(await pollSpecFile(file, state), { kind: 'same' }, 'gone: keep the spec');
  t.is(state.spec, 'extra');
  fs.mkdirSync(file);
  const first = await pollSpecFile(file, state);
  t.is(first.kind, 'unreadable');
  t.true(first.kind === 'unreadable' && first.first && /EISDIR/.test(first.reason));
  const second = await pollSpecFile(file, state);
  t.true(second.kind === 'unreadable' && !second.first, 'the same run of failures');
  fs.rmdirSync(file);
  fs.writeFileSync(file, 'extra\n');
  t.deepEqual(await pollSpecFile(file, state), { kind: 'same' }, 'readable again, same spec: nothing to apply');
  fs.writeFileSync(file, 'all\n');
  t.deepEqual(await pollSpecFile(file, state), { kind: 'changed', spec: 'all' });
});

test('the poll interval variable is checked', (t) => {
  t.is(specFileSettings({}), undefined);
  t.is(specFileSettings({ NEMO_LENS_SPAN_GROUPS_FILE: '  ' }), undefined);
  t.deepEqual(specFileSettings({ NEMO_LENS_SPAN_GROUPS_FILE: 'rel/spec.txt' }), { path: path.resolve('rel/spec.txt'), pollMs: 2000 });
  t.is(specFileSettings({ NEMO_LENS_SPAN_GROUPS_FILE: '/x', NEMO_LENS_SPAN_GROUPS_FILE_POLL_MS: '500' })!.pollMs, 500);
  for (const bad of ['0', '50', 'soon', '1.5', '-2000']) {
    const error = t.throws(() => specFileSettings({ NEMO_LENS_SPAN_GROUPS_FILE: '/x', NEMO_LENS_SPAN_GROUPS_FILE_POLL_MS: bad }), { instanceOf: NemoLensError });
    t.is((error as NemoLensError).code, 'ERR_NEMO_LENS_INVALID_CONFIG');
    t.regex(error!.message, /NEMO_LENS_SPAN_GROUPS_FILE_POLL_MS=/);
  }
});

test.serial('in process: setup takes the spec from the file (the config spec while it is missing), and an unreadable file warns once', async (t) => {
  await resetTelemetry();
  SpanRegistry.register('trainer', ['base', 'extra'], { default: ['base'] });
  const file = freshPath();
  withEnvSync({ NEMO_LENS_SPAN_GROUPS_FILE: file }, () => setupTelemetry({ enabled: true, exporter: 'none' }, { allowReinit: true }));
  t.deepEqual([...enabledSpanGroups()], ['base'], 'missing: the config spec');
  fs.writeFileSync(file, '\nextra\n');
  withEnvSync({ NEMO_LENS_SPAN_GROUPS_FILE: file }, () => setupTelemetry({ enabled: true, exporter: 'none' }, { allowReinit: true }));
  t.deepEqual([...enabledSpanGroups()], ['extra'], 'the file wins over the config spec');
  fs.rmSync(file);
  fs.mkdirSync(file);
  warnings.length = 0;
  withEnvSync({ NEMO_LENS_SPAN_GROUPS_FILE: file }, () => setupTelemetry({ enabled: true, exporter: 'none' }, { allowReinit: true }));
  t.deepEqual([...enabledSpanGroups()], ['base']);
  t.deepEqual(warnings.map((w) => w.code), ['NEMO_LENS_SPEC_FILE_UNREADABLE']);
  t.regex(warnings[0]!.message, /cannot be read at setup \(EISDIR/);
  // A disabled setup never reads it: no warning, nothing enabled.
  warnings.length = 0;
  withEnvSync({ NEMO_LENS_SPAN_GROUPS_FILE: file }, () => setupTelemetry({ enabled: false }, { allowReinit: true }));
  t.deepEqual(warnings, []);
  t.deepEqual([...enabledSpanGroups()], []);
  const error = withEnvSync({ NEMO_LENS_SPAN_GROUPS_FILE: file, NEMO_LENS_SPAN_GROUPS_FILE_POLL_MS: 'often' }, () =>
    t.throws(() => setupTelemetry({ enabled: true, exporter: 'none' }, { allowReinit: true })),
  );
  t.regex(error!.message, /NEMO_LENS_SPAN_GROUPS_FILE_POLL_MS="often"/);
  await resetTelemetry();
});

interface SpanLine {
  name: string;
  start: string;
}

test.serial('a child job follows the file: on within 2 s of "default,extra", kept when the file goes, off within 2 s of "default"', async (t) => {
  const file = freshPath();
  const env: NodeJS.ProcessEnv = { ...process.env, NEMO_LENS_SPAN_GROUPS_FILE: file, OTEL_BSP_SCHEDULE_DELAY: '50' };
  for (const key of Object.keys(env)) if (key.startsWith('NEMO_LENS_') && !['NEMO_LENS_BACKEND', 'NEMO_LENS_SPAN_GROUPS_FILE'].includes(key)) delete env[key];
  const child = spawn(process.execPath, ['--import=tsx', '--no-warnings', path.join(__dirname, 'helpers', 'spec-file-child.ts')], { env, stdio: ['pipe', 'pipe', 'pipe'] });
  const spans: Array<SpanLine & { at: number }> = [];
  const childWarnings: NemoLensWarning[] = [];
  let ready = false;
  let returnedAt: number | undefined;
  readline.createInterface({ input: child.stdout }).on('line', (line) => {
    const span = JSON.parse(line) as SpanLine;
    spans.push({ ...span, at: Date.parse(span.start) });
  });
  readline.createInterface({ input: child.stderr }).on('line', (line) => {
    const message = JSON.parse(line) as { warning?: NemoLensWarning; ready?: boolean; shutdown?: string };
    if (message.warning && message.warning.code !== 'NEMO_LENS_NO_RANK') childWarnings.push(message.warning);
    if (message.ready) ready = true;
    if (message.shutdown) returnedAt = Date.now();
  });
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  const killer = setTimeout(() => child.kill('SIGKILL'), 90_000);
  const until = async (done: () => boolean, what: string) => {
    const deadline = Date.now() + 15_000;
    while (!done()) {
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
      await sleep(25);
    }
  };
  const extraAfter = (time: number) => spans.filter((span) => span.name === 'extra-step' && span.at >= time);
  try {
    await until(() => ready && spans.some((span) => span.name === 'base-step'), 'the first base spans');
    await sleep(500);
    t.is(extraAfter(0).length, 0, 'missing file: the config spec (default = base)');

    const on = Date.now();
    fs.writeFileSync(file, 'default,extra\n');
    await until(() => extraAfter(on).length > 0, 'extra spans after the file named the group');
    const onLatency = extraAfter(on)[0]!.at - on;

    // The file disappears: the last spec stays (extra keeps coming), without a warning.
    fs.rmSync(file);
    const gone = Date.now();
    await sleep(2500);
    t.true(extraAfter(gone + 2000).length > 0, 'the last spec is kept while the file is gone');
    // Unreadable (a directory in its place): one warning, the spec stays.
    fs.mkdirSync(file);
    await sleep(4500);
    t.true(extraAfter(Date.now() - 1000).length > 0, 'the spec is kept while the file is unreadable');
    fs.rmdirSync(file);

    const off = Date.now();
    fs.writeFileSync(file, 'default\n');
    await sleep(4000);
    const stillOn = extraAfter(off);
    const offLatency = stillOn.length === 0 ? 0 : stillOn.at(-1)!.at - off;
    t.log(`extra on ${onLatency} ms after the write, off within ${offLatency} ms (poll every 2000 ms)`);
    // Safety nets on a shared machine: the poll interval (2 s) plus scheduling slack.
    t.true(onLatency < 3500, `on after ${onLatency} ms`);
    t.true(offLatency < 3500, `still on ${offLatency} ms after`);
    t.true(spans.some((span) => span.name === 'base-step' && span.at > off + 3000), 'base keeps flowing');

    t.deepEqual(childWarnings.map((w) => w.code), ['NEMO_LENS_SPEC_FILE_UNREADABLE']);
    t.regex(childWarnings[0]!.message, /keeping the current spec "default,extra"/);
  } finally {
    child.stdin.end();
    const code = await exited;
    clearTimeout(killer);
    t.is(code, 0);
  }
  t.true(returnedAt !== undefined);
  const linger = Date.now() - returnedAt!;
  t.true(linger < 2500, `the poller kept the child alive ${linger} ms after shutdown`);
});

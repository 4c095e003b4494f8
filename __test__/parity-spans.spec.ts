/**
 * What one job's Python and Node spans must share (issue 13): the attributes nemo-lens sets
 * are redacted as safeSetSpanAttributes redacts (item 1), and a failure's status message is
 * written per function as the reference writes it (item 6).
 */
import { SpanStatusCode } from '@opentelemetry/api';
import test from 'ava';

import { REDACTED, SpanRegistry, managedSpan, setSpanGroupSpec, spanCm, traceFn } from '../src/index';
import { resetTelemetry } from '../src/testing';
import { installInMemoryTracing } from './helpers/tracing';

const { exporter } = installInMemoryTracing();

test.beforeEach(async () => {
  await resetTelemetry();
  exporter.reset();
  SpanRegistry.register('trainer', ['step']);
  setSpanGroupSpec('step');
});

const finished = () => exporter.getFinishedSpans();

const GIVEN = {
  prompt: 'the secret prompt',
  'llm.input_text': 'private words',
  password: 'hunter2',
  tokens: 12,
  key: 7,
  'train.step': 3,
  labels: ['a', 'b'],
  secret: ['s1', 's2'],
  nested: { a: 1 },
  missing: undefined,
} as const;

const EXPECTED = {
  prompt: REDACTED,
  'llm.input_text': REDACTED,
  password: REDACTED,
  tokens: 12,
  key: 7,
  'train.step': 3,
  labels: ['a', 'b'],
  secret: [REDACTED, REDACTED],
};

test.serial('managedSpan, traceFn and spanCm redact the attributes they are given, as safeSetSpanAttributes does', async (t) => {
  managedSpan('step', 'managed', { attributes: GIVEN as never }, () => 1);
  traceFn('step', 'traced', { attributes: GIVEN as never })(() => 2)();
  await traceFn('step', 'traced-async', { attributes: GIVEN as never })(async () => 3)();
  spanCm('cm', { attributes: GIVEN as never }, () => 4);
  t.is(finished().length, 4);
  for (const span of finished()) {
    const { 'nemo.span_group': group, ...rest } = span.attributes;
    t.deepEqual(rest, EXPECTED, span.name);
    t.is(group, span.name === 'cm' ? undefined : 'step', `${span.name}: the group attribute is kept`);
    t.false(JSON.stringify(span.attributes).includes('secret prompt'), `${span.name}: the prompt never reaches the exporter`);
  }
});

test.serial('a hostile attributes object loses its attributes, not the span', (t) => {
  const hostile = new Proxy({}, { ownKeys: () => { throw new Error('no keys'); } });
  t.is(managedSpan('step', 'hostile', { attributes: hostile }, () => 'ok'), 'ok');
  t.deepEqual(finished()[0]?.attributes, { 'nemo.span_group': 'step' });
});

class CustomError extends Error {}
class NamedError extends Error {
  override name = 'NamedError';
}

test.serial('status messages follow the reference per function: "bad thing" for managedSpan, "CustomError: bad thing" for traceFn and spanCm', async (t) => {
  const fail = (error: unknown) => () => {
    throw error;
  };
  t.throws(() => managedSpan('step', 'managed', fail(new CustomError('bad thing'))));
  t.throws(() => traceFn('step', 'traced')(fail(new CustomError('bad thing')))());
  await t.throwsAsync(traceFn('step', 'traced-async')(async () => Promise.reject(new CustomError('bad thing')))());
  t.throws(() => spanCm('cm', fail(new CustomError('bad thing'))));
  t.throws(() => spanCm('cm-named', fail(new NamedError('bad thing'))));
  t.throws(() => spanCm('cm-range', fail(new RangeError('out'))));
  t.is(t.throws(() => spanCm('cm-string', fail('plain string')), { any: true }), 'plain string' as never);
  const status = Object.fromEntries(finished().map((span) => [span.name, [span.status.code, span.status.message]]));
  t.deepEqual(status, {
    managed: [SpanStatusCode.ERROR, 'bad thing'],
    traced: [SpanStatusCode.ERROR, 'CustomError: bad thing'],
    'traced-async': [SpanStatusCode.ERROR, 'CustomError: bad thing'],
    cm: [SpanStatusCode.ERROR, 'CustomError: bad thing'],
    'cm-named': [SpanStatusCode.ERROR, 'NamedError: bad thing'],
    'cm-range': [SpanStatusCode.ERROR, 'RangeError: out'],
    'cm-string': [SpanStatusCode.ERROR, 'plain string'],
  });
});

test.serial('an error whose name getter throws still gets a status', (t) => {
  const error = new Error('inner');
  Object.defineProperty(error, 'name', { get: () => { throw new Error('no name'); } });
  t.throws(() => spanCm('cm', () => { throw error; }));
  t.is(finished()[0]?.status.code, SpanStatusCode.ERROR);
  t.is(typeof finished()[0]?.status.message, 'string');
});

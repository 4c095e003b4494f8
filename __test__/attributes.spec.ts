// safeSetSpanAttributes and redaction on real SDK spans. `npm run coverage` found this public,
// documented API reached by no spec at all (44% of src/attributes.ts, on both backends).
import type { Attributes, Span } from '@opentelemetry/api';
import test from 'ava';

import { DEFAULT_REDACT_KEYS, redactValue, safeSetSpanAttributes, spanCm } from '../src/index';
import { installInMemoryTracing } from './helpers/tracing';

const { exporter } = installInMemoryTracing();

test.beforeEach(() => exporter.reset());

/** The attributes a real span ends up with after `safeSetSpanAttributes(span, ...args)`. */
function attributesAfter(...args: [Readonly<Record<string, unknown>> | undefined, (readonly string[])?]): Attributes {
  spanCm('s', (span) => safeSetSpanAttributes(span, ...args));
  const [span] = exporter.getFinishedSpans();
  exporter.reset();
  return span!.attributes;
}

test.serial('scalars and arrays of scalars are kept; what OpenTelemetry cannot carry is skipped', (t) => {
  const list = [1, 2];
  const attributes = attributesAfter({
    n: 1.5,
    s: 'x',
    b: false,
    list,
    mixed: [1, 'a', true],
    empty: [],
    u: undefined,
    z: null,
    object: { a: 1 },
    nested: [[1]],
    f: () => 1,
    big: 1n,
  });
  list.push(3);
  t.deepEqual(attributes, { n: 1.5, s: 'x', b: false, list: [1, 2], mixed: ['1', 'a', 'true'], empty: [] }, 'arrays are copied; mixed ones become strings');
});

test.serial('string values of redact keys are redacted, also as a ./_/- suffix, in any case', (t) => {
  const attributes = attributesAfter({
    prompt: 'tell me',
    'llm.Prompt': 'again',
    api_key: 'k',
    'X-TOKEN': 't',
    secrets: 'not a listed key',
    monkey: 'no separator before "key"',
    token: 42,
    text: ['a', 'b'],
  });
  t.deepEqual(attributes, {
    prompt: '[REDACTED]',
    'llm.Prompt': '[REDACTED]',
    api_key: '[REDACTED]',
    'X-TOKEN': '[REDACTED]',
    secrets: 'not a listed key',
    monkey: 'no separator before "key"',
    token: 42,
    text: ['[REDACTED]', '[REDACTED]'],
  });
  t.true(DEFAULT_REDACT_KEYS.includes('prompt'));
  t.is(redactValue('secret text'), '[REDACTED]');
  t.is(redactValue(7), 7);
});

test.serial('redactKeys replaces the default list', (t) => {
  t.deepEqual(attributesAfter({ prompt: 'kept', 'train.loss': 'hidden' }, ['LOSS']), { prompt: 'kept', 'train.loss': '[REDACTED]' });
  t.deepEqual(attributesAfter({ prompt: 'kept' }, []), { prompt: 'kept' });
});

test.serial('a disabled site, missing attributes, a throwing span or getter: no throw', (t) => {
  t.notThrows(() => safeSetSpanAttributes(undefined, { a: 1 }));
  t.deepEqual(attributesAfter(undefined), {});
  const broken = {
    setAttribute() {
      throw new Error('broken span');
    },
  } as unknown as Span;
  t.notThrows(() => safeSetSpanAttributes(broken, { a: 1 }));
  const hostile = Object.defineProperty({ before: 1 }, 'boom', {
    enumerable: true,
    get() {
      throw new Error('getter');
    },
  });
  t.deepEqual(attributesAfter(hostile), { before: 1 }, 'attributes set before the failure stay');
});

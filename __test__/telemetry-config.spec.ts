import test from 'ava';

import { NemoLensConfig, NemoLensError, NemoLensTypeError } from '../src/index';

const DEFAULTS = {
  enabled: false,
  spanGroups: 'default',
  exporter: 'otlp',
  tracesEnabled: true,
  runId: undefined,
  userId: undefined,
  serviceName: 'nemo',
};

function fields(config: NemoLensConfig): Record<string, unknown> {
  return { ...config };
}

test('defaults: disabled, "default" spec, OTLP, traces on, service "nemo"', (t) => {
  t.deepEqual(fields(new NemoLensConfig()), DEFAULTS);
  t.deepEqual(fields(NemoLensConfig.fromEnv({ env: {} })), DEFAULTS);
  t.true(Object.isFrozen(new NemoLensConfig()));
});

test('the constructor takes a partial object', (t) => {
  const config = new NemoLensConfig({ enabled: true, spanGroups: 'per_step,layer', exporter: 'console', runId: 'r1', userId: 'u1', serviceName: 'trainer' });
  t.deepEqual(fields(config), { ...DEFAULTS, enabled: true, spanGroups: 'per_step,layer', exporter: 'console', runId: 'r1', userId: 'u1', serviceName: 'trainer' });
  t.is(new NemoLensConfig({ spanGroups: '' }).spanGroups, '', 'an empty spec is a valid spec (it enables nothing)');
});

const CONSTRUCTOR_ERRORS: Array<[string, unknown, 'type' | 'value', RegExp]> = [
  ['enabled as a string', { enabled: 'yes' }, 'type', /config\.enabled must be a boolean, got "yes".*fromEnv/],
  ['tracesEnabled as a number', { tracesEnabled: 1 }, 'type', /config\.tracesEnabled must be a boolean, got number 1/],
  ['spanGroups as an array', { spanGroups: ['step'] }, 'type', /config\.spanGroups must be a string, got an array/],
  ['an unknown exporter', { exporter: 'jaeger' }, 'value', /config\.exporter "jaeger" is not an exporter; use one of "otlp", "console", "none"/],
  ['an exporter in upper case', { exporter: 'OTLP' }, 'value', /"OTLP" is not an exporter/],
  ['an exporter object', { exporter: {} }, 'type', /config\.exporter must be one of otlp, console, none/],
  ['a blank run id', { runId: '  ' }, 'value', /config\.runId must not be empty or blank.*omit it/],
  ['an empty service name', { serviceName: '' }, 'value', /config\.serviceName must not be empty/],
  ['a numeric user id', { userId: 7 }, 'type', /config\.userId must be a string, got number 7/],
  ['a lone surrogate', { spanGroups: 'a\ud800' }, 'type', /lone surrogate/],
  ['a misspelt key', { spanGroup: 'all' }, 'value', /unknown config key "spanGroup"; the keys are enabled, spanGroups/],
  ['no object at all', null, 'type', /needs an options object, got null/],
];

for (const [title, options, kind, message] of CONSTRUCTOR_ERRORS) {
  test(`constructor refuses ${title}`, (t) => {
    const error = t.throws(() => new NemoLensConfig(options as never), { message });
    if (kind === 'type') {
      t.true(error instanceof NemoLensTypeError);
      t.is((error as NemoLensTypeError).code, 'ERR_NEMO_LENS_INVALID_ARGUMENT');
    } else {
      t.true(error instanceof NemoLensError);
      t.is((error as NemoLensError).code, 'ERR_NEMO_LENS_INVALID_CONFIG');
    }
  });
}

// [variable, value, field, parsed]
const VARIABLES: Array<[string, string, keyof NemoLensConfig, unknown]> = [
  ['NEMO_LENS_ENABLED', 'true', 'enabled', true],
  ['NEMO_LENS_SPAN_GROUPS', 'per_step,layer', 'spanGroups', 'per_step,layer'],
  ['NEMO_LENS_SPAN_GROUPS', 'all', 'spanGroups', 'all'],
  ['NEMO_LENS_EXPORTER', 'console', 'exporter', 'console'],
  ['NEMO_LENS_EXPORTER', ' None ', 'exporter', 'none'],
  ['NEMO_LENS_EXPORTER', 'OTLP', 'exporter', 'otlp'],
  ['NEMO_LENS_TRACES_ENABLED', 'off', 'tracesEnabled', false],
  ['NEMO_LENS_RUN_ID', ' run-42 ', 'runId', 'run-42'],
  ['NEMO_LENS_USER_ID', 'alice', 'userId', 'alice'],
  ['OTEL_SERVICE_NAME', 'trainer', 'serviceName', 'trainer'],
  ['OTEL_RESOURCE_ATTRIBUTES', 'team=a,service.name=from%20attrs', 'serviceName', 'from attrs'],
];

for (const [variable, value, field, parsed] of VARIABLES) {
  test(`fromEnv reads ${variable}=${JSON.stringify(value)} into ${field}`, (t) => {
    const config = NemoLensConfig.fromEnv({ env: { [variable]: value } });
    t.deepEqual(fields(config), { ...DEFAULTS, [field]: parsed });
  });
}

test('OTEL_SERVICE_NAME wins over a service.name in OTEL_RESOURCE_ATTRIBUTES', (t) => {
  const env = { OTEL_SERVICE_NAME: 'svc', OTEL_RESOURCE_ATTRIBUTES: 'service.name=other' };
  t.is(NemoLensConfig.fromEnv({ env }).serviceName, 'svc');
});

const BOOLEANS: Array<[string, boolean]> = [
  ['1', true], ['0', false], ['true', true], ['FALSE', false], ['Yes', true], ['no', false],
  ['ON', true], ['off', false], ['  true\n', true], ['\tNo ', false],
];

for (const [value, parsed] of BOOLEANS) {
  test(`booleans: ${JSON.stringify(value)} is ${parsed}`, (t) => {
    t.is(NemoLensConfig.fromEnv({ env: { NEMO_LENS_ENABLED: value } }).enabled, parsed);
    t.is(NemoLensConfig.fromEnv({ env: { NEMO_LENS_TRACES_ENABLED: value } }).tracesEnabled, parsed);
  });
}

for (const value of ['maybe', '2', 'y', 'enabled', 't', '-1', 'truee']) {
  test(`booleans: ${JSON.stringify(value)} throws naming the variable, the value and what is accepted`, (t) => {
    const error = t.throws<NemoLensError>(() => NemoLensConfig.fromEnv({ env: { NEMO_LENS_TRACES_ENABLED: value } }));
    t.true(error instanceof NemoLensError);
    t.is(error?.code, 'ERR_NEMO_LENS_INVALID_CONFIG');
    t.true(error?.message.includes(`NEMO_LENS_TRACES_ENABLED=${JSON.stringify(value)}`), error?.message);
    t.regex(error?.message ?? '', /1\/0, true\/false, yes\/no or on\/off/);
  });
}

test('an invalid exporter name from the environment names the variable', (t) => {
  const error = t.throws<NemoLensError>(() => NemoLensConfig.fromEnv({ env: { NEMO_LENS_EXPORTER: 'zipkin' } }));
  t.is(error?.code, 'ERR_NEMO_LENS_INVALID_CONFIG');
  t.regex(error?.message ?? '', /NEMO_LENS_EXPORTER "zipkin" is not an exporter; use one of "otlp", "console", "none"/);
});

test('a custom prefix replaces NEMO_LENS', (t) => {
  const env = { TRAINER_ENABLED: 'yes', TRAINER_SPAN_GROUPS: 'all', NEMO_LENS_ENABLED: 'no' };
  const config = NemoLensConfig.fromEnv({ prefix: 'TRAINER', env });
  t.true(config.enabled);
  t.is(config.spanGroups, 'all');
});

test('the fallback prefix is read only when the primary variable is unset or blank', (t) => {
  const config = NemoLensConfig.fromEnv({
    fallbackPrefix: 'NEMO',
    env: {
      NEMO_LENS_ENABLED: 'true', // set: wins
      NEMO_ENABLED: 'false',
      NEMO_LENS_SPAN_GROUPS: '   ', // blank: fallback
      NEMO_SPAN_GROUPS: 'per_step',
      NEMO_EXPORTER: 'console', // unset primary: fallback
      NEMO_LENS_RUN_ID: '', // empty: fallback
      NEMO_RUN_ID: 'job-7',
      NEMO_LENS_USER_ID: 'bob', // set: wins
      NEMO_USER_ID: 'eve',
    },
  });
  t.deepEqual(fields(config), { ...DEFAULTS, enabled: true, spanGroups: 'per_step', exporter: 'console', runId: 'job-7', userId: 'bob' });
});

test('blank everywhere means the default', (t) => {
  const config = NemoLensConfig.fromEnv({ fallbackPrefix: 'NEMO', env: { NEMO_LENS_SPAN_GROUPS: '', NEMO_SPAN_GROUPS: ' ', OTEL_SERVICE_NAME: ' ' } });
  t.deepEqual(fields(config), DEFAULTS);
});

test('a bad value under the fallback prefix names the primary variable and where it came from', (t) => {
  const error = t.throws<NemoLensError>(() => NemoLensConfig.fromEnv({ fallbackPrefix: 'NEMO', env: { NEMO_ENABLED: 'perhaps' } }));
  t.is(error?.code, 'ERR_NEMO_LENS_INVALID_CONFIG');
  t.regex(error?.message ?? '', /NEMO_LENS_ENABLED \(read from NEMO_ENABLED\)="perhaps" is not a boolean/);
});

test('a bad primary value is not rescued by a good fallback', (t) => {
  t.throws(() => NemoLensConfig.fromEnv({ fallbackPrefix: 'NEMO', env: { NEMO_LENS_ENABLED: 'sure', NEMO_ENABLED: 'true' } }), {
    message: /NEMO_LENS_ENABLED="sure"/,
  });
});

test('fromEnv reads process.env by default', (t) => {
  const saved = process.env['NEMO_LENS_USER_ID'];
  process.env['NEMO_LENS_USER_ID'] = 'from-process-env';
  try {
    t.is(NemoLensConfig.fromEnv().userId, 'from-process-env');
  } finally {
    if (saved === undefined) delete process.env['NEMO_LENS_USER_ID'];
    else process.env['NEMO_LENS_USER_ID'] = saved;
  }
});

test('fromEnv checks its own options', (t) => {
  t.throws(() => NemoLensConfig.fromEnv({ prefix: 'NEMO-LENS' }), { message: /prefix.*"NEMO-LENS" is not a variable-name prefix/ });
  t.throws(() => NemoLensConfig.fromEnv({ prefix: 42 as never }), { instanceOf: NemoLensTypeError });
  t.throws(() => NemoLensConfig.fromEnv({ env: 'NEMO_LENS_ENABLED=1' as never }), { instanceOf: NemoLensTypeError });
});

/**
 * The reference's reading of the environment, recorded (fixtures/conformance/config-env.json
 * and spec-env.json, see their README in the shared folder): a Node process and a Python
 * process of one job read the same variables and must agree on every case, whitespace
 * included (issue 13, item 2). Both backends run every case.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import test from 'ava';

import { NemoLensConfig, SpanRegistry, backend, enabledSpanGroups, onWarning, pendingSpanGroups, setupTelemetry, type NemoLensWarning } from '../src/index';
import { resetTelemetry } from '../src/testing';
import { InMemorySpanExporter } from '@opentelemetry/sdk-trace-base';
import { sorted } from './helpers/conformance';
import { EXPORTER_NAMES } from '../src/telemetry/config';

interface ConfigCase {
  tag: string;
  env: Record<string, string>;
  prefix?: string;
  fallbackPrefix?: string;
  expect:
    | { config: { enabled: boolean; serviceName: string; tracesEnabled: boolean; spanGroups: string; exporter: string; runId: string | null; userId: string | null } }
    | { error: string; variable: string; referenceMessage: string };
}

interface SpecCase {
  tag: string;
  registrations: Array<{ namespace: string; groups: string[]; presets?: Record<string, string[]>; allowOverride?: boolean }>;
  env: Record<string, string>;
  prefix?: string;
  fallbackPrefix?: string;
  expect: { spec: string; enabled: string[]; pending: string[]; registrationWarnings: string[]; registrationErrors: string[]; specWarnings: string[] };
}

function load<T>(file: string, format: string): T[] {
  const parsed = JSON.parse(fs.readFileSync(path.join(__dirname, 'fixtures', 'conformance', file), 'utf8')) as { format: string; cases: T[] };
  if (!parsed.format.startsWith(format)) throw new Error(`${file}: unknown format ${parsed.format}`);
  return parsed.cases;
}

const CONFIG_CASES = load<ConfigCase>('config-env.json', 'nemo-lens config-env vectors v1');
const SPEC_CASES = load<SpecCase>('spec-env.json', 'nemo-lens spec-env vectors v1');

const label = (c: { tag: string; env: object; prefix?: string; fallbackPrefix?: string }, i: number): string =>
  `#${i} ${c.tag} ${JSON.stringify({ env: c.env, prefix: c.prefix, fallbackPrefix: c.fallbackPrefix })}`;

CONFIG_CASES.forEach((c, i) => {
  test(`${backend}: config-env ${label(c, i)}`, (t) => {
    const read = () => NemoLensConfig.fromEnv({ env: c.env, prefix: c.prefix, fallbackPrefix: c.fallbackPrefix });
    // A deliberate difference (README "Node and Python in one job"): the exporter name is
    // validated in fromEnv, where the reference only checks it at setup. A case whose
    // expected exporter is no exporter must therefore be refused here, naming the variable.
    if ('config' in c.expect && !(EXPORTER_NAMES as readonly string[]).includes(c.expect.config.exporter)) {
      const error = t.throws(read) as { code?: string; message: string };
      t.is(error.code, 'ERR_NEMO_LENS_INVALID_CONFIG');
      t.regex(error.message, /_EXPORTER .* is not an exporter/);
      return;
    }
    if ('error' in c.expect) {
      const error = t.throws(read) as { code?: string; message: string };
      t.is(error.code, c.expect.error);
      t.true(error.message.includes(c.expect.variable), `the message names ${c.expect.variable}: ${error.message}`);
      return;
    }
    const config = read();
    t.deepEqual(
      {
        enabled: config.enabled,
        serviceName: config.serviceName,
        tracesEnabled: config.tracesEnabled,
        spanGroups: config.spanGroups,
        exporter: config.exporter,
        runId: config.runId ?? null,
        userId: config.userId ?? null,
      },
      c.expect.config,
    );
  });
});

const SPAN_GROUP_CODES = /^NEMO_LENS_(GROUP_SHARED|PRESET_MEMBER_UNREGISTERED|LATE_REGISTRATION|NO_GROUPS_REGISTERED|SPEC_PENDING|SPEC_RESOLVED_EMPTY)$/;
const warnings: NemoLensWarning[] = [];
onWarning((warning) => {
  if (SPAN_GROUP_CODES.test(warning.code)) warnings.push(warning);
});

SPEC_CASES.forEach((c, i) => {
  test.serial(`${backend}: spec-env ${label(c, i)}`, async (t) => {
    await resetTelemetry();
    warnings.length = 0;
    const registrationErrors: string[] = [];
    for (const r of c.registrations) {
      try {
        SpanRegistry.register(r.namespace, r.groups, r.presets, { allowOverride: r.allowOverride ?? false });
      } catch (error) {
        registrationErrors.push((error as { code?: string }).code ?? String(error));
      }
    }
    const registrationWarnings = warnings.map((w) => w.code);
    warnings.length = 0;
    const config = NemoLensConfig.fromEnv({ env: c.env, prefix: c.prefix, fallbackPrefix: c.fallbackPrefix });
    t.is(config.spanGroups, c.expect.spec, 'the spec read is the one the reference read');
    const handle = setupTelemetry({ enabled: true, spanGroups: config.spanGroups }, { spanExporter: new InMemorySpanExporter(), allowReinit: true });
    try {
      t.deepEqual(
        {
          enabled: sorted(enabledSpanGroups()),
          pending: sorted(pendingSpanGroups()),
          registrationWarnings,
          registrationErrors,
          specWarnings: warnings.map((w) => w.code),
        },
        {
          enabled: c.expect.enabled,
          pending: c.expect.pending,
          registrationWarnings: c.expect.registrationWarnings,
          registrationErrors: c.expect.registrationErrors,
          specWarnings: c.expect.specWarnings,
        },
      );
    } finally {
      await handle.shutdown();
    }
  });
});

test(`${backend}: every environment case ran`, (t) => {
  t.is(CONFIG_CASES.length, 271);
  t.is(SPEC_CASES.length, 227);
});

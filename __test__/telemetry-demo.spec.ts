import { execFile } from 'node:child_process';
import * as path from 'node:path';
import { promisify } from 'node:util';

import test from 'ava';

const run = promisify(execFile);
const ROOT = path.join(__dirname, '..');

// The demo is the first thing a newcomer runs: keep it working, and keep its numbers honest.
test('npm run demo: three runs, a table of spans per group, one trace', async (t) => {
  const { stdout } = await run(process.execPath, ['--import', 'tsx', path.join(ROOT, 'examples', 'demo', 'main.ts')], {
    cwd: ROOT,
    env: { ...process.env, NEMO_LENS_DEMO_EXPORTER: '' },
    timeout: 60_000,
  });
  t.regex(stdout, /ran NEMO_LENS_SPAN_GROUPS=default\s+->\s+13 spans/);
  t.regex(stdout, /ran NEMO_LENS_SPAN_GROUPS=per_step\s+->\s+37 spans/);
  t.regex(stdout, /ran NEMO_LENS_SPAN_GROUPS=all\s+->\s+85 spans/);
  t.regex(stdout, /trainer\s+job\s+1\s+1\s+1\n/);
  t.regex(stdout, /\s+forward_backward\s+-\s+-\s+16\n/);
  t.regex(stdout, /rl\s+rollout\s+-\s+8\s+8\n/);
  t.regex(stdout, /\s+reward\s+-\s+-\s+32\n/);
  t.regex(stdout, /All 135 spans belong to trace [0-9a-f]{32}/);
  t.regex(stdout, /\{"name":"train_step","traceId":"[0-9a-f]{32}"/);
});

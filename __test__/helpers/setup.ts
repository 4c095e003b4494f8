/** An enabled telemetry setup with `spec`, as the conformance `setup` op asks. */
import { setSpanGroupSpec } from '../../src/index';
import { shared } from '../../src/global';

export async function enabledSetup(spec: string): Promise<void> {
  shared.core.setSetupDone(true);
  setSpanGroupSpec(spec);
}

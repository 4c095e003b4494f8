/**
 * The realm-wide singleton. Like `@opentelemetry/api`, the state lives on `globalThis` under
 * a versioned `Symbol.for` key, so two copies of this package in one realm (npm can install
 * several) share one registry instead of silently splitting it. A copy whose state format
 * differs keeps its own state and warns. Each worker thread is its own realm, so it gets its
 * own state, exactly like its own OpenTelemetry globals.
 */
import { selectBackend, type BackendChoice } from './backends/select';
import type { CoreState } from './backends/types';
import type { FewEnabled, SpanGroup } from './gate';
import { STATE_FORMAT, VERSION } from './version';

const KEY_PREFIX = 'nemo-lens.state.v';
const KEY = Symbol.for(`${KEY_PREFIX}${STATE_FORMAT}`);

export interface SharedState extends BackendChoice {
  readonly format: number;
  /** Version of the copy that created this state. */
  readonly version: string;
  readonly core: CoreState;
  /** Hot path: own key `name` is `true` iff the group is enabled (see gate.ts). */
  readonly table: Record<string, boolean>;
  /** Hot path: a length filter and up to four enabled names, read before the table (see gate.ts). */
  readonly few: FewEnabled;
  /** Gate handles, one per name, kept current by every resolution. */
  readonly handles: Map<string, SpanGroup>;
  readonly listeners: Set<{ listener: (warning: { code: string; message: string }) => void }>;
  /** Mirror of the core's interned names and of its last enabled bitset. */
  readonly mirror: { names: string[]; bits: Uint32Array };
  /** Slot for the active telemetry setup (owned by src/telemetry). */
  telemetry: unknown;
}

function createTable(): Record<string, boolean> {
  // An ordinary (fast-mode) object whose prototype chain holds no keys at all, so
  // `table.constructor` or `table.__proto__` are never mistaken for enabled groups.
  return Object.create(Object.create(null) as object) as Record<string, boolean>;
}

function otherFormats(): string[] {
  return Object.getOwnPropertySymbols(globalThis)
    .map((symbol) => Symbol.keyFor(symbol))
    .filter((key): key is string => key !== undefined && key.startsWith(KEY_PREFIX) && key !== KEY.description)
    .map((key) => {
      const other = (globalThis as Record<symbol, Partial<SharedState>>)[Symbol.for(key)];
      return `${other?.version ?? 'unknown version'} (state format ${key.slice(KEY_PREFIX.length)})`;
    });
}

function createShared(): SharedState {
  const choice = selectBackend();
  return {
    format: STATE_FORMAT,
    version: VERSION,
    ...choice,
    table: createTable(),
    few: { lengths: 0, count: 0, s0: '', s1: '', s2: '', s3: '' },
    handles: new Map(),
    listeners: new Set(),
    mirror: { names: [], bits: new Uint32Array(0) },
    telemetry: undefined,
  };
}

function attach(): { state: SharedState; incompatible: string[]; created: boolean } {
  const slot = globalThis as Record<symbol, SharedState | undefined>;
  const existing = slot[KEY];
  if (existing !== undefined && existing.format === STATE_FORMAT) return { state: existing, incompatible: [], created: false };
  const state = createShared();
  Object.defineProperty(globalThis, KEY, { value: state, configurable: true, writable: false, enumerable: false });
  return { state, incompatible: otherFormats(), created: true };
}

const attached = attach();

export const shared: SharedState = attached.state;

/** Copies of nemo-lens in this realm whose state this copy cannot share (reported once by index.ts). */
export const incompatibleCopies: readonly string[] = attached.incompatible;

/** The bundle fallback line, for the copy that chose the backend only (reported once by index.ts). */
export const bundleNotice: string | undefined = attached.created ? attached.state.bundleNotice : undefined;

/**
 * Diagnostic texts. The Rust core (`crates/nemo-lens-core/src/messages.rs`) builds the same
 * texts byte for byte, so the differential tests compare whole messages across backends.
 * Names are quoted as given, without escaping.
 */
import type { Diagnostic } from '../types';
import { suggestions } from './suggest';

const q = (name: string): string => `"${name}"`;
const list = (names: readonly string[]): string => (names.length === 0 ? '(none)' : names.map(q).join(', '));

export interface Available {
  readonly groups: readonly string[];
  readonly presets: readonly string[];
  readonly namespaces: readonly string[];
}

/**
 * How many names of each kind a report lists as available: a registry of 100k groups must
 * not turn one warning into a megabyte of stderr.
 */
export const AVAILABLE_LIMIT = 20;

const some = (names: readonly string[]): string =>
  names.length <= AVAILABLE_LIMIT ? list(names) : `${list(names.slice(0, AVAILABLE_LIMIT))} and ${names.length - AVAILABLE_LIMIT} more`;

/**
 * How many tokens of a spec, and of its pending names, a spec report shows; the rest are
 * counted. A 10 MB spec in an env var must not turn one warning into 20 MB of stderr.
 */
export const SPEC_TOKEN_LIMIT = 20;

/** How many characters (code points, as Rust counts `char`s) of one token a spec report shows. */
export const TOKEN_CHAR_LIMIT = 200;

/** One token, cut at `TOKEN_CHAR_LIMIT` code points with the rest counted. */
function clipped(token: string): string {
  if (token.length <= TOKEN_CHAR_LIMIT) return token;
  let cut = 0;
  for (let seen = 0; seen < TOKEN_CHAR_LIMIT && cut < token.length; seen++) cut += token.codePointAt(cut)! > 0xffff ? 2 : 1;
  if (cut >= token.length) return token;
  let rest = 0;
  for (let i = cut; i < token.length; rest++) i += token.codePointAt(i)! > 0xffff ? 2 : 1;
  return `${token.slice(0, cut)}…(+${rest} characters)`;
}

/** The spec as a report quotes it: whole when short, else its first tokens and a count. */
function specShown(spec: string): string {
  const shown: string[] = [];
  let start = 0;
  while (shown.length < SPEC_TOKEN_LIMIT) {
    const comma = spec.indexOf(',', start);
    shown.push(clipped(spec.slice(start, comma < 0 ? spec.length : comma)));
    if (comma < 0) return q(shown.join(','));
    start = comma + 1;
  }
  let rest = 1;
  for (let comma = spec.indexOf(',', start); comma >= 0; comma = spec.indexOf(',', comma + 1)) rest++;
  return `${q(shown.join(','))} and ${rest} more tokens`;
}

/** Pending names as a report lists them: at most `SPEC_TOKEN_LIMIT`, the rest counted. */
function pendingShown(names: readonly string[]): string {
  const shown = list(names.slice(0, SPEC_TOKEN_LIMIT).map(clipped));
  return names.length <= SPEC_TOKEN_LIMIT ? shown : `${shown} and ${names.length - SPEC_TOKEN_LIMIT} more`;
}

const available = (a: Available): string =>
  `Available groups: ${some(a.groups)}; presets: ${some(a.presets)}; namespaces: ${some(a.namespaces)}.`;

export const invalidNamespace = (): Diagnostic => ({
  code: 'ERR_NEMO_LENS_INVALID_NAMESPACE',
  message: 'nemo-lens: the namespace is empty. Register under your library\'s name, e.g. register("megatron", ["step"]).',
});

export const emptyGroupName = (namespace: string, raw: string): Diagnostic => ({
  code: 'ERR_NEMO_LENS_EMPTY_GROUP_NAME',
  message: `nemo-lens: namespace ${q(namespace)} lists group name ${q(raw)}, which is empty after trimming whitespace. Remove it or name the group.`,
});

export const reservedGroupName = (namespace: string, raw: string): Diagnostic => ({
  code: 'ERR_NEMO_LENS_RESERVED_GROUP_NAME',
  message: `nemo-lens: namespace ${q(namespace)} lists group name ${q(raw)}, which normalises to "all", reserved for every registered group. Rename the group.`,
});

export const reservedPresetName = (namespace: string, raw: string): Diagnostic => ({
  code: 'ERR_NEMO_LENS_RESERVED_PRESET_NAME',
  message: `nemo-lens: namespace ${q(namespace)} defines preset ${q(raw)}, which normalises to "all", reserved for every registered group. Rename the preset.`,
});

export const namespaceRegistered = (namespace: string): Diagnostic => ({
  code: 'ERR_NEMO_LENS_NAMESPACE_REGISTERED',
  message: `nemo-lens: namespace ${q(namespace)} is already registered. Register it once, or pass { allowOverride: true } to replace its groups and presets.`,
});

export const namespaceNotRegistered = (namespace: string, namespaces: readonly string[]): Diagnostic => ({
  code: 'ERR_NEMO_LENS_NAMESPACE_NOT_REGISTERED',
  message: `nemo-lens: namespace ${q(namespace)} is not registered (namespaces are case-sensitive). Registered namespaces: ${list(namespaces)}.`,
});

export const groupShared = (namespace: string, other: string, groups: readonly string[]): Diagnostic => ({
  code: 'NEMO_LENS_GROUP_SHARED',
  message: `nemo-lens: namespace ${q(namespace)} registers ${list(groups)}, also registered by namespace ${q(other)}; the group is shared: one gate turns on both libraries' spans. Pass { allowOverride: true } if this is intended.`,
});

export const presetMemberUnregistered = (namespace: string, preset: string, members: readonly string[]): Diagnostic => ({
  code: 'NEMO_LENS_PRESET_MEMBER_UNREGISTERED',
  message: `nemo-lens: preset ${q(preset)} of namespace ${q(namespace)} names ${list(members)}, which no namespace has registered; kept and ignored until a namespace registers it (or a typo).`,
});

export const lateRegistration = (namespace: string): Diagnostic => ({
  code: 'NEMO_LENS_LATE_REGISTRATION',
  message: `nemo-lens: namespace ${q(namespace)} registered after setupTelemetry(); its groups take effect from now on. Register span groups when your library is imported, before setup.`,
});

export const noGroupsRegistered = (spec: string): Diagnostic => ({
  code: 'NEMO_LENS_NO_GROUPS_REGISTERED',
  message: `nemo-lens: span-group spec ${specShown(spec)} selects nothing: no span groups are registered in this process. Import the libraries that register them before setup, or check NEMO_LENS_SPAN_GROUPS.`,
});

/** ` Did you mean "per_step" for "per_stpe", ...?` for the pending tokens close to a registered group or preset (see suggest.ts), or nothing. */
const didYouMean = (pending: readonly string[], a: Available): string => {
  const found = suggestions(pending, a.groups, a.presets);
  return found.length === 0 ? '' : ` Did you mean ${found.map(([token, name]) => `${q(name)} for ${q(token)}`).join(', ')}?`;
};

export const specPending = (spec: string, pending: readonly string[], a: Available): Diagnostic => ({
  code: 'NEMO_LENS_SPEC_PENDING',
  message: `nemo-lens: span-group spec ${specShown(spec)} names ${pendingShown(pending)}, which nothing in this process registers; pending until a library registers it (fine when another process of the job owns it; otherwise a typo). ${available(a)}${didYouMean(pending, a)}`,
});

export const specResolvedEmpty = (spec: string, a: Available): Diagnostic => ({
  code: 'NEMO_LENS_SPEC_RESOLVED_EMPTY',
  message: `nemo-lens: span-group spec ${specShown(spec)} resolved to no groups (its presets are empty here), so no spans will be emitted. ${available(a)}`,
});

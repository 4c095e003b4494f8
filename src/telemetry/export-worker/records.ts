/**
 * Spans as they cross the ring: a compact JSON array per span start and per span end, and
 * back into objects the OTLP exporters accept (they read only the ReadableSpan fields).
 *
 * The start record exists so the worker knows which spans are open while the main thread
 * cannot tell it anything (a synchronous hang): it is what in-progress snapshots are cut
 * from (see in-progress.ts). It carries the attributes given at start; attributes set later
 * arrive with the end record.
 *
 * Positional arrays, written by concatenation (below): the cheapest serialisation measured
 * here for the main thread (the worker pays for parsing). The end record carries only what
 * the start did not (the worker joins them by span id). Attribute values are JSON values
 * already, except non-finite numbers, which become null.
 */
import type { SpanKind, Attributes, HrTime, Link, SpanContext, SpanStatusCode } from '@opentelemetry/api';
import { TraceState } from '@opentelemetry/core';
import type { Resource } from '@opentelemetry/resources';
import type { ReadableSpan, Span, TimedEvent } from '@opentelemetry/sdk-trace';

export const START = 0;
export const END = 1;

type EventRecord = [name: string, seconds: number, nanos: number, attributes: Attributes | null, dropped: number];
type LinkRecord = [traceId: string, spanId: string, traceFlags: number, traceState: string | null, attributes: Attributes | null, dropped: number];

export type StartRecord = [
  kind: typeof START,
  traceId: string,
  spanId: string,
  traceFlags: number,
  traceState: string | null,
  parentSpanId: string | null,
  parentIsRemote: 0 | 1,
  name: string,
  spanKind: number,
  startSeconds: number,
  startNanos: number,
  attributes: Attributes,
  scopeName: string,
  scopeVersion: string | null,
];

/** What the worker does not know from the start record (keyed by the span id). */
export type EndRecord = [
  kind: typeof END,
  spanId: string,
  name: string,
  endSeconds: number,
  endNanos: number,
  statusCode: number,
  statusMessage: string | null,
  attributes: Attributes,
  events: EventRecord[] | 0,
  links: LinkRecord[] | 0,
  droppedAttributes: number,
  droppedEvents: number,
  droppedLinks: number,
];

export type SpanRecord = StartRecord | EndRecord;

// The records are written by concatenation, not by JSON.stringify of an array: ids are hex
// (from CryptoIdGenerator, or validated W3C headers) and numbers need no escaping, so only the
// name, the attributes and the rare fields go through JSON.stringify. A record that is not
// valid JSON all the same (an id that is not hex) is skipped by the worker, counted as lost.
let lastScope: object | undefined;
let lastScopeText = '';

function scopeText(scope: { name: string; version?: string }): string {
  if (scope !== lastScope) {
    lastScope = scope;
    lastScopeText = `${JSON.stringify(scope.name)},${scope.version === undefined ? 'null' : JSON.stringify(scope.version)}`;
  }
  return lastScopeText;
}

/** A span that has just started (the SDK's Span, which is also a ReadableSpan). */
export function startText(span: Span | ReadableSpan): string {
  const context = span.spanContext();
  const parent = span.parentSpanContext;
  const traceState = context.traceState === undefined ? 'null' : JSON.stringify(context.traceState.serialize());
  return (
    `[0,"${context.traceId}","${context.spanId}",${context.traceFlags},${traceState},` +
    `${parent === undefined ? 'null,0' : `"${parent.spanId}",${parent.isRemote === true ? 1 : 0}`},` +
    `${JSON.stringify(span.name)},${span.kind},${span.startTime[0]},${span.startTime[1]},${JSON.stringify(span.attributes)},${scopeText(span.instrumentationScope)}]`
  );
}

export function endText(span: ReadableSpan): string {
  const status = span.status;
  return (
    `[1,"${span.spanContext().spanId}",${JSON.stringify(span.name)},${span.endTime[0]},${span.endTime[1]},${status.code},` +
    `${status.message === undefined ? 'null' : JSON.stringify(status.message)},${JSON.stringify(span.attributes)},` +
    `${span.events.length === 0 ? 0 : JSON.stringify(span.events.map(eventRecord))},${span.links.length === 0 ? 0 : JSON.stringify(span.links.map(linkRecord))},` +
    `${span.droppedAttributesCount},${span.droppedEventsCount},${span.droppedLinksCount}]`
  );
}

function eventRecord(event: TimedEvent): EventRecord {
  return [event.name, event.time[0], event.time[1], event.attributes ?? null, event.droppedAttributesCount ?? 0];
}

function linkRecord(link: Link): LinkRecord {
  const c = link.context;
  return [c.traceId, c.spanId, c.traceFlags, c.traceState?.serialize() ?? null, link.attributes ?? null, link.droppedAttributesCount ?? 0];
}

/** What the worker keeps of an open span: its start record, parsed. */
export interface OpenSpan {
  readonly record: StartRecord;
  /** Length of the start record's text, for the queue's byte count. */
  readonly textLength: number;
  /** Snapshots exported so far, and when the last one was cut (ms since the epoch; the start at first). */
  snapshots: number;
  lastAtMs: number;
}

/** The fields of ReadableSpan the OTLP exporters read, from a start record and, once ended, its end record. */
export function toReadableSpan(
  record: StartRecord,
  ended: EndRecord | undefined,
  resource: Resource,
  overrides?: Partial<Pick<ReadableSpan, 'name' | 'endTime' | 'attributes' | 'links'>> & { spanId?: string },
): ReadableSpan {
  const [, traceId, spanId, traceFlags, traceState, parentSpanId, parentIsRemote, name, spanKind, s0, s1, attributes, scopeName, scopeVersion] = record;
  const context: SpanContext = { traceId, spanId: overrides?.spanId ?? spanId, traceFlags };
  if (traceState !== null) context.traceState = new TraceState(traceState);
  const startTime: HrTime = [s0, s1];
  const endTime: HrTime = overrides?.endTime ?? (ended ? [ended[3], ended[4]] : startTime);
  return {
    name: overrides?.name ?? (ended ? ended[2] : name),
    kind: spanKind as SpanKind,
    spanContext: () => context,
    parentSpanContext: parentSpanId === null ? undefined : { traceId, spanId: parentSpanId, traceFlags, isRemote: parentIsRemote === 1 },
    startTime,
    endTime,
    status: ended ? { code: ended[5] as SpanStatusCode, ...(ended[6] === null ? {} : { message: ended[6] }) } : { code: 0 as SpanStatusCode },
    attributes: overrides?.attributes ?? (ended ? ended[7] : attributes),
    links: overrides?.links ?? (ended && ended[9] !== 0 ? ended[9].map(toLink) : []),
    events: ended && ended[8] !== 0 ? ended[8].map(toEvent) : [],
    duration: hrDiff(startTime, endTime),
    ended: true,
    resource,
    instrumentationScope: scopeVersion === null ? { name: scopeName } : { name: scopeName, version: scopeVersion },
    droppedAttributesCount: ended ? ended[10] : 0,
    droppedEventsCount: ended ? ended[11] : 0,
    droppedLinksCount: ended ? ended[12] : 0,
  };
}

function toEvent([name, seconds, nanos, attributes, dropped]: EventRecord): TimedEvent {
  return { name, time: [seconds, nanos], ...(attributes === null ? {} : { attributes }), droppedAttributesCount: dropped };
}

function toLink([traceId, spanId, traceFlags, traceState, attributes, dropped]: LinkRecord): Link {
  const context: SpanContext = { traceId, spanId, traceFlags };
  if (traceState !== null) context.traceState = new TraceState(traceState);
  return { context, ...(attributes === null ? {} : { attributes }), droppedAttributesCount: dropped };
}

function hrDiff(start: HrTime, end: HrTime): HrTime {
  let seconds = end[0] - start[0];
  let nanos = end[1] - start[1];
  if (nanos < 0) {
    seconds -= 1;
    nanos += 1e9;
  }
  return [seconds, nanos];
}

/** Roughly what a span costs in memory and on the wire, for the byte-bounded queue. */
export function recordBytes(startText: number, endText: number): number {
  // The parsed records and the ReadableSpan built from them hold about twice the JSON text.
  return 2 * (startText + endText) + 256;
}


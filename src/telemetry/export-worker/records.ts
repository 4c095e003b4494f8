/**
 * Spans as they cross the ring: a compact JSON array per span start and per span end, and
 * back into objects the OTLP exporters accept (they read only the ReadableSpan fields).
 *
 * The start record exists so the worker knows which spans are open while the main thread
 * cannot tell it anything (a synchronous hang): it is what in-progress snapshots are cut
 * from (see in-progress.ts). It carries the attributes given at start; attributes set later
 * arrive with the end record.
 *
 * Arrays, not objects: `JSON.stringify` of a positional array is the cheapest serialisation
 * measured here for the main thread (the worker pays for parsing). Attribute values are
 * JSON values already, except non-finite numbers, which become null.
 */
import { SpanKind, type Attributes, type HrTime, type Link, type SpanContext, type SpanStatusCode } from '@opentelemetry/api';
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

export type EndRecord = [
  kind: typeof END,
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
  endSeconds: number,
  endNanos: number,
  statusCode: number,
  statusMessage: string | null,
  events: EventRecord[] | 0,
  links: LinkRecord[] | 0,
  droppedAttributes: number,
  droppedEvents: number,
  droppedLinks: number,
];

export type SpanRecord = StartRecord | EndRecord;

/** A span that has just started (the SDK's Span, which is also a ReadableSpan). */
export function startText(span: Span | ReadableSpan): string {
  const context = span.spanContext();
  const parent = span.parentSpanContext;
  const scope = span.instrumentationScope;
  return JSON.stringify([
    START,
    context.traceId,
    context.spanId,
    context.traceFlags,
    context.traceState?.serialize() ?? null,
    parent?.spanId ?? null,
    parent?.isRemote ? 1 : 0,
    span.name,
    span.kind,
    span.startTime[0],
    span.startTime[1],
    span.attributes,
    scope.name,
    scope.version ?? null,
  ] satisfies StartRecord);
}

export function endText(span: ReadableSpan): string {
  const context = span.spanContext();
  const parent = span.parentSpanContext;
  const scope = span.instrumentationScope;
  return JSON.stringify([
    END,
    context.traceId,
    context.spanId,
    context.traceFlags,
    context.traceState?.serialize() ?? null,
    parent?.spanId ?? null,
    parent?.isRemote ? 1 : 0,
    span.name,
    span.kind,
    span.startTime[0],
    span.startTime[1],
    span.attributes,
    scope.name,
    scope.version ?? null,
    span.endTime[0],
    span.endTime[1],
    span.status.code,
    span.status.message ?? null,
    span.events.length === 0 ? 0 : span.events.map(eventRecord),
    span.links.length === 0 ? 0 : span.links.map(linkRecord),
    span.droppedAttributesCount,
    span.droppedEventsCount,
    span.droppedLinksCount,
  ] satisfies EndRecord);
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
  /** Snapshots exported so far, and when the last one was cut (ms since the epoch; the start at first). */
  snapshots: number;
  lastAtMs: number;
}

/** The fields of ReadableSpan the OTLP exporters read, built from a record. */
export function toReadableSpan(record: SpanRecord, resource: Resource, overrides?: Partial<Pick<ReadableSpan, 'name' | 'endTime' | 'attributes' | 'links'>> & { spanId?: string }): ReadableSpan {
  const [, traceId, spanId, traceFlags, traceState, parentSpanId, parentIsRemote, name, spanKind, s0, s1, attributes, scopeName, scopeVersion] = record;
  const ended = record[0] === END ? record : undefined;
  const context: SpanContext = { traceId, spanId: overrides?.spanId ?? spanId, traceFlags };
  if (traceState !== null) context.traceState = new TraceState(traceState);
  const startTime: HrTime = [s0, s1];
  const endTime: HrTime = overrides?.endTime ?? (ended ? [ended[14], ended[15]] : startTime);
  return {
    name: overrides?.name ?? name,
    kind: spanKind as SpanKind,
    spanContext: () => context,
    parentSpanContext: parentSpanId === null ? undefined : { traceId, spanId: parentSpanId, traceFlags, isRemote: parentIsRemote === 1 },
    startTime,
    endTime,
    status: ended ? { code: ended[16] as SpanStatusCode, ...(ended[17] === null ? {} : { message: ended[17] }) } : { code: 0 as SpanStatusCode },
    attributes: overrides?.attributes ?? attributes,
    links: overrides?.links ?? (ended && ended[19] !== 0 ? ended[19].map(toLink) : []),
    events: ended && ended[18] !== 0 ? ended[18].map(toEvent) : [],
    duration: hrDiff(startTime, endTime),
    ended: true,
    resource,
    instrumentationScope: scopeVersion === null ? { name: scopeName } : { name: scopeName, version: scopeVersion },
    droppedAttributesCount: ended ? ended[20] : 0,
    droppedEventsCount: ended ? ended[21] : 0,
    droppedLinksCount: ended ? ended[22] : 0,
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
export function recordBytes(text: string): number {
  // The parsed record and the ReadableSpan built from it hold about twice the JSON text.
  return 2 * text.length + 256;
}

export { SpanKind };

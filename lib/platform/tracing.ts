import { AsyncLocalStorage } from 'node:async_hooks';
import { randomFillSync } from 'node:crypto';
import { createSocket, type Socket } from 'node:dgram';
import { serviceName } from './log';
import { withMetrics } from './metrics';
import { type LambdaTracing, lambdaTracing } from './runtime';

// Traces as X-Ray segment documents, recorded by this module on AsyncLocalStorage, the same on AWS
// and locally. On Lambda (active tracing, TRACES_ENABLED not `false`), each invocation's work is a
// subsegment of the function segment that Lambda opens, and the documents go to the X-Ray daemon
// over UDP, as the X-Ray SDK sends them. Locally, the runtime (infra/local/emulators/lambda.ts) opens each
// invocation's segment itself and keeps the documents in memory for the console
// (infra/local/emulators/traces.ts); with LOCAL_TRACES=false it opens none, and nothing here records. The
// X-Ray SDK is not used: its context tracking (cls-hooked) cost the request path about 8% of the
// Node thread, even with tracing off.
//
// One trace follows a payment across every hop: the trace header (X-Amzn-Trace-Id's
// `Root=…;Parent=…;Sampled=1`) travels in the outbox item (lib/platform/tx.ts), on the bus's entries
// (TraceHeader) and the queues' messages (AWSTraceHeader, lib/platform/events/relay.ts), and on outgoing
// HTTP requests (tracedFetch, under lib/platform/net/fetch.ts's boundedFetch: webhooks, ILP packets to a
// peer's connector, Open Payments reads).
export const TRACE_HEADER = 'X-Amzn-Trace-Id';

// The fields of a segment document that this service writes (X-Ray's segment document schema).
export interface TraceDocument {
  id: string;
  name: string;
  start_time: number; // epoch seconds, fractional
  end_time?: number;
  trace_id?: string; // on documents sent by themselves (segments and independent subsegments)
  parent_id?: string;
  type?: 'subsegment'; // a subsegment sent by itself
  origin?: string; // 'AWS::Lambda::Function', 'AWS::ApiGateway::Stage'
  namespace?: 'aws' | 'remote'; // a call to an AWS service, or to another HTTP service
  aws?: { operation?: string; table_name?: string; queue_url?: string; request_id?: string; retries?: number };
  http?: { request?: { method: string; url: string }; response?: { status: number } };
  annotations?: Record<string, string | number | boolean>;
  error?: boolean; // a 4xx
  throttle?: boolean; // a 429
  fault?: boolean; // anything else that failed
  cause?: { exceptions: Array<{ message: string; type?: string }> };
  subsegments?: TraceDocument[];
}

// Where finished documents go: the X-Ray daemon on Lambda, the runtime's store locally.
export type TraceSink = (doc: TraceDocument) => void;

// Ids from a pool of random bytes, refilled 4 KB at a time: a span costs no system call of its own.
const pool = Buffer.alloc(4096);
let used = pool.length;
function randomHex(bytes: number): string {
  if (used + bytes > pool.length) {
    randomFillSync(pool);
    used = 0;
  }
  used += bytes;
  return pool.toString('hex', used - bytes, used);
}
const newId = () => randomHex(8);
const newTraceId = () =>
  `1-${Math.floor(Date.now() / 1000)
    .toString(16)
    .padStart(8, '0')}-${randomHex(12)}`;
const nowSecs = () => (performance.timeOrigin + performance.now()) / 1000;

interface TraceContext {
  root: string;
  parent?: string;
  sampled: boolean;
}

// A trace header's root, parent and sampling decision (absent or undecided counts as sampled: the
// receiver decides); undefined when it names no valid trace.
export function parseTraceHeader(header: string | undefined): TraceContext | undefined {
  if (!header) return undefined;
  const fields = new Map(
    header.split(';').map((part) => {
      const eq = part.indexOf('=');
      return [part.slice(0, eq).trim(), part.slice(eq + 1).trim()] as const;
    }),
  );
  const root = fields.get('Root');
  if (!root || !/^1-[0-9a-f]{8}-[0-9a-f]{24}$/.test(root)) return undefined;
  const parent = fields.get('Parent');
  return { root, ...(parent && /^[0-9a-f]{16}$/.test(parent) && { parent }), sampled: fields.get('Sampled') !== '0' };
}

const traceHeaderOf = (root: string, parent: string) => `Root=${root};Parent=${parent};Sampled=1`;

// What an error makes of a document: an AWS or HTTP 4xx is the caller's error (429 a throttle), a
// 5xx or anything else a fault.
function markFailed(doc: TraceDocument, error: unknown): void {
  const status = (error as { $metadata?: { httpStatusCode?: number } })?.$metadata?.httpStatusCode;
  if (status === 429) doc.throttle = true;
  if (status !== undefined && status >= 400 && status < 500) doc.error = true;
  else doc.fault = true;
  const e = error as Error;
  doc.cause = { exceptions: [{ message: String(e?.message ?? error).slice(0, 500), type: e?.name }] };
}

// An open segment or subsegment. A segment, or a subsegment of Lambda's function segment (which
// Lambda sends itself: a facade here), goes to its sink by itself when it ends; any other
// subsegment goes within its parent's document.
export class Span {
  private constructor(
    readonly traceId: string,
    readonly doc: TraceDocument,
    readonly sink: TraceSink,
    private readonly role: 'segment' | 'facade' | 'subsegment' | 'independent',
    readonly service: string, // the name of the segment it is part of: the function, the API
  ) {}

  // A segment of its own, in the trace that `header` names (under its parent), or in a new trace
  // without one; undefined when the header says the trace is not sampled.
  static segment(name: string, header: string | undefined, sink: TraceSink, fields: Partial<TraceDocument> = {}): Span | undefined {
    const context = parseTraceHeader(header);
    if (context && !context.sampled) return undefined;
    const traceId = context?.root ?? newTraceId();
    const doc: TraceDocument = {
      id: newId(),
      name,
      start_time: nowSecs(),
      trace_id: traceId,
      ...(context?.parent && { parent_id: context.parent }),
      ...fields,
    };
    return new Span(traceId, doc, sink, 'segment', name);
  }

  // Lambda's function segment, which Lambda records and sends: only its children are ours to send.
  static facade(context: TraceContext & { parent: string }, name: string, sink: TraceSink): Span {
    return new Span(context.root, { id: context.parent, name, start_time: 0 }, sink, 'facade', name);
  }

  // The header that continues this trace beneath this span (on a message, a request, an outbox item).
  get header(): string {
    return traceHeaderOf(this.traceId, this.doc.id);
  }

  child(name: string, fields: Partial<TraceDocument> = {}, startTime = nowSecs()): Span {
    const doc: TraceDocument = { id: newId(), name, start_time: startTime, ...fields };
    if (this.role === 'facade') {
      return new Span(this.traceId, { ...doc, type: 'subsegment', trace_id: this.traceId, parent_id: this.doc.id }, this.sink, 'independent', this.service);
    }
    this.doc.subsegments ??= [];
    this.doc.subsegments.push(doc);
    return new Span(this.traceId, doc, this.sink, 'subsegment', this.service);
  }

  // An HTTP answer's status: a 4xx is the caller's error (429 a throttle), a 5xx a fault.
  respond(status: number): void {
    this.doc.http = { ...this.doc.http, response: { status } };
    if (status === 429) this.doc.throttle = true;
    if (status >= 400) this.doc[status < 500 ? 'error' : 'fault'] = true;
  }

  annotate(key: string, value: string | number | boolean): void {
    this.doc.annotations ??= {};
    this.doc.annotations[key] = value;
  }

  end(error?: unknown, endTime = nowSecs()): void {
    if (this.doc.end_time !== undefined) return;
    this.doc.end_time = endTime;
    if (error !== undefined) markFailed(this.doc, error);
    if (this.role === 'segment' || this.role === 'independent') this.sink(this.doc);
  }
}

const active = new AsyncLocalStorage<Span>();
export const currentSpan = (): Span | undefined => active.getStore();

// Runs `fn` with `span` current, and ends the span when `fn` settles (with its error, if it throws).
export async function runInSpan<T>(span: Span | undefined, fn: () => Promise<T>): Promise<T> {
  if (!span) return fn();
  try {
    const result = await active.run(span, fn);
    span.end();
    return result;
  } catch (e) {
    span.end(e);
    throw e;
  }
}

// The header for what the current work sends on (a message, a request, an outbox item).
export const currentTraceHeader = (): string | undefined => currentSpan()?.header;

// An X-Ray annotation (indexed: `annotation.paymentId = "…"` finds a payment's traces in the X-Ray
// console; the local console's trace link looks payments up the same way).
export const annotate = (key: string, value: string | number | boolean) => currentSpan()?.annotate(key, value);

// On Lambda: the daemon's address (AWS_XRAY_DAEMON_ADDRESS, "host:port", or "tcp:h:p udp:h:p"),
// read once. Documents are sent as UDP datagrams of at most 64 KB; a bigger one goes as its
// subsegments, each by itself, then the rest.
const MAX_DATAGRAM = 63 * 1024;
const DAEMON_PREFIX = '{"format":"json","version":1}\n';
let daemon: TraceSink | undefined;

function daemonSink(lambda: LambdaTracing): TraceSink {
  if (daemon) return daemon;
  const address = lambda.daemonAddress;
  const udp = /udp:([^\s]+)/.exec(address)?.[1] ?? address;
  const colon = udp.lastIndexOf(':');
  const host = udp.slice(0, colon);
  const port = Number(udp.slice(colon + 1));
  let socket: Socket | undefined;
  const send = (doc: TraceDocument) => {
    const text = JSON.stringify(doc);
    if (text.length > MAX_DATAGRAM && doc.subsegments?.length) {
      const { subsegments, ...rest } = doc;
      for (const sub of subsegments) send({ ...sub, type: 'subsegment', trace_id: doc.trace_id, parent_id: doc.id });
      return send(rest);
    }
    if (!socket) {
      socket = createSocket('udp4');
      socket.unref();
      socket.on('error', () => undefined); // tracing never fails an invocation
    }
    socket.send(DAEMON_PREFIX + text, port, host);
  };
  daemon = send;
  return daemon;
}

// Where a document recorded outside any span goes: the daemon on Lambda, nowhere elsewhere.
function sinkHere(): TraceSink | undefined {
  const sink = currentSpan()?.sink;
  if (sink) return sink;
  const lambda = lambdaTracing();
  return lambda && daemonSink(lambda);
}

// Lambda's function segment for this invocation, from the trace header Lambda sets; undefined away
// from Lambda, with tracing off, or when X-Ray did not sample this invocation.
function lambdaFacade(lambda: LambdaTracing): Span | undefined {
  const context = parseTraceHeader(lambda.traceHeader);
  if (!context?.parent || !context.sampled) return undefined;
  return Span.facade({ ...context, parent: context.parent }, lambda.functionName, daemonSink(lambda));
}

// A segment in the trace that `header` names, for work done on behalf of a record that came with
// it: the outbox relay's sending of one outbox item (its caller ends it). Undefined when the record
// carries no trace or nothing here records.
export function startSegmentFor(header: string | undefined): Span | undefined {
  const sink = header && sinkHere();
  const name = currentSpan()?.service ?? lambdaTracing()?.functionName ?? 'function';
  return sink ? Span.segment(name, header, sink, { origin: 'AWS::Lambda::Function' }) : undefined;
}

// Runs the work of one record of a batch (an SQS message) in the trace the record carries: in a
// segment of its own in that trace, as Lambda hands a batch of messages from several traces to one
// invocation; or as it is when the invocation already is in that trace (the local runtime hands
// one message per invocation, and continues its trace).
export function continueTrace<T>(header: string | undefined, fn: () => Promise<T>): Promise<T> {
  const context = parseTraceHeader(header);
  if (!context || currentSpan()?.traceId === context.root) return fn();
  return runInSpan(startSegmentFor(header), fn);
}

// An HTTP request to another service as a subsegment (X-Ray's `remote` namespace), sent with the
// trace header, so that a traced receiver (a peer's connector, the local FSP) continues the trace.
export async function tracedFetch(input: string | URL | Request, init: RequestInit | undefined, send: typeof fetch): Promise<Response> {
  const parent = currentSpan();
  if (!parent) return send(input, init);
  const { origin, pathname, host } = new URL(input instanceof Request ? input.url : input);
  const method = init?.method ?? (input instanceof Request ? input.method : 'GET');
  const span = parent.child(host, { namespace: 'remote', http: { request: { method, url: origin + pathname } } });
  try {
    const res = await (input instanceof Request
      ? send(withHeader(new Request(input, init), span.header))
      : send(input, { ...init, headers: headersWith(init?.headers, span.header) }));
    span.respond(res.status);
    span.end();
    return res;
  } catch (e) {
    span.end(e);
    throw e;
  }
}

const withHeader = (request: Request, header: string) => {
  request.headers.set(TRACE_HEADER, header);
  return request;
};

// The request's headers and the trace header, in the form they were given (a plain object costs
// least: a Headers or a Request takes tens of microseconds to make).
function headersWith(headers: HeadersInit | undefined, header: string): HeadersInit {
  if (headers instanceof Headers) {
    const copy = new Headers(headers);
    copy.set(TRACE_HEADER, header);
    return copy;
  }
  if (Array.isArray(headers)) return [...headers, [TRACE_HEADER, header]];
  return { ...headers, [TRACE_HEADER]: header };
}

// Every function's handler: its metrics published when it ends, and on Lambda, its work traced in
// a subsegment of the invocation's function segment, annotated with the cold start. (Locally the
// runtime opens the invocation's segment, and the work is traced in that.)
let coldStart = true;
export const observed = <E, C, R>(handler: (event: E, context: C) => Promise<R>) =>
  withMetrics(async (event: E, context: C): Promise<R> => {
    const cold = coldStart;
    coldStart = false;
    const lambda = currentSpan() ? undefined : lambdaTracing();
    const facade = lambda && lambdaFacade(lambda);
    if (!facade) return handler(event, context);
    const span = facade.child(`## ${lambda.handler}`, { annotations: { ColdStart: cold, Service: serviceName } });
    return runInSpan(span, () => handler(event, context));
  });

import { describe, expect, it } from 'vitest';
import { spansOf, spansUnder, TraceStore } from '../../infra/local/emulators/traces';
import { ROUTE_ANNOTATION, TENANT_ANNOTATION } from '../../lib/platform/trace-annotations';
import { parseTraceHeader, Span, type TraceDocument } from '../../lib/platform/tracing';

// The trace recorder's rules (lib/platform/tracing.ts) and the local store's bounds (infra/local/emulators/traces.ts).
const ROOT = '1-6a000000-0123456789abcdef01234567';

describe('the trace header', () => {
  it('reads the root, the parent and the sampling decision, and ignores the fields it does not use', () => {
    expect(parseTraceHeader(`Root=${ROOT};Parent=53995c3f42cd8ad8;Sampled=1;Lineage=a87bd80c:1`)).toEqual({
      root: ROOT,
      parent: '53995c3f42cd8ad8',
      sampled: true,
    });
    expect(parseTraceHeader(`Root=${ROOT}`)).toEqual({ root: ROOT, sampled: true }); // the receiver decides
    expect(parseTraceHeader(`Root=${ROOT};Parent=53995c3f42cd8ad8;Sampled=0`)?.sampled).toBe(false);
    expect(parseTraceHeader(`Root=${ROOT};Parent=not-an-id`)).toEqual({ root: ROOT, sampled: true });
  });

  it('names no trace without a valid root', () => {
    for (const header of [undefined, '', 'Parent=53995c3f42cd8ad8', 'Root=1-xyz;Sampled=1', `Root=2${ROOT.slice(1)}`])
      expect(parseTraceHeader(header)).toBeUndefined();
  });
});

describe('spans', () => {
  it('sends a segment once, when it ends, with its subsegments within it; and continues its trace beneath the span asked', () => {
    const sent: TraceDocument[] = [];
    const segment = Span.segment('fn', `Root=${ROOT};Parent=1111222233334444;Sampled=1`, (d) => sent.push(d))!;
    const call = segment.child('DynamoDB', { namespace: 'aws', aws: { operation: 'GetItem' } });
    expect(call.header).toBe(`Root=${ROOT};Parent=${call.doc.id};Sampled=1`);
    call.end(Object.assign(new Error('no'), { $metadata: { httpStatusCode: 400 } }));
    expect(sent).toEqual([]);
    segment.end();
    segment.end();
    expect(sent).toEqual([
      expect.objectContaining({
        name: 'fn',
        trace_id: ROOT,
        parent_id: '1111222233334444',
        subsegments: [expect.objectContaining({ name: 'DynamoDB', error: true, cause: { exceptions: [{ message: 'no', type: 'Error' }] } })],
      }),
    ]);
  });

  it('starts a new trace without a header, and records nothing in a trace its caller did not sample', () => {
    const sink = () => undefined;
    expect(Span.segment('fn', undefined, sink)!.traceId).toMatch(/^1-[0-9a-f]{8}-[0-9a-f]{24}$/);
    expect(Span.segment('fn', `Root=${ROOT};Parent=1111222233334444;Sampled=0`, sink)).toBeUndefined();
  });

  it("sends a subsegment of Lambda's function segment by itself, naming its trace and parent", () => {
    const sent: TraceDocument[] = [];
    const facade = Span.facade({ root: ROOT, parent: '53995c3f42cd8ad8', sampled: true }, 'worker', (d) => sent.push(d));
    const work = facade.child('## handler');
    work.respond(503);
    work.end();
    expect(sent).toEqual([
      expect.objectContaining({
        type: 'subsegment',
        name: '## handler',
        trace_id: ROOT,
        parent_id: '53995c3f42cd8ad8',
        fault: true,
        http: { response: { status: 503 } },
      }),
    ]);
  });
});

describe('the local trace store', () => {
  const traceId = (trace: number) => `1-6a000000-${`${trace}`.padStart(24, '0')}`;
  const doc = (trace: number, fields: Partial<TraceDocument> = {}): TraceDocument => ({
    id: `${trace}`.padStart(16, '0'),
    name: 'fn',
    trace_id: traceId(trace),
    start_time: trace,
    end_time: trace + 0.01,
    ...fields,
  });

  it('keeps the last thousand traces it was added to, lists them strictly newest first, and finds them by annotation, nested ones too', () => {
    const store = new TraceStore();
    for (let t = 0; t < 1005; t++)
      store.sink(doc(t, { subsegments: [{ id: 'a'.repeat(16), name: 'x', start_time: t, annotations: { paymentId: `p${t % 10}` } }] }));
    store.sink(doc(1000, { id: 'late'.padStart(16, '0'), start_time: 2000 })); // trace 1000 again, late (a retry): it keeps its place
    expect(store.recent(5).map((s) => s.id)).toEqual([1004, 1003, 1002, 1001, 1000].map(traceId));
    expect(store.trace(traceId(1))).toBeUndefined(); // forgotten, with its annotations
    // Newest first, at most 20: 1001, 991, … (1 is forgotten).
    const p1 = Array.from({ length: 20 }, (_, i) => traceId(1001 - 10 * i));
    expect(store.annotated('paymentId', 'p1').map((t) => t.id)).toEqual(p1);
    expect(store.recent(20, { key: 'paymentId', value: 'p1' }).map((s) => [s.id, s.name, s.documents])).toEqual(p1.map((id) => [id, 'fn', 1]));
  });

  it("shows a tenant's staff the traces of that tenant alone: not one of no tenant, nor one another tenant's work is in too", () => {
    const store = new TraceStore();
    const of = (...tenants: string[]) => ({
      subsegments: tenants.map((t) => ({ id: 'b'.repeat(16), name: 'x', start_time: 1, annotations: { [TENANT_ANNOTATION]: t } })),
    });
    store.sink(doc(1, of('t1')));
    store.sink(doc(2, { ...of('t1', 't2'), annotations: { paymentId: 'p' } })); // a payment from t1 to t2, say
    store.sink(doc(3, of('t2')));
    store.sink(doc(4, { annotations: { paymentId: 'p' } })); // refused before its tenant was found
    store.sink(doc(5, of('t1', 't1')));
    const ids = (tenant?: string, annotation?: { key: string; value: string }) => store.recent(10, annotation, tenant).map((s) => s.id);
    expect(ids('t1')).toEqual([5, 1].map(traceId));
    expect(ids('t2')).toEqual([traceId(3)]);
    expect(ids()).toEqual([5, 4, 3, 2, 1].map(traceId));
    expect(ids('t1', { key: 'paymentId', value: 'p' })).toEqual([]);
    expect(ids(undefined, { key: 'paymentId', value: 'p' })).toEqual([4, 2].map(traceId));
    expect([1, 2, 3, 4].map((t) => store.trace(traceId(t), 't1')?.id)).toEqual([traceId(1), undefined, undefined, undefined]);
    expect(store.trace(traceId(2))?.id).toBe(traceId(2));
  });

  it('names a trace by the route of the request it began with, as the gateway annotates it, else by its first span', () => {
    const store = new TraceStore();
    store.sink(doc(1, { name: 'payment-service-local-admin', annotations: { [ROUTE_ANNOTATION]: 'POST /payments/{id}/fund' } }));
    store.sink(doc(2, { name: 'paymentsWorker' }));
    expect(store.recent(2).map((s) => s.name)).toEqual(['paymentsWorker', 'POST /payments/{id}/fund']);
  });

  it('orders spans as a waterfall: each followed by those under it, by start, through parent ids across documents', () => {
    const request = { id: 'r'.repeat(16), name: 'api', trace_id: ROOT, start_time: 1, end_time: 2 };
    const fn: TraceDocument = {
      id: 'f'.repeat(16),
      name: 'fn',
      trace_id: ROOT,
      parent_id: request.id,
      start_time: 1.1,
      end_time: 1.9,
      subsegments: [
        { id: 'b'.repeat(16), name: 'second', start_time: 1.5, end_time: 1.6 },
        { id: 'a'.repeat(16), name: 'first', start_time: 1.2, end_time: 1.3 },
      ],
    };
    const relay = { id: 'e'.repeat(16), name: 'relay', trace_id: ROOT, parent_id: 'a'.repeat(16), start_time: 1.95, end_time: 2.1 };
    const spans = spansOf([relay, fn, request]);
    expect(spans.map((s) => [s.name, s.depth])).toEqual([
      ['api', 0],
      ['fn', 1],
      ['first', 2],
      ['relay', 3],
      ['second', 2],
    ]);
    expect(spansUnder(spans, 1).map((s) => s.name)).toEqual(['first', 'relay', 'second']);
    expect(spansOf([relay]).map((s) => [s.name, s.depth])).toEqual([['relay', 0]]); // its parent elsewhere
  });
});

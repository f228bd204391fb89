import { ROUTE_ANNOTATION, TENANT_ANNOTATION } from '../../../lib/platform/trace-annotations';
import type { TraceDocument, TraceSink } from '../../../lib/platform/tracing';

// The local run's X-Ray: the segment documents that the gateways, the runtime and the functions
// record (lib/platform/tracing.ts), kept in memory while the stack runs, for the console's trace pages.
// Recording a document only appends it to a list; a timer folds the list in every second, off the
// request path (a read folds it first). Bounded: the MAX_TRACES traces most recently added to, and
// at most MAX_DOCUMENTS documents in one. Annotations are indexed, as X-Ray indexes them, so that
// a payment's traces are found by its id (`annotation.paymentId` in X-Ray's filter expressions).
// Each read may be for one tenant's staff (`tenant`): they see the traces of that tenant alone, those
// whose every tenant annotation names it (lib/api/context.ts); a trace of no tenant (a request refused
// before its tenant was found) or of several (a schedule's run, a payment between two tenants) is
// the deployment operator's only. Without `tenant`, every trace.
const MAX_TRACES = 1000;
const MAX_DOCUMENTS = 500;
const FOLD_MS = 1000;

export interface Trace {
  id: string;
  documents: TraceDocument[];
}

export interface TraceSummary {
  id: string;
  name: string; // where the trace began: the route of the request it began with, or its first span's name
  start: number; // epoch seconds, of its first span
  ms: number; // from its first start to its last end
  documents: number;
  failed: boolean;
}

interface Kept {
  documents: TraceDocument[];
  start: number; // its documents' first start_time: the lists' order, newest first
  keys: Set<string>; // its annotations, as "<key>=<value>"
  tenants: Set<string>; // the tenants it was annotated with
}

const annotationKey = (key: string, value: unknown) => `${key}=${value}`;

export class TraceStore {
  private pending: TraceDocument[] = [];
  private readonly traces = new Map<string, Kept>(); // least recently added to first
  private readonly index = new Map<string, Set<string>>(); // annotation key -> trace ids

  readonly sink: TraceSink = (doc) => {
    this.pending.push(doc);
  };

  fold(): void {
    const docs = this.pending;
    this.pending = [];
    for (const doc of docs) this.add(doc);
  }

  private add(doc: TraceDocument): void {
    const id = doc.trace_id;
    if (!id) return;
    const kept = this.traces.get(id) ?? { documents: [], start: doc.start_time, keys: new Set<string>(), tenants: new Set<string>() };
    this.traces.delete(id); // re-added last: the most recently added to
    this.traces.set(id, kept);
    if (kept.documents.length >= MAX_DOCUMENTS) return;
    kept.documents.push(doc);
    kept.start = Math.min(kept.start, doc.start_time);
    const walk = (d: TraceDocument) => {
      for (const [k, v] of Object.entries(d.annotations ?? {})) {
        const key = annotationKey(k, v);
        kept.keys.add(key);
        if (k === TENANT_ANNOTATION) kept.tenants.add(String(v));
        if (!this.index.has(key)) this.index.set(key, new Set());
        this.index.get(key)!.add(id);
      }
      for (const sub of d.subsegments ?? []) walk(sub);
    };
    walk(doc);
    while (this.traces.size > MAX_TRACES) this.forget(this.traces.keys().next().value!);
  }

  private forget(id: string): void {
    for (const key of this.traces.get(id)?.keys ?? []) {
      const ids = this.index.get(key)!;
      ids.delete(id);
      if (!ids.size) this.index.delete(key);
    }
    this.traces.delete(id);
  }

  private visible(kept: Kept, tenant: string | undefined): boolean {
    return tenant === undefined || (kept.tenants.size === 1 && kept.tenants.has(tenant));
  }

  trace(id: string, tenant?: string): Trace | undefined {
    this.fold();
    const kept = this.traces.get(id);
    return kept && this.visible(kept, tenant) ? { id, documents: kept.documents } : undefined;
  }

  // The traces with this annotation, newest first.
  annotated(key: string, value: string, limit = 20): Trace[] {
    this.fold();
    return this.newestFirst(this.index.get(annotationKey(key, value)) ?? [], limit);
  }

  // What the newest traces are, first; with an annotation, of those that have it.
  recent(limit = 50, annotation?: { key: string; value: string }, tenant?: string): TraceSummary[] {
    this.fold();
    // (A tenant's through its index: the traces of other tenants are not looked at.)
    const by = annotation ?? (tenant === undefined ? undefined : { key: TENANT_ANNOTATION, value: tenant });
    const ids = by ? (this.index.get(annotationKey(by.key, by.value)) ?? []) : this.traces.keys();
    return this.newestFirst(ids, limit, tenant).map((t) => summaryOf(t.id, t.documents));
  }

  // Newest by when a trace began, strictly: one that a late document was added to (a webhook's
  // retry, say) keeps its place.
  private newestFirst(ids: Iterable<string>, limit: number, tenant?: string): Trace[] {
    return [...ids]
      .map((id) => ({ id, ...this.traces.get(id)! }))
      .filter((t) => this.visible(t, tenant))
      .sort((a, b) => b.start - a.start)
      .slice(0, limit)
      .map(({ id, documents }) => ({ id, documents }));
  }
}

function summaryOf(id: string, documents: TraceDocument[]): TraceSummary {
  const spans = spansOf(documents);
  const start = Math.min(...spans.map((d) => d.start_time));
  const end = Math.max(...spans.map((d) => d.end_time ?? d.start_time));
  // The first route in it: the request it began with (the console's, the Admin route it handed on).
  const route = spans.find((d) => typeof d.annotations?.[ROUTE_ANNOTATION] === 'string')?.annotations?.[ROUTE_ANNOTATION];
  return {
    id,
    name: typeof route === 'string' ? route : spans[0].name,
    start,
    ms: (end - start) * 1000,
    documents: documents.length,
    failed: spans.some((d) => d.fault || d.error),
  };
}

// One span of a trace: a document, or a subsegment within one, without its own subsegments; with
// the span it hangs under (its parent's id, or the document that holds it) and how deep.
export type TraceSpan = Omit<TraceDocument, 'subsegments'> & { parent?: string; depth: number };

// A trace's spans as a waterfall reads them: each followed by those under it, each level in order
// of start. A span whose parent the trace lacks (a caller that records nothing, another node) is
// a root.
export function spansOf(documents: TraceDocument[]): TraceSpan[] {
  const all: Array<Omit<TraceSpan, 'depth'>> = [];
  const walk = (d: TraceDocument, parent: string | undefined) => {
    const { subsegments, ...span } = d;
    all.push({ ...span, parent });
    for (const sub of subsegments ?? []) walk(sub, d.id);
  };
  for (const d of documents) walk(d, d.parent_id);
  const ids = new Set(all.map((s) => s.id));
  const under = new Map<string | undefined, typeof all>();
  for (const s of all) {
    const key = s.parent && ids.has(s.parent) ? s.parent : undefined;
    const siblings = under.get(key);
    if (siblings) siblings.push(s);
    else under.set(key, [s]);
  }
  const out: TraceSpan[] = [];
  const visit = (parent: string | undefined, depth: number) => {
    for (const s of (under.get(parent) ?? []).sort((a, b) => a.start_time - b.start_time)) {
      out.push({ ...s, depth });
      visit(s.id, depth + 1);
    }
  };
  visit(undefined, 0);
  return out;
}

// The spans beneath the one at `index` of spansOf's answer (which lists them right after it).
export function spansUnder(spans: TraceSpan[], index: number): TraceSpan[] {
  const end = spans.findIndex((s, i) => i > index && s.depth <= spans[index].depth);
  return spans.slice(index + 1, end < 0 ? undefined : end);
}

// The store and its timer, for one running stack.
export function startTraceStore() {
  const store = new TraceStore();
  const timer = setInterval(() => store.fold(), FOLD_MS);
  timer.unref();
  return { store, stop: async () => clearInterval(timer) };
}

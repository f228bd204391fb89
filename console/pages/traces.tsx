import type { ComponentChildren } from 'preact';
import { spansOf, type Trace, type TraceSpan, type TraceSummary } from '../../infra/local/emulators/traces';
import { trace, traces } from '../api';
import { Alert, time, useLoaded } from '../list';
import type { PageProps } from '../pages';

// The traces the local run records (X-Ray segment documents, lib/platform/tracing.ts): #/traces lists the
// recent ones, #/traces/payment/<id> shows a payment's, #/traces/<id> one; each as a waterfall of
// its spans (the requests, the functions' invocations, their AWS and HTTP calls), nested as they
// ran, on one time axis.
export function TracesPage({ args }: PageProps) {
  if (args[0] === 'payment' && args[1]) return <PaymentTraces paymentId={args[1]} />;
  if (args[0]) return <TraceView id={args[0]} />;
  return <RecentTraces />;
}

const ms = (n: number) => `${n.toLocaleString('en', { maximumFractionDigits: n < 10 ? 1 : 0 })} ms`;
const when = (epochSecs: number) => time(new Date(epochSecs * 1000).toISOString());

function Toolbar({ reload, error, children }: { reload: () => void; error?: string; children?: ComponentChildren }) {
  return (
    <div class="toolbar">
      {children}
      <button type="button" onClick={reload}>
        Reload
      </button>
      <Alert text={error} />
    </div>
  );
}

function RecentTraces() {
  const { value, error, reload } = useLoaded(() => traces(), 'recent');
  return (
    <div class="list">
      <Toolbar reload={reload} error={error}>
        <span>The last traces recorded, most recent first (the local run keeps the last 1,000)</span>
      </Toolbar>
      {value && <TraceList items={value.items} />}
    </div>
  );
}

function TraceList({ items }: { items: TraceSummary[] }) {
  return (
    <table class="records" aria-label="Traces">
      <thead>
        <tr>
          <th>Started</th>
          <th>Begins at</th>
          <th class="numeric">Duration</th>
          <th class="numeric">Documents</th>
          <th>Trace</th>
        </tr>
      </thead>
      <tbody>
        {items.map((t) => (
          <tr key={t.id} data-id={t.id}>
            <td>{when(t.start)}</td>
            <td>
              {t.name} {t.failed && <span class="state failed">failed</span>}
            </td>
            <td class="numeric">{ms(t.ms)}</td>
            <td class="numeric">{t.documents}</td>
            <td>
              <a href={`#/traces/${t.id}`}>
                <code>{t.id}</code>
              </a>
            </td>
          </tr>
        ))}
        {!items.length && (
          <tr>
            <td class="empty" colSpan={5}>
              Nothing here
            </td>
          </tr>
        )}
      </tbody>
    </table>
  );
}

// A payment's traces (those annotated with its id), oldest first: usually one, from its creation
// on, when the FSP's funding request carries the trace on.
function PaymentTraces({ paymentId }: { paymentId: string }) {
  const { value, error, reload } = useLoaded(async () => {
    const { items } = await traces(paymentId);
    return Promise.all(items.reverse().map((t) => trace(t.id)));
  }, paymentId);
  return (
    <div>
      <Toolbar reload={reload} error={error}>
        <span>
          Payment <code>{paymentId}</code>
        </span>
      </Toolbar>
      {value?.map((t) => (
        <Waterfall key={t.id} trace={t} />
      ))}
      {value && !value.length && <p class="empty">No trace of this payment is kept here (the local run keeps the last 1,000 traces).</p>}
    </div>
  );
}

function TraceView({ id }: { id: string }) {
  const { value, error, reload } = useLoaded(() => trace(id), id);
  return (
    <div>
      <Toolbar reload={reload} error={error} />
      {value && <Waterfall trace={value} />}
    </div>
  );
}

// What a span is, in a few words: the call and its target, the request and its answer.
function labelOf(s: TraceSpan): { what: string; detail?: string } {
  if (s.namespace === 'aws') return { what: `${s.name} ${s.aws?.operation ?? ''}`, detail: s.aws?.table_name ?? s.aws?.queue_url?.split('/').pop() };
  const { request, response } = s.http ?? {};
  const answer = response ? `→ ${response.status}` : '';
  if (request && s.namespace === 'remote') return { what: `${request.method} ${request.url.replace(/^https?:\/\//, '')}`, detail: answer };
  if (request) return { what: s.name, detail: `${request.method} ${new URL(request.url).pathname} ${answer}` };
  return { what: s.name, detail: s.annotations?.ColdStart ? 'cold start' : undefined };
}

function Waterfall({ trace: t }: { trace: Trace }) {
  const spans = spansOf(t.documents);
  const start = Math.min(...spans.map((s) => s.start_time));
  const end = Math.max(...spans.map((s) => s.end_time ?? s.start_time));
  const total = Math.max(end - start, 1e-6);
  const ancestors = new Map<string, string[]>();
  for (const s of spans) ancestors.set(s.id, s.parent && ancestors.has(s.parent) ? [...ancestors.get(s.parent)!, s.parent] : []);
  return (
    <section class="trace" aria-label="Trace" data-trace={t.id}>
      <h2>
        <a href={`#/traces/${t.id}`}>
          <code>{t.id}</code>
        </a>{' '}
        <span class="muted">
          {when(start)} · {ms(total * 1000)} · {spans.length} spans
        </span>
      </h2>
      <table class="waterfall">
        <colgroup>
          <col class="span-name" />
          <col class="detail" />
          <col class="duration" />
          <col />
        </colgroup>
        <thead>
          <tr>
            <th>Span</th>
            <th>Detail</th>
            <th class="numeric">Duration</th>
            <th>Timeline</th>
          </tr>
        </thead>
        <tbody>
          {spans.map((s) => {
            const { what, detail } = labelOf(s);
            const failed = s.fault || s.error;
            const left = ((s.start_time - start) / total) * 100;
            const width = (((s.end_time ?? s.start_time) - s.start_time) / total) * 100;
            return (
              <tr
                key={s.id}
                data-id={s.id}
                data-parent={s.parent}
                data-ancestors={ancestors.get(s.id)!.join(' ')}
                data-name={s.name}
                data-origin={s.origin}
                data-namespace={s.namespace}
                class={`${s.origin ? 'segment' : 'call'}${failed ? ' failed' : ''}`}
              >
                <td class="span-name" style={{ paddingLeft: `${8 + s.depth * 12}px` }} title={s.cause?.exceptions[0]?.message ?? what}>
                  {what}
                </td>
                <td class="muted" title={detail}>
                  {detail}
                </td>
                <td class="numeric">{s.end_time === undefined ? '…' : ms((s.end_time - s.start_time) * 1000)}</td>
                <td class="timeline">
                  <span class="bar" style={{ left: `${left}%`, width: `max(${width}%, 2px)` }} />
                </td>
              </tr>
            );
          })}
        </tbody>
      </table>
    </section>
  );
}

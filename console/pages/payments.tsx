import type { RouteResponse } from '../../lib/api/routes';
import { money } from '../amounts';
import { admin, post } from '../api';
import { type Action, created, ListPage, state, time, transfersOf, useActions, useLoaded, withdrew, withHeld } from '../list';
import type { PageProps } from '../pages';
import { aboutLinks, RecordFields, RecordToolbar, type Row } from '../record';

// #/payments: the payments, and one payment's page; fund or cancel one, withdraw what one holds.

type Payment = RouteResponse<'getPayment'>;
type Found = RouteResponse<'search'>;

// A payment's actions, on its row and its page: fund or cancel it while it waits to be funded,
// withdraw what it holds once it ended (what it did not send, when it failed).
const paymentActions = (p: Payment & { held: bigint }): Action[] =>
  p.state === 'funding'
    ? [
        {
          label: 'Fund',
          what: `Fund this payment with ${money(p.debitAmount)} and send it.`,
          movesMoney: true,
          run: (key) => post(`/payments/${p.id}/fund`, key),
        },
        { label: 'Cancel payment', what: 'Cancel this payment before it is funded.', run: () => post(`/payments/${p.id}/cancel`) },
      ]
    : p.held > 0n
      ? [
          {
            label: 'Withdraw',
            what: `Withdraw what this payment still holds (${money({ ...p.debitAmount, value: String(p.held) })}) to the FSP.`,
            movesMoney: true,
            run: (key) => post(`/payments/${p.id}/withdraw`, key),
            said: withdrew,
          },
        ]
      : [];
const ENDED = ['completed', 'failed', 'cancelled'];

// #/payments, or one payment's page: #/payments/<id>.
export const PaymentsPage = ({ args }: PageProps) => (args[0] ? <PaymentPage id={args[0]} /> : <PaymentsList />);

// The payments (`query`: a wallet address's, on its page), filtered as the operator asks.
export const PaymentsList = ({ query }: { query?: Record<string, string> }) => (
  <ListPage<Payment & { held: bigint }>
    route="/payments"
    query={query}
    label="Payments"
    complete={withHeld('payment', ENDED)}
    filters={[
      ...(query?.walletAddress ? [] : [{ name: 'walletAddress', label: 'From' }]),
      { name: 'receiver', label: 'To' },
      { name: 'state', label: 'State', options: ['funding', 'sending', 'completed', 'failed', 'cancelled'] },
      { name: 'metadataKey', label: 'Metadata key' },
      { name: 'metadataValue', label: 'value' },
      { name: 'from', label: 'Created from' },
      { name: 'to', label: 'to' },
    ]}
    columns={[
      {
        label: 'Id',
        cell: (p) => (
          <a href={`#/payments/${p.id}`}>
            <code>{p.id}</code>
          </a>
        ),
      },
      state,
      { label: 'Reason', cell: (p) => p.failureReason ?? p.cancelReason ?? '' },
      { label: 'Debit', cell: (p) => money(p.debitAmount), numeric: true },
      { label: 'Sent', cell: (p) => money(p.sentAmount), numeric: true },
      { label: 'Receive', cell: (p) => money(p.receiveAmount), numeric: true },
      { label: 'From', cell: (p) => <code>{p.walletAddress}</code> },
      { label: 'To', cell: (p) => <code>{p.receiver}</code> },
      created,
      { label: 'Trace', cell: (p) => <a href={`#/traces/payment/${p.id}`}>Trace</a> },
      { label: 'Transfers', cell: (p) => transfersOf(`payment:${p.id}`) },
    ]}
    actions={paymentActions}
  />
);

// One payment: every field the API answers, its links (its quote, the intent it pays, here or on
// another node, its sender's wallet address, its trace, webhooks, audit events and transfers) and
// its actions. Whether its receiver is an intent of this node is what GET /search finds for it.
function PaymentPage({ id }: { id: string }) {
  const {
    value: p,
    error,
    reload,
  } = useLoaded(async () => {
    const [one] = await withHeld<Payment>('payment', ENDED)([await admin<Payment>('GET', `/payments/${id}`)]);
    const found = await admin<Found>('GET', `/search?${new URLSearchParams({ q: one.receiver })}`);
    return { ...one, intentId: found.items.find((m) => m.type === 'payment-intent')?.id };
  }, id);
  const { ask, said, confirming } = useActions(reload);
  const rows: Row[] = p
    ? [
        ['Id', <code key="id">{p.id}</code>],
        ['State', state.cell(p)],
        ...(p.failureReason ? [['Failure', p.failureReason] as Row] : []),
        ...(p.cancelReason ? [['Cancelled for', p.cancelReason] as Row] : []),
        [
          'From',
          <a key="from" href={`#/find/${encodeURIComponent(p.walletAddress)}`}>
            <code>{p.walletAddress}</code>
          </a>,
        ],
        [
          'To',
          p.intentId ? (
            <span key="to">
              <a href={`#/payment-intents/${p.intentId}`} aria-label="Its payment intent">
                <code>{p.receiver}</code>
              </a>{' '}
              <span class="muted">a payment intent of this node</span>
            </span>
          ) : (
            <span key="to">
              <code>{p.receiver}</code> <span class="badge">on another node</span>
            </span>
          ),
        ],
        ['Debit', money(p.debitAmount)],
        ['Of which fee', money(p.fee)],
        ['Sent', money(p.sentAmount)],
        ['Receive', money(p.receiveAmount)],
        ['Still holds', money({ ...p.debitAmount, value: String(p.held) })],
        [
          'Quote',
          <a key="quote" href={`#/quotes/${p.quoteId}`}>
            <code>{p.quoteId}</code>
          </a>,
        ],
        ['Created', time(p.createdAt)],
        ...(p.grantId
          ? [
              [
                'Grant',
                <a key="grant" href={`#/grants/${p.grantId}`}>
                  <code>{p.grantId}</code>
                </a>,
              ] as Row,
            ]
          : []),
        ...(p.client ? [['Client', <code key="client">{p.client}</code>] as Row] : []),
        ['Metadata', p.metadata ? <code key="metadata">{JSON.stringify(p.metadata)}</code> : '–'],
      ]
    : [];
  return (
    <div class="list">
      <RecordToolbar back={{ href: '#/payments', text: 'All payments' }} reload={reload} actions={p && paymentActions(p)} ask={ask} error={error} said={said} />
      {p && (
        <>
          <RecordFields label="Payment" rows={rows} />
          <p>
            <a href={`#/traces/payment/${p.id}`}>Trace</a> · {transfersOf(`payment:${p.id}`)} · {aboutLinks(p.id)}
          </p>
        </>
      )}
      {confirming}
    </div>
  );
}

import type { ComponentChildren } from 'preact';
import type { RouteResponse } from '../../lib/api/routes';
import { money } from '../amounts';
import { admin, post } from '../api';
import { type Action, ActionButtons, Alert, created, ListPage, Said, state, time, transfersOf, useActions, useLoaded, withdrew, withHeld } from '../list';
import type { PageProps } from '../pages';

// #/payments: the payments, and one payment's page; fund or cancel one, withdraw what one holds.

type Payment = RouteResponse<'getPayment'>;

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
        { label: 'Cancel', what: 'Cancel this payment before it is funded.', run: () => post(`/payments/${p.id}/cancel`) },
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

const PaymentsList = () => (
  <ListPage<Payment & { held: bigint }>
    route="/payments"
    label="Payments"
    complete={withHeld('payment', ENDED)}
    filters={[
      { name: 'walletAddress', label: 'Wallet address' },
      { name: 'state', label: 'State', options: ['funding', 'sending', 'completed', 'failed', 'cancelled'] },
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
      created,
      { label: 'Trace', cell: (p) => <a href={`#/traces/payment/${p.id}`}>Trace</a> },
      { label: 'Transfers', cell: (p) => transfersOf(`payment:${p.id}`) },
    ]}
    actions={paymentActions}
  />
);

// One payment: every field the API answers, its links (trace, transfers, quote, receiver) and its actions.
function PaymentPage({ id }: { id: string }) {
  const {
    value: p,
    error,
    reload,
  } = useLoaded(async () => withHeld<Payment>('payment', ENDED)([await admin<Payment>('GET', `/payments/${id}`)]).then(([one]) => one), id);
  const { ask, said, confirming } = useActions(reload);
  const rows: Array<[string, ComponentChildren]> = p
    ? [
        ['Id', <code key="id">{p.id}</code>],
        ['State', state.cell(p)],
        ...(p.failureReason ? [['Failure', p.failureReason] as [string, ComponentChildren]] : []),
        ...(p.cancelReason ? [['Cancelled for', p.cancelReason] as [string, ComponentChildren]] : []),
        ['From', <code key="from">{p.walletAddress}</code>],
        ['To', <code key="to">{p.receiver}</code>],
        ['Debit', money(p.debitAmount)],
        ['Of which fee', money(p.fee)],
        ['Sent', money(p.sentAmount)],
        ['Receive', money(p.receiveAmount)],
        ['Still holds', money({ ...p.debitAmount, value: String(p.held) })],
        ['Quote', <code key="quote">{p.quoteId}</code>],
        ['Created', time(p.createdAt)],
        ...(p.grantId ? [['Grant', <code key="grant">{p.grantId}</code>] as [string, ComponentChildren]] : []),
        ...(p.client ? [['Client', <code key="client">{p.client}</code>] as [string, ComponentChildren]] : []),
        ['Metadata', p.metadata ? <code key="metadata">{JSON.stringify(p.metadata)}</code> : '–'],
      ]
    : [];
  return (
    <div class="list">
      <div class="toolbar">
        <a href="#/payments">All payments</a>
        <button type="button" onClick={reload}>
          Reload
        </button>
        {p && <ActionButtons actions={paymentActions(p)} ask={ask} />}
        <Alert text={error} />
        <Said text={said} />
      </div>
      {p && (
        <>
          <dl class="record" aria-label="Payment">
            {rows.map(([label, value]) => (
              <div key={label}>
                <dt>{label}</dt>
                <dd>{value}</dd>
              </div>
            ))}
          </dl>
          <p>
            <a href={`#/traces/payment/${p.id}`}>Trace</a> · {transfersOf(`payment:${p.id}`)}
          </p>
        </>
      )}
      {confirming}
    </div>
  );
}

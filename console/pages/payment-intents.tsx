import type { RouteResponse } from '../../lib/api/routes';
import { money } from '../amounts';
import { admin, post } from '../api';
import { type Action, accountTransfers, created, heldBy, ListPage, state, time, transfersOf, useActions, useLoaded, withdrew, withHeld } from '../list';
import type { PageProps } from '../pages';
import { aboutLinks, RecordFields, RecordToolbar } from '../record';

// #/payment-intents: the payment intents and what each holds; approve or refuse one that waits for
// approval, complete one, withdraw what one holds.

type Intent = RouteResponse<'getPaymentIntent'>;

// #/payment-intents, or one intent's page: #/payment-intents/<id>.
export const IntentsPage = ({ args }: PageProps) => (args[0] ? <IntentPage id={args[0]} /> : <IntentsList />);

const MAY_HOLD = ['pending', 'processing', 'completed', 'expired'];

// The intents (`query`: a wallet address's, on its page).
export const IntentsList = ({ query }: { query?: Record<string, string> }) => (
  <ListPage<Intent & { held: bigint }>
    route="/payment-intents"
    query={query}
    label="Payment intents"
    complete={withHeld('intent', MAY_HOLD)}
    filters={[
      ...(query?.walletAddress ? [] : [{ name: 'walletAddress', label: 'Wallet address' }]),
      { name: 'state', label: 'State', options: ['pending_approval', 'pending', 'processing', 'completed', 'expired', 'cancelled'] },
    ]}
    columns={[
      {
        label: 'Id',
        cell: (i) => (
          <a href={`#/payment-intents/${i.id}`}>
            <code>{i.id}</code>
          </a>
        ),
      },
      state,
      { label: 'Received', cell: (i) => money(i.receivedAmount), numeric: true },
      { label: 'Of', cell: (i) => money(i.incomingAmount), numeric: true },
      { label: 'Wallet address', cell: (i) => <code>{i.walletAddress}</code> },
      { label: 'Expires', cell: (i) => time(i.expiresAt) },
      created,
      { label: 'Transfers', cell: (i) => transfersOf(`intent:${i.id}`) },
    ]}
    actions={intentActions}
  />
);

// An intent's actions, on its row and its page.
const intentActions = (i: Intent & { held: bigint }): Action[] => [
  ...(i.state === 'pending_approval'
    ? [
        { label: 'Approve', what: 'Approve this intent: it takes payments from now on.', run: () => post(`/payment-intents/${i.id}/approve`) },
        {
          label: 'Refuse',
          what: 'Cancel this intent: it never takes a payment. The reason is kept and sent to the FSP in the webhook.',
          asksReason: true,
          run: (_key: string | undefined, _amount: string | undefined, reason: string) => post(`/payment-intents/${i.id}/cancel`, undefined, { reason }),
        },
      ]
    : []),
  ...(i.state === 'pending' || i.state === 'processing'
    ? [
        {
          label: 'Complete',
          needs: 'admin' as const,
          what: 'Complete this intent: it takes no more payments.',
          run: () => post(`/payment-intents/${i.id}/complete`),
        },
      ]
    : []),
  ...(i.held > 0n
    ? [
        {
          label: 'Withdraw',
          what: `Withdraw what this intent holds (${money({ ...i.receivedAmount, value: String(i.held) })}) to the FSP.`,
          movesMoney: true,
          run: (key: string | undefined) => post(`/payment-intents/${i.id}/withdraw`, key),
          said: withdrew,
        },
      ]
    : []),
];

// One intent: its fields, its wallet address, what paid it (the payments of this node, and the
// peers whose Interledger packets did: its account's credits), its transfers, webhooks, audit
// events; and its actions.
function IntentPage({ id }: { id: string }) {
  const {
    value: i,
    error,
    reload,
  } = useLoaded(async () => {
    // Its account's transfers, read once: what it holds, and the credits that paid it.
    const [one, transfers] = await Promise.all([admin<Intent>('GET', `/payment-intents/${id}`), accountTransfers(`intent:${id}`)]);
    return { ...one, held: heldBy(transfers), credits: transfers.filter((t) => t.direction === 'credit') };
  }, id);
  const { ask, said, confirming } = useActions(reload);
  const payments = [...new Set(i?.credits.filter((t) => t.kind === 'payment').map((t) => t.resource.id))];
  const peers = [...new Set(i?.credits.filter((t) => t.kind === 'packet').map((t) => t.debitAccount))];
  return (
    <div class="list">
      <RecordToolbar
        back={{ href: '#/payment-intents', text: 'All payment intents' }}
        reload={reload}
        actions={i && intentActions(i)}
        ask={ask}
        error={error}
        said={said}
      />
      {i && (
        <>
          <RecordFields
            label="Payment intent"
            rows={[
              ['Id', <code key="id">{i.id}</code>],
              ['URL', <code key="url">{i.url}</code>],
              ['State', state.cell(i)],
              [
                'Wallet address',
                <a key="wallet" href={`#/find/${encodeURIComponent(i.walletAddress)}`}>
                  <code>{i.walletAddress}</code>
                </a>,
              ],
              ['Received', money(i.receivedAmount)],
              ['Of', money(i.incomingAmount)],
              ['Holds', money({ ...i.receivedAmount, value: String(i.held) })],
              ['Expires', time(i.expiresAt)],
              ['Created', time(i.createdAt)],
              ['Metadata', i.metadata ? <code key="metadata">{JSON.stringify(i.metadata)}</code> : '–'],
            ]}
          />
          <h2>Paid by</h2>
          <ul class="paid-by" aria-label="Paid by">
            {payments.map((p) => (
              <li key={p}>
                <a href={`#/payments/${p}`}>
                  payment <code>{p}</code>
                </a>
              </li>
            ))}
            {peers.map((account) => (
              <li key={account}>
                Interledger packets through{' '}
                {account.startsWith('peer:') ? (
                  <a href={`#/peers/${account.slice(5)}`}>
                    peer <code>{account.slice(5)}</code>
                  </a>
                ) : (
                  <>{transfersOf(account, account)} (converted: its peer's leg is in that account's transfers)</>
                )}
              </li>
            ))}
            {!payments.length && !peers.length && <li class="muted">Nothing yet</li>}
          </ul>
          <p>
            {transfersOf(`intent:${i.id}`)} · {aboutLinks(i.id)}
          </p>
        </>
      )}
      {confirming}
    </div>
  );
}

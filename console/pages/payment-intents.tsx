import type { RouteResponse } from '../../lib/api/routes';
import { money } from '../amounts';
import { post } from '../api';
import { created, ListPage, state, time, transfersOf, withdrew, withHeld } from '../list';

// #/payment-intents: the payment intents and what each holds; approve or refuse one that waits for
// approval, complete one, withdraw what one holds.

type Intent = RouteResponse<'getPaymentIntent'>;

export const IntentsPage = () => (
  <ListPage<Intent & { held: bigint }>
    route="/payment-intents"
    label="Payment intents"
    complete={withHeld('intent', ['pending', 'processing', 'completed', 'expired'])}
    filters={[
      { name: 'walletAddress', label: 'Wallet address' },
      { name: 'state', label: 'State', options: ['pending_approval', 'pending', 'processing', 'completed', 'expired', 'cancelled'] },
    ]}
    columns={[
      state,
      { label: 'Received', cell: (i) => money(i.receivedAmount), numeric: true },
      { label: 'Of', cell: (i) => money(i.incomingAmount), numeric: true },
      { label: 'Wallet address', cell: (i) => <code>{i.walletAddress}</code> },
      { label: 'Expires', cell: (i) => time(i.expiresAt) },
      created,
      { label: 'Transfers', cell: (i) => transfersOf(`intent:${i.id}`) },
    ]}
    actions={(i) => [
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
    ]}
  />
);

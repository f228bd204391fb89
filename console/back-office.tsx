import { useEffect, useState } from 'preact/hooks';
import { LEDGER_SCALE } from '../lib/ledger-scale';
import type { RouteResponse } from '../lib/routes';
import { money, units } from './amounts';
import { admin } from './api';
import { type Action, Alert, ListPage, time } from './list';
import type { PageProps } from './pages';

// The back-office pages: each reads one Admin API list route (docs/api.md) and offers the
// actions its records allow, each confirmed in the page first.

// The records as the Admin API answers them, read by id (a list's items are completed so), typed
// from the route table's schemas: type-only, so nothing of lib/ reaches the page's bundle.
type Asset = RouteResponse<'getAsset'>;
type WalletAddress = RouteResponse<'getWalletAddress'>;
type Intent = RouteResponse<'getPaymentIntent'>;
type Payment = RouteResponse<'getPayment'>;
type Peer = RouteResponse<'getPeer'>;
type Withdrawal = RouteResponse<'getLiquidityWithdrawal'>;
type WebhookEvent = RouteResponse<'getWebhookEvent'>;
type LedgerCheck = RouteResponse<'checkLedger'>;
type Transfer = RouteResponse<'listLedgerTransfers'>['items'][number];

const post = (path: string, key?: string, body?: unknown) => admin('POST', path, body, key);
const created = { label: 'Created', cell: (r: { createdAt: string }) => time(r.createdAt) };
const state = { label: 'State', cell: (r: { state: string }) => <span class={`state ${r.state}`}>{r.state}</span> };
// Each record of a page read again by id, for what the list leaves out (liquidity).
const withDetails =
  <T extends { id: string }>(route: string) =>
  (items: T[]) =>
    Promise.all(items.map((i) => admin<T>('GET', `${route}/${i.id}`)));

// A link to an account's transfers (the Transfers page), the account named as the ledger check names it.
const transfersOf = (account: string, label = 'Transfers') => <a href={`#/transfers/${account}`}>{label}</a>;
// An asset's own accounts, each a link to its transfers.
const assetAccounts = (assetId: string) => (
  <>
    {transfersOf(`liquidity:${assetId}`, 'Liquidity')} {transfersOf(`settlement:${assetId}`, 'Settlement')} {transfersOf(`fee:${assetId}`, 'Fees')}
  </>
);

// Deposit, withdraw and hold (a two-phase withdrawal), for an asset's or a peer's liquidity.
const liquidityActions = (route: string, id: string, name: string, code: string, scale: number): Action[] => [
  {
    label: 'Deposit',
    needs: 'admin',
    what: `Deposit liquidity to ${name}: the amount leaves the asset's settlement account.`,
    movesMoney: true,
    amountOf: { code, scale },
    run: (key, amount) => post(`${route}/${id}/liquidity`, key, { amount }),
  },
  {
    label: 'Withdraw',
    needs: 'admin',
    what: `Withdraw liquidity from ${name} to the asset's settlement account.`,
    movesMoney: true,
    amountOf: { code, scale },
    run: (key, amount) => post(`${route}/${id}/liquidity-withdrawals`, key, { amount }),
  },
  {
    label: 'Hold',
    needs: 'admin',
    what: `Hold liquidity of ${name} while your bank transfer runs: post it on the Withdrawals page once it went through, or void it. Unposted, it is voided after LIQUIDITY_WITHDRAWAL_TIMEOUT_SECS.`,
    movesMoney: true,
    amountOf: { code, scale },
    run: (key, amount) => post(`${route}/${id}/liquidity-withdrawals`, key, { amount, twoPhase: true }),
  },
];

// A fee as the FSP set it (PATCH /assets/{id}): "0.10 + 50 bps".
const feeText = (fee: Asset['sendingFee'], scale: number) => (fee ? `${units(fee.fixed, scale)} + ${fee.basisPoints} bps` : '–');

export const AssetsPage = () => (
  <ListPage<Asset>
    route="/assets"
    label="Assets"
    complete={withDetails('/assets')}
    columns={[
      { label: 'Code', cell: (a) => <strong>{a.code}</strong> },
      { label: 'Scale', cell: (a) => a.scale, numeric: true },
      { label: 'Liquidity', cell: (a) => money(a.liquidity), numeric: true },
      { label: 'Low below', cell: (a) => (a.liquidityThreshold ? units(a.liquidityThreshold, a.scale) : '–'), numeric: true },
      { label: 'Sending fee', cell: (a) => feeText(a.sendingFee, a.scale), numeric: true },
      { label: 'Receiving fee', cell: (a) => feeText(a.receivingFee, a.scale), numeric: true },
      created,
      { label: 'Id', cell: (a) => <code>{a.id}</code> },
      {
        label: 'Transfers',
        cell: (a) => assetAccounts(a.id),
      },
    ]}
    actions={(a) => liquidityActions('/assets', a.id, a.code, a.code, a.scale)}
  />
);

export const WalletAddressesPage = () => (
  <ListPage<WalletAddress>
    route="/wallet-addresses"
    label="Wallet addresses"
    columns={[
      { label: 'Address', cell: (w) => <code>{w.address}</code> },
      { label: 'Name', cell: (w) => w.publicName ?? '–' },
      { label: 'Asset', cell: (w) => `${w.assetCode} (${w.assetScale})` },
      created,
    ]}
    more={(w) => <Keys id={w.id} />}
  />
);

// A wallet address's keys, read when asked for.
function Keys({ id }: { id: string }) {
  const [keys, setKeys] = useState<{ kid: string; revokedAt: string | null }[] | string>();
  if (keys === undefined)
    return (
      <button
        type="button"
        onClick={() =>
          admin<{ items: { kid: string; revokedAt: string | null }[] }>('GET', `/wallet-addresses/${id}/keys`).then(
            (k) => setKeys(k.items),
            (e: Error) => setKeys(e.message),
          )
        }
      >
        Keys
      </button>
    );
  if (typeof keys === 'string') return <span class="error">{keys}</span>;
  if (!keys.length) return <span class="muted">no keys</span>;
  return (
    <ul class="keys">
      {keys.map((k) => (
        <li key={k.kid}>
          <code>{k.kid}</code> {k.revokedAt ? <span class="muted">revoked {time(k.revokedAt)}</span> : <span class="state completed">active</span>}
        </li>
      ))}
    </ul>
  );
}

export const IntentsPage = () => (
  <ListPage<Intent>
    route="/payment-intents"
    label="Payment intents"
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
      {
        label: 'Withdraw',
        what: `Withdraw what this intent received (${money(i.receivedAmount)}) to the FSP.`,
        movesMoney: true,
        run: (key) => post(`/payment-intents/${i.id}/withdraw`, key),
      },
    ]}
  />
);

export const PaymentsPage = () => (
  <ListPage<Payment>
    route="/payments"
    label="Payments"
    filters={[
      { name: 'walletAddress', label: 'Wallet address' },
      { name: 'state', label: 'State', options: ['funding', 'sending', 'completed', 'failed', 'cancelled'] },
    ]}
    columns={[
      state,
      { label: 'Reason', cell: (p) => p.failureReason ?? '' },
      { label: 'Debit', cell: (p) => money(p.debitAmount), numeric: true },
      { label: 'Sent', cell: (p) => money(p.sentAmount), numeric: true },
      { label: 'Receive', cell: (p) => money(p.receiveAmount), numeric: true },
      { label: 'From', cell: (p) => <code>{p.walletAddress}</code> },
      created,
      { label: 'Trace', cell: (p) => <a href={`#/traces/payment/${p.id}`}>Trace</a> },
      { label: 'Transfers', cell: (p) => transfersOf(`payment:${p.id}`) },
    ]}
    actions={(p) =>
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
        : p.state === 'sending'
          ? []
          : [
              {
                label: 'Withdraw',
                what: 'Withdraw what this payment still holds to the FSP.',
                movesMoney: true,
                run: (key) => post(`/payments/${p.id}/withdraw`, key),
              },
            ]
    }
  />
);

export const PeersPage = () => (
  <ListPage<Peer>
    route="/peers"
    label="Peers"
    complete={withDetails('/peers')}
    columns={[
      { label: 'Name', cell: (p) => p.name ?? '–' },
      { label: 'ILP address', cell: (p) => <code>{p.staticIlpAddress}</code> },
      { label: 'Liquidity', cell: (p) => money(p.liquidity), numeric: true },
      { label: 'Low below', cell: (p) => (p.liquidityThreshold ? units(p.liquidityThreshold, p.assetScale) : '–'), numeric: true },
      { label: 'Max packet', cell: (p) => (p.maxPacketAmount ? units(p.maxPacketAmount, p.assetScale) : '–'), numeric: true },
      created,
      { label: 'Transfers', cell: (p) => transfersOf(`peer:${p.id}`) },
    ]}
    actions={(p) => liquidityActions('/peers', p.id, p.name ?? p.staticIlpAddress, p.assetCode, p.assetScale)}
  />
);

// The two-phase withdrawals still held, to post or void.
export const WithdrawalsPage = () => (
  <ListPage<Withdrawal>
    route="/liquidity-withdrawals"
    label="Withdrawals"
    columns={[
      state,
      { label: 'Amount', cell: (w) => money(w.amount), numeric: true },
      { label: 'From', cell: (w) => (w.peerId ? <code>peer {w.peerId}</code> : `${w.amount.assetCode} liquidity`) },
      { label: 'Voided after', cell: (w) => time(w.expiresAt) },
      created,
      { label: 'Id', cell: (w) => <code>{w.id}</code> },
    ]}
    actions={(w) => [
      {
        label: 'Post',
        what: `Post this withdrawal: ${money(w.amount)} leave the ledger, to the asset's settlement account.`,
        movesMoney: true,
        run: (key) => post(`/liquidity-withdrawals/${w.id}/post`, key),
      },
      {
        label: 'Void',
        what: `Void this withdrawal: ${money(w.amount)} go back where they came from.`,
        movesMoney: true,
        run: (key) => post(`/liquidity-withdrawals/${w.id}/void`, key),
      },
    ]}
  />
);

export const WebhookEventsPage = () => (
  <ListPage<WebhookEvent>
    route="/webhook-events"
    label="Webhook events"
    filters={[
      { name: 'status', label: 'Status', options: ['pending', 'delivered', 'failed'] },
      { name: 'type', label: 'Type' },
      { name: 'resourceId', label: 'Resource id' },
    ]}
    columns={[
      { label: 'Status', cell: (e) => <span class={`state ${e.status}`}>{e.status}</span> },
      { label: 'Type', cell: (e) => e.type },
      { label: 'Attempts', cell: (e) => <Attempts event={e} />, numeric: true },
      created,
      { label: 'Id', cell: (e) => <code>{e.id}</code> },
    ]}
    actions={(e) =>
      e.status === 'pending'
        ? []
        : [{ label: 'Redeliver', what: `Send ${e.type} again, with the same id, as one more attempt.`, run: () => post(`/webhook-events/${e.id}/redeliver`) }]
    }
  />
);

function Attempts({ event }: { event: WebhookEvent }) {
  return (
    <details class="attempts">
      <summary data-count={event.attempts.length}>{event.attempts.length}</summary>
      <ol>
        {event.attempts.map((a) => (
          <li key={a.at}>
            {time(a.at)} · {a.status ?? a.error} · {a.ms} ms
          </li>
        ))}
      </ol>
    </details>
  );
}

// There is no list of rates: the Admin API answers the rate in effect for one pair (and peer).
export function RatesPage() {
  const [query, setQuery] = useState({ sourceAssetCode: '', destinationAssetCode: '', peerId: '' });
  const [rate, setRate] = useState<{
    sourceAssetCode: string;
    destinationAssetCode: string;
    rate: number;
    origin: string;
    expiresAt: string | null;
    peerId?: string;
  }>();
  const [error, setError] = useState<string>();
  const look = (e: Event) => {
    e.preventDefault();
    const q = new URLSearchParams(Object.entries(query).filter(([, v]) => v.trim()));
    admin<typeof rate>('GET', `/rates?${q}`).then(
      (r) => {
        setRate(r);
        setError(undefined);
      },
      (e: Error) => {
        setRate(undefined);
        setError(e.message); // a Problem's message is its detail
      },
    );
  };
  const field = (name: keyof typeof query, label: string) => (
    <label>
      {label} <input value={query[name]} onInput={(e) => setQuery({ ...query, [name]: e.currentTarget.value.toUpperCase().trim() })} />
    </label>
  );
  return (
    <div class="list">
      <p class="note">
        The Admin API has no list of rates: it answers the rate in effect for one pair, pushed (<code>POST /rates</code>), pulled from the FSP or the identity,
        with its expiry. Look one up here.
      </p>
      <form class="toolbar" onSubmit={look}>
        {field('sourceAssetCode', 'From')}
        {field('destinationAssetCode', 'To')}
        <label>
          Peer id (optional) <input value={query.peerId} onInput={(e) => setQuery({ ...query, peerId: e.currentTarget.value.trim() })} />
        </label>
        <button type="submit">Look up</button>
        <Alert text={error} />
      </form>
      {rate && (
        <table class="records" aria-label="Rate">
          <thead>
            <tr>
              <th>Pair</th>
              <th class="numeric">Rate</th>
              <th>Origin</th>
              <th>Expires</th>
            </tr>
          </thead>
          <tbody>
            <tr>
              <td>
                {rate.sourceAssetCode} → {rate.destinationAssetCode}
                {rate.peerId && <span class="muted"> via peer {rate.peerId}</span>}
              </td>
              <td class="numeric">{rate.rate}</td>
              <td>{rate.origin}</td>
              <td>{rate.expiresAt ? time(rate.expiresAt) : 'never'}</td>
            </tr>
          </tbody>
        </table>
      )}
    </div>
  );
}

// GET /ledger/check: the Admin API sums each asset's accounts server-side (the console cannot: no
// route gives settlement balances), green when every sum is zero.
export function LedgerPage() {
  const [check, setCheck] = useState<LedgerCheck>();
  const [error, setError] = useState<string>();
  const run = () =>
    admin<LedgerCheck>('GET', '/ledger/check').then(
      (c) => {
        setCheck(c);
        setError(undefined);
      },
      (e: Error) => setError(e.message),
    );
  useEffect(() => {
    run();
  }, []);
  return (
    <div class="list">
      <p class="note">
        Double entry: each asset's accounts (its liquidity, settlement and fees, the intents', payments', peers', holds' and withdrawals') sum to zero. The
        Admin API sums them on the server by reading every account, so check on a quiet ledger: a payment moving meanwhile can show as a difference.
      </p>
      <div class="toolbar">
        <button type="button" onClick={run}>
          Check again
        </button>
        {check && (
          <span class={`ledger ${check.balanced ? 'ok' : 'alarm'}`} role="status">
            {check.balanced ? 'Balanced' : 'Not balanced'} · {check.accounts} accounts · {time(check.checkedAt)}
          </span>
        )}
        <Alert text={error} />
      </div>
      {check && (
        <table class="records" aria-label="Ledger check">
          <thead>
            <tr>
              <th>Asset</th>
              <th class="numeric">Accounts</th>
              <th class="numeric">Sum</th>
              <th>Check</th>
              <th>Transfers</th>
            </tr>
          </thead>
          <tbody>
            {check.assets.map((a) => (
              <tr key={a.assetId} data-asset={a.assetCode} data-asset-id={a.assetId}>
                <td>
                  <strong>{a.assetCode}</strong>
                </td>
                <td class="numeric">{a.accounts}</td>
                <td class="numeric">{units(a.sum, LEDGER_SCALE)}</td>
                <td>
                  <span class={`badge ${a.balanced ? 'ok' : 'alarm'}`}>{a.balanced ? 'zero' : 'not zero'}</span>
                </td>
                <td>{assetAccounts(a.assetId)}</td>
              </tr>
            ))}
            {check.unattributed.map((u) => (
              <tr key={u.account}>
                <td>
                  <code>{u.account}</code> <span class="muted">no record</span>
                </td>
                <td class="numeric">1</td>
                <td class="numeric">{units(u.balance, LEDGER_SCALE)}</td>
                <td>
                  <span class="badge alarm">unattributed</span>
                </td>
                <td />
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </div>
  );
}

// GET /ledger/transfers: one account's transfers, newest first, paged; the account is the page's
// argument (#/transfers/<account>), reached from the ledger check and the records' pages, or typed.
export function TransfersPage({ args }: PageProps) {
  const account = args[0] ?? '';
  const [typed, setTyped] = useState(account);
  useEffect(() => setTyped(account), [account]); // a link to another account
  const show = (e: Event) => {
    e.preventDefault();
    location.hash = `#/transfers/${typed.trim()}`;
  };
  const accountCell = (id: string) => (id === account ? <code>{id}</code> : transfersOf(id, id));
  return (
    <div class="list">
      <p class="note">
        Each transfer that moved money in or out of one account, newest first: its kind, what it belongs to, and the amount that left (−) or came in. They sum
        to the account's balance. Name the account as the ledger check does: <code>liquidity:</code>, <code>settlement:</code>, <code>fee:</code> and an asset's
        id; <code>peer:</code>, <code>intent:</code>, <code>payment:</code> and the record's id; <code>hold:</code> (a payment's) and <code>withdrawal:</code>{' '}
        (a two-phase withdrawal's), the record's id and the asset's.
      </p>
      <form class="toolbar" onSubmit={show}>
        <label>
          Account <input size={56} value={typed} onInput={(e) => setTyped(e.currentTarget.value)} />
        </label>
        <button type="submit">Show</button>
      </form>
      {account && (
        <ListPage<Transfer>
          key={account}
          route="/ledger/transfers"
          query={{ account }}
          label="Transfers"
          columns={[
            { label: 'Time', cell: (t) => time(t.createdAt) },
            { label: 'Kind', cell: (t) => t.kind },
            { label: 'Of', cell: (t) => <code title={t.resource.id}>{`${t.resource.type} ${t.resource.id.slice(0, 8)}`}</code> },
            { label: 'Amount', cell: (t) => money({ ...t.amount, value: t.direction === 'debit' ? `-${t.amount.value}` : t.amount.value }), numeric: true },
            { label: 'Debit', cell: (t) => accountCell(t.debitAccount) },
            { label: 'Credit', cell: (t) => accountCell(t.creditAccount) },
          ]}
        />
      )}
    </div>
  );
}

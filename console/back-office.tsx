import type { ComponentChildren } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import type { RouteResponse } from '../lib/api/routes';
import { LEDGER_SCALE } from '../lib/shared/ledger-scale';
import { ledgerUnits, money, units } from './amounts';
import { type Amount, admin, may, type Page } from './api';
import { changes, FormDialog, type FormSpec, minorUnits, numberOr, type Values } from './forms';
import { type Action, ActionButtons, Alert, ListPage, Said, time, useActions, useLoaded } from './list';
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
type Rate = RouteResponse<'pushRate'>;

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

// What a form typed, as text ('' for an empty field or an unticked box).
const text = (v: Values, name: string) => String(v[name] ?? '').trim();
// A form's field that changes a record: undefined when it is as it was, null when emptied (cleared).
const edited = (v: Values, was: Values, name: string, value: (typed: string) => unknown) =>
  text(v, name) === text(was, name) ? undefined : text(v, name) === '' ? null : value(text(v, name));
// The fields of a PATCH body that the form changed.
const changedOnly = (body: Record<string, unknown>) => Object.fromEntries(Object.entries(body).filter(([, v]) => v !== undefined));

const newAsset: FormSpec<Asset> = {
  title: 'New asset',
  fields: [
    { name: 'code', label: 'Code', hint: 'e.g. USD' },
    { name: 'scale', label: 'Scale', hint: 'decimal places, e.g. 2' },
    { name: 'liquidityThreshold', label: 'Low liquidity below', hint: 'optional, at that scale' },
  ],
  initial: { code: '', scale: '2', liquidityThreshold: '' },
  send: (v, key) => {
    const scale = numberOr(text(v, 'scale'));
    const threshold = minorUnits(text(v, 'liquidityThreshold'), typeof scale === 'number' ? scale : 0);
    return admin('POST', '/assets', { code: text(v, 'code'), scale, ...(threshold !== undefined && { liquidityThreshold: threshold }) }, key);
  },
  done: (a) => `Created ${a.code} (scale ${a.scale})`,
};

// PATCH /assets/{id}: the threshold and the fees, each a fixed amount at the asset's scale and basis points.
function changeAsset(a: Asset): FormSpec<Asset> {
  const fixed = (f: Asset['sendingFee']) => (f ? units(f.fixed, a.scale) : '');
  const bps = (f: Asset['sendingFee']) => (f ? String(f.basisPoints) : '');
  const was: Values = {
    liquidityThreshold: a.liquidityThreshold ? units(a.liquidityThreshold, a.scale) : '',
    'sendingFee.fixed': fixed(a.sendingFee),
    'sendingFee.basisPoints': bps(a.sendingFee),
    'receivingFee.fixed': fixed(a.receivingFee),
    'receivingFee.basisPoints': bps(a.receivingFee),
  };
  const feeOf = (v: Values, name: string) => {
    const [fixed, bps] = [`${name}.fixed`, `${name}.basisPoints`];
    if (text(v, fixed) === text(was, fixed) && text(v, bps) === text(was, bps)) return undefined;
    if (!text(v, fixed) && !text(v, bps)) return null;
    return { fixed: minorUnits(text(v, fixed), a.scale) ?? '0', basisPoints: numberOr(text(v, bps) || '0') };
  };
  const feeFields = (name: string, label: string) => [
    { name: `${name}.fixed`, label: `${label}, fixed`, hint: a.code },
    { name: `${name}.basisPoints`, label: `${label}, basis points`, hint: 'of the amount, 0 to 10000' },
  ];
  return {
    title: `Change ${a.code}`,
    fields: [
      { name: 'liquidityThreshold', label: 'Low liquidity below', hint: `${a.code}; empty: none` },
      ...feeFields('sendingFee', 'Sending fee'),
      ...feeFields('receivingFee', 'Receiving fee'),
    ],
    initial: was,
    send: (v) =>
      admin(
        'PATCH',
        `/assets/${a.id}`,
        changedOnly({
          liquidityThreshold: edited(v, was, 'liquidityThreshold', (t) => minorUnits(t, a.scale)),
          sendingFee: feeOf(v, 'sendingFee'),
          receivingFee: feeOf(v, 'receivingFee'),
        }),
      ),
    done: (after) =>
      `Changed ${a.code}: ${changes(a, after, [
        ['low below', (x) => (x.liquidityThreshold ? units(x.liquidityThreshold, x.scale) : '–')],
        ['sending fee', (x) => feeText(x.sendingFee, x.scale)],
        ['receiving fee', (x) => feeText(x.receivingFee, x.scale)],
      ])}`,
  };
}

export const AssetsPage = () => (
  <ListPage<Asset>
    route="/assets"
    label="Assets"
    create={newAsset}
    change={changeAsset}
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

// Whether a wallet address takes new payments (PATCH /wallet-addresses/{id} `status`).
const statusOf = (w: WalletAddress): string => ('status' in w && typeof w.status === 'string' ? w.status : 'active');
const yesNo = (b: boolean) => (b ? 'yes' : 'no');

const newWalletAddress: FormSpec<WalletAddress> = {
  title: 'New wallet address',
  fields: [
    { name: 'address', label: 'Address', hint: 'a URL under the node’s prefix' },
    { name: 'assetCode', label: 'Asset code' },
    { name: 'publicName', label: 'Public name', hint: 'optional' },
    { name: 'approvalRequired', label: 'Incoming payments need approval', checkbox: true },
  ],
  initial: { address: '', assetCode: '', publicName: '', approvalRequired: false },
  send: (v, key) =>
    admin(
      'POST',
      '/wallet-addresses',
      {
        address: text(v, 'address'),
        assetCode: text(v, 'assetCode'),
        ...(text(v, 'publicName') && { publicName: text(v, 'publicName') }),
        ...(v.approvalRequired === true && { approvalRequired: true }),
      },
      key,
    ),
  done: (w) => `Created ${w.address} (${w.assetCode})`,
};

function changeWalletAddress(w: WalletAddress): FormSpec<WalletAddress> {
  const was: Values = { publicName: w.publicName ?? '', approvalRequired: w.approvalRequired, status: statusOf(w) };
  return {
    title: `Change ${w.address}`,
    fields: [
      { name: 'publicName', label: 'Public name' },
      { name: 'approvalRequired', label: 'Incoming payments need approval', checkbox: true },
      { name: 'status', label: 'Status', options: ['active', 'inactive'], hint: 'inactive: no new intents, quotes, payments or grants' },
    ],
    initial: was,
    send: (v) =>
      admin(
        'PATCH',
        `/wallet-addresses/${w.id}`,
        changedOnly({
          publicName: text(v, 'publicName') === text(was, 'publicName') ? undefined : text(v, 'publicName'),
          approvalRequired: v.approvalRequired === was.approvalRequired ? undefined : v.approvalRequired,
          status: v.status === was.status ? undefined : v.status,
        }),
      ),
    done: (after) =>
      `Changed ${w.address}: ${changes(w, after, [
        ['name', (x) => x.publicName ?? '–'],
        ['approval', (x) => yesNo(x.approvalRequired)],
        ['status', statusOf],
      ])}`,
  };
}

export const WalletAddressesPage = () => (
  <ListPage<WalletAddress>
    route="/wallet-addresses"
    label="Wallet addresses"
    create={newWalletAddress}
    change={changeWalletAddress}
    columns={[
      { label: 'Address', cell: (w) => <code>{w.address}</code> },
      { label: 'Name', cell: (w) => w.publicName ?? '–' },
      { label: 'Asset', cell: (w) => `${w.assetCode} (${w.assetScale})` },
      { label: 'Approval', cell: (w) => yesNo(w.approvalRequired) },
      { label: 'Status', cell: (w) => <span class={`state ${statusOf(w)}`}>{statusOf(w)}</span> },
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

// What an account holds, in its asset's minor units: the sum of its transfers (GET /ledger/transfers).
async function held(account: string): Promise<bigint> {
  let sum = 0n;
  for (let cursor: string | null = null, first = true; first || cursor; first = false) {
    const q = new URLSearchParams({ account, limit: '100', ...(cursor && { cursor }) });
    const page: Page<Transfer> = await admin('GET', `/ledger/transfers?${q}`);
    for (const t of page.items) sum += t.direction === 'debit' ? -BigInt(t.amount.value) : BigInt(t.amount.value);
    cursor = page.nextCursor;
  }
  return sum;
}
// A page's records with what each holds, for those that may hold something (the others: 0).
const withHeld =
  <T extends { id: string; state: string }>(kind: 'intent' | 'payment', mayHold: readonly string[]) =>
  (items: T[]) =>
    Promise.all(items.map(async (r) => ({ ...r, held: mayHold.includes(r.state) ? await held(`${kind}:${r.id}`) : 0n })));
// A withdrawal's answer, said: what left, or that nothing did.
const withdrew = (r: { withdrawnAmount: Amount }) =>
  r.withdrawnAmount.value === '0' ? 'Nothing withdrawn: it held nothing' : `Withdrew ${money(r.withdrawnAmount)} to the FSP`;

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

// The scale of the asset a peer's amounts are in, for a form's amounts (0 when the code is unknown:
// the API refuses the code then, at its field).
const scaleOf = async (code: string) => (await admin<Page<Asset>>('GET', '/assets?limit=100')).items.find((a) => a.code === code)?.scale ?? 0;
const tokens = (typed: string) => typed.split(/[\s,]+/).filter(Boolean);

const newPeer: FormSpec<Peer> = {
  title: 'New peer',
  fields: [
    { name: 'name', label: 'Name', hint: 'optional' },
    { name: 'staticIlpAddress', label: 'ILP address', hint: 'e.g. test.node-b' },
    { name: 'assetCode', label: 'Asset code' },
    { name: 'http.incoming.authTokens', label: 'Tokens it sends', hint: 'one or more, by spaces' },
    { name: 'http.outgoing.authToken', label: 'Token we send' },
    { name: 'http.outgoing.endpoint', label: 'Its connector', hint: 'e.g. http://localhost:4004/ilp' },
    { name: 'maxPacketAmount', label: 'Largest packet', hint: 'optional' },
    { name: 'liquidityThreshold', label: 'Low liquidity below', hint: 'optional' },
  ],
  initial: {},
  send: async (v, key) => {
    const amounts = text(v, 'maxPacketAmount') || text(v, 'liquidityThreshold');
    const scale = amounts ? await scaleOf(text(v, 'assetCode')) : 0;
    const maxPacketAmount = minorUnits(text(v, 'maxPacketAmount'), scale);
    const liquidityThreshold = minorUnits(text(v, 'liquidityThreshold'), scale);
    return admin(
      'POST',
      '/peers',
      {
        ...(text(v, 'name') && { name: text(v, 'name') }),
        staticIlpAddress: text(v, 'staticIlpAddress'),
        assetCode: text(v, 'assetCode'),
        http: {
          incoming: { authTokens: tokens(text(v, 'http.incoming.authTokens')) },
          outgoing: { authToken: text(v, 'http.outgoing.authToken'), endpoint: text(v, 'http.outgoing.endpoint') },
        },
        ...(maxPacketAmount !== undefined && { maxPacketAmount }),
        ...(liquidityThreshold !== undefined && { liquidityThreshold }),
      },
      key,
    );
  },
  done: (p) => `Created ${p.name ?? p.staticIlpAddress} (${p.assetCode})`,
};

function changePeer(p: Peer): FormSpec<Peer> {
  const amount = (value: string | null) => (value ? units(value, p.assetScale) : '');
  const was: Values = {
    name: p.name ?? '',
    maxPacketAmount: amount(p.maxPacketAmount),
    liquidityThreshold: amount(p.liquidityThreshold),
    'http.outgoing.endpoint': p.http.outgoing.endpoint,
    'http.outgoing.authToken': '',
  };
  const outgoing = (v: Values) =>
    text(v, 'http.outgoing.endpoint') === text(was, 'http.outgoing.endpoint') && !text(v, 'http.outgoing.authToken')
      ? undefined
      : { outgoing: { endpoint: text(v, 'http.outgoing.endpoint'), authToken: text(v, 'http.outgoing.authToken') } };
  return {
    title: `Change ${p.name ?? p.staticIlpAddress}`,
    fields: [
      { name: 'name', label: 'Name' },
      { name: 'maxPacketAmount', label: 'Largest packet', hint: `${p.assetCode}; empty: any` },
      { name: 'liquidityThreshold', label: 'Low liquidity below', hint: `${p.assetCode}; empty: none` },
      { name: 'http.outgoing.endpoint', label: 'Its connector' },
      { name: 'http.outgoing.authToken', label: 'Token we send', hint: 'to change it or the connector' },
    ],
    initial: was,
    send: (v) =>
      admin(
        'PATCH',
        `/peers/${p.id}`,
        changedOnly({
          name: text(v, 'name') === text(was, 'name') ? undefined : text(v, 'name'),
          maxPacketAmount: edited(v, was, 'maxPacketAmount', (t) => minorUnits(t, p.assetScale)),
          liquidityThreshold: edited(v, was, 'liquidityThreshold', (t) => minorUnits(t, p.assetScale)),
          http: outgoing(v),
        }),
      ),
    done: (after) =>
      `Changed ${p.name ?? p.staticIlpAddress}: ${changes(p, after, [
        ['name', (x) => x.name ?? '–'],
        ['largest packet', (x) => amount(x.maxPacketAmount) || '–'],
        ['low below', (x) => amount(x.liquidityThreshold) || '–'],
        ['connector', (x) => x.http.outgoing.endpoint],
      ])}`,
  };
}

export const PeersPage = () => (
  <ListPage<Peer>
    route="/peers"
    label="Peers"
    create={newPeer}
    change={changePeer}
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

const pushRate: FormSpec<Rate> = {
  title: 'Push a rate',
  fields: [
    { name: 'sourceAssetCode', label: 'From', hint: 'e.g. USD' },
    { name: 'destinationAssetCode', label: 'To', hint: 'e.g. EUR' },
    { name: 'rate', label: 'Rate', hint: 'what one unit of From buys of To' },
    { name: 'peerId', label: 'Peer id', hint: 'optional: the rate given that peer' },
    { name: 'rateTtlSecs', label: 'Lives (seconds)', hint: 'optional, 3600 by default' },
  ],
  initial: {},
  send: (v, key) =>
    admin(
      'POST',
      '/rates',
      {
        sourceAssetCode: text(v, 'sourceAssetCode').toUpperCase(),
        destinationAssetCode: text(v, 'destinationAssetCode').toUpperCase(),
        rate: numberOr(text(v, 'rate')),
        ...(text(v, 'peerId') && { peerId: text(v, 'peerId') }),
        ...(text(v, 'rateTtlSecs') && { rateTtlSecs: numberOr(text(v, 'rateTtlSecs')) }),
      },
      key,
    ),
  done: (r) =>
    `Pushed ${r.sourceAssetCode} → ${r.destinationAssetCode} at ${r.rate}${r.peerId ? ` for peer ${r.peerId}` : ''}, until ${r.expiresAt ? time(r.expiresAt) : 'replaced'}`,
};

// There is no list of rates: the Admin API answers the rate in effect for one pair (and peer).
export function RatesPage() {
  const [pushing, setPushing] = useState(false);
  const [said, setSaid] = useState<string>();
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
        {may('admin') && (
          <button type="button" onClick={() => setPushing(true)}>
            {pushRate.title}
          </button>
        )}
        <Alert text={error} />
        <Said text={said} />
      </form>
      {pushing && (
        <FormDialog
          spec={pushRate}
          close={(text) => {
            setPushing(false);
            if (text) setSaid(text);
          }}
        />
      )}
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
                <td class="numeric">{ledgerUnits(a.sum, LEDGER_SCALE, a.assetScale)}</td>
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
                <td class="numeric">{ledgerUnits(u.balance, LEDGER_SCALE, 0)}</td>
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

import { useState } from 'preact/hooks';
import type { RouteResponse } from '../../lib/api/routes';
import { admin } from '../api';
import { changedOnly, changes, type FormSpec, text, type Values } from '../forms';
import { created, ListPage, time } from '../list';
import type { PageProps } from '../pages';
import { aboutLinks, RecordPage } from '../record';
import { IntentsList } from './payment-intents';
import { PaymentsList } from './payments';

// #/wallet-addresses: the wallet addresses, each one's keys on demand; an admin creates and changes one.

type WalletAddress = RouteResponse<'getWalletAddress'>;

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

// #/wallet-addresses, or one wallet address's page: #/wallet-addresses/<id>.
export const WalletAddressesPage = ({ args }: PageProps) => (args[0] ? <WalletAddressPage id={args[0]} /> : <WalletAddressesList />);

const WalletAddressesList = () => (
  <ListPage<WalletAddress>
    route="/wallet-addresses"
    label="Wallet addresses"
    create={newWalletAddress}
    change={changeWalletAddress}
    columns={[
      {
        label: 'Address',
        cell: (w) => (
          <a href={`#/wallet-addresses/${w.id}`}>
            <code>{w.address}</code>
          </a>
        ),
      },
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

// One wallet address: its fields and keys, the payments it sent and the payment intents it received on.
const WalletAddressPage = ({ id }: { id: string }) => (
  <RecordPage<WalletAddress>
    route={`/wallet-addresses/${id}`}
    label="Wallet address"
    back={{ href: '#/wallet-addresses', text: 'All wallet addresses' }}
    more={(w) => (
      <>
        <p>
          <Keys id={w.id} /> · {aboutLinks(w.id)}
        </p>
        <h2>Payments it sent</h2>
        <PaymentsList query={{ walletAddress: w.address }} />
        <h2>Its payment intents</h2>
        <IntentsList query={{ walletAddress: w.address }} />
      </>
    )}
  />
);

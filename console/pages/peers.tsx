import type { RouteResponse } from '../../lib/api/routes';
import { money, units } from '../amounts';
import { type Asset, admin, type Page } from '../api';
import { changedOnly, changes, edited, type FormSpec, minorUnits, text, type Values } from '../forms';
import { created, ListPage, liquidityActions, transfersOf, withDetails } from '../list';
import type { PageProps } from '../pages';
import { aboutLinks, RecordPage } from '../record';

// #/peers: the ILP peers, with their liquidity; an admin creates and changes one, and deposits,
// withdraws or holds its liquidity.

type Peer = RouteResponse<'getPeer'>;

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

const PeersList = () => (
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

// #/peers, or one peer's page: #/peers/<id>.
export const PeersPage = ({ args }: PageProps) =>
  args[0] ? (
    <RecordPage
      route={`/peers/${args[0]}`}
      label="Peer"
      back={{ href: '#/peers', text: 'All peers' }}
      more={(p) => (
        <p>
          {transfersOf(`peer:${p.id}`, 'Its liquidity')} · {aboutLinks(String(p.id))}
        </p>
      )}
    />
  ) : (
    <PeersList />
  );

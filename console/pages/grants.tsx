import type { RouteResponse } from '../../lib/api/routes';
import { admin } from '../api';
import { ListPage, time } from '../list';
import type { PageProps } from '../pages';
import { aboutLinks, RecordPage } from '../record';

// The Open Payments grants the node's users gave apps (GET /grants), each revocable: its access
// token stops working at the app's next request.
type Grant = RouteResponse<'listGrants'>['items'][number];

const accessOf = (g: Grant) => g.access.map((a) => `${a.type}: ${a.actions.join(', ')}${a.limits ? ' (limited)' : ''}`).join('; ');

const GrantsList = () => (
  <ListPage<Grant>
    route="/grants"
    label="Grants"
    filters={[
      { name: 'walletAddress', label: 'Wallet address' },
      { name: 'client', label: 'Client' },
      { name: 'state', label: 'State', options: ['pending', 'consented', 'approved', 'rejected', 'revoked'] },
    ]}
    columns={[
      { label: 'State', cell: (g) => <span class={`state ${g.state}`}>{g.state}</span> },
      { label: 'Client', cell: (g) => <code>{'walletAddress' in g.client ? g.client.walletAddress : `key ${g.client.jwk.kid}`}</code> },
      { label: 'Access', cell: accessOf },
      { label: 'Wallet address', cell: (g) => (g.walletAddress ? <code>{g.walletAddress}</code> : '') },
      { label: 'Created', cell: (g) => time(g.createdAt) },
    ]}
    actions={(g) =>
      g.state === 'revoked' || g.state === 'rejected'
        ? []
        : [
            {
              label: 'Revoke',
              what: "Revoke this grant: its access token stops working at the app's next request, and the app must ask for a new grant.",
              run: () => admin('POST', `/grants/${g.id}/revoke`),
            },
          ]
    }
  />
);

// #/grants, or one grant's page: #/grants/<id>.
export const GrantsPage = ({ args }: PageProps) =>
  args[0] ? (
    <RecordPage route={`/grants/${args[0]}`} label="Grant" back={{ href: '#/grants', text: 'All grants' }} more={(g) => <p>{aboutLinks(String(g.id))}</p>} />
  ) : (
    <GrantsList />
  );

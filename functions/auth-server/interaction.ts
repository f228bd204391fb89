import { tenantNode } from '../../lib/api/context';
import { json, type OpReply, openPaymentsApi } from '../../lib/api/http/open-payments';
import { decideInteraction, type FrontChannel, finishInteraction, grantForIdp, startInteraction } from '../../lib/auth-server/interaction';

// An interactive grant's interaction (lib/auth-server/interaction.ts): the user's browser at
// /interact/… and the FSP's consent page at /grant/… (x-idp-secret), Rafiki's Identity Provider
// interface. The only function that reads the IdP secret.
const front = (r: FrontChannel): OpReply =>
  r.status === 202
    ? { status: 202 }
    : { status: 302, headers: { location: r.location, 'cache-control': 'no-store', ...(r.cookie && { 'set-cookie': r.cookie }) } };

export const handler = openPaymentsApi({ server: 'authServer', tenants: tenantNode }, [
  { method: 'GET', path: '/interact/{id}/{nonce}', handler: async (req, node) => front(await startInteraction(node, req.params.id, req.params.nonce)) },
  {
    method: 'GET',
    path: '/interact/{id}/{nonce}/finish',
    handler: async (req, node) => front(await finishInteraction(node, req.params.id, req.params.nonce, req.signed.headers.cookie)),
  },
  {
    method: 'GET',
    path: '/grant/{id}/{nonce}',
    handler: async (req, node) => json(200, await grantForIdp(node, req.params.id, req.params.nonce, req.signed.headers['x-idp-secret'])),
  },
  {
    method: 'POST',
    path: '/grant/{id}/{nonce}/{choice}',
    handler: async (req, node) => {
      await decideInteraction(node, req.params.id, req.params.nonce, req.params.choice, req.signed.headers['x-idp-secret']);
      return { status: 202 };
    },
  },
]);

import { cancelGrant, continueGrant, discovery, requestGrant, revokeAccessToken, rotateToken } from '../../lib/auth-server';
import { continueRequest, grantRequest } from '../../lib/auth-server/schemas';
import { node } from '../../lib/config';
import { json, openPaymentsApi, parseJson } from '../../lib/http/open-payments';

// The Open Payments authorization server's public API (GNAP): discovery, grants, continuation,
// token management (lib/auth-server). Every request but discovery is signed by the client; see
// docs/open-payments.md. The interaction (/interact/…, /grant/…) is another function's (./interaction.ts).
const noContent = { status: 204 };

export const handler = openPaymentsApi(
  () => node.urls.authServer,
  [
    { method: 'GET', path: '/', handler: async () => json(200, discovery(node)) },
    { method: 'GET', path: '/discovery', handler: async () => json(200, discovery(node)) },
    { method: 'POST', path: '/', handler: async (req) => json(200, await requestGrant(node, parseJson(req, grantRequest), req.signed)) },
    {
      method: 'POST',
      path: '/continue/{id}',
      handler: async (req) => json(200, await continueGrant(node, req.params.id, req.token, req.signed, parseJson(req, continueRequest))),
    },
    {
      method: 'DELETE',
      path: '/continue/{id}',
      handler: async (req) => {
        await cancelGrant(node, req.params.id, req.token, req.signed);
        return noContent;
      },
    },
    { method: 'POST', path: '/token/{id}', handler: async (req) => json(200, await rotateToken(node, req.params.id, req.token, req.signed)) },
    {
      method: 'DELETE',
      path: '/token/{id}',
      handler: async (req) => {
        await revokeAccessToken(node, req.params.id, req.token, req.signed);
        return noContent;
      },
    },
  ],
);

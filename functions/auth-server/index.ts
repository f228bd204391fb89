import { tenantNode } from '../../lib/api/context';
import { verifySignature } from '../../lib/api/http/message-signatures';
import { json, type OpRequest, openPaymentsApi, parseJson } from '../../lib/api/http/open-payments';
import { cancelGrant, continueGrant, discovery, type KeyProof, requestGrant, revokeAccessToken, rotateToken } from '../../lib/auth-server';
import { continueRequest, grantRequest } from '../../lib/auth-server/schemas';

// The Open Payments authorization server's public API (GNAP): discovery, grants, continuation,
// token management (lib/auth-server). Every request but discovery is signed by the client; see
// docs/open-payments.md. The interaction (/interact/…, /grant/…) is another function's (./interaction.ts).
const noContent = { status: 204 };
// The request's HTTP message signature, checked against the key the grant's client names.
const proof =
  (req: OpRequest): KeyProof =>
  (findKey) =>
    verifySignature(req.signed, findKey);

export const handler = openPaymentsApi({ server: 'authServer', tenants: tenantNode }, [
  { method: 'GET', path: '/', handler: async (_req, node) => json(200, discovery(node)) },
  { method: 'GET', path: '/discovery', handler: async (_req, node) => json(200, discovery(node)) },
  { method: 'POST', path: '/', handler: async (req, node) => json(200, await requestGrant(node, parseJson(req, grantRequest), proof(req))) },
  {
    method: 'POST',
    path: '/continue/{id}',
    handler: async (req, node) => json(200, await continueGrant(node, req.params.id, req.token, proof(req), parseJson(req, continueRequest))),
  },
  {
    method: 'DELETE',
    path: '/continue/{id}',
    handler: async (req, node) => {
      await cancelGrant(node, req.params.id, req.token, proof(req));
      return noContent;
    },
  },
  { method: 'POST', path: '/token/{id}', handler: async (req, node) => json(200, await rotateToken(node, req.params.id, req.token, proof(req))) },
  {
    method: 'DELETE',
    path: '/token/{id}',
    handler: async (req, node) => {
      await revokeAccessToken(node, req.params.id, req.token, proof(req));
      return noContent;
    },
  },
]);

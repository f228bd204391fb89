import { introspect } from '../../lib/auth-server';
import { introspectionRequest } from '../../lib/auth-server/schemas';
import { node } from '../../lib/config';
import { json, openPaymentsApi, parseJson } from '../../lib/http/open-payments';

// Token introspection for the resource server: POST /introspect on the authorization server's API,
// which only IAM-signed callers reach (infra/resources.yml). Not part of the public GNAP API.
export const handler = openPaymentsApi(
  () => node.urls.authServer,
  [{ method: 'POST', path: '/introspect', handler: async (req) => json(200, await introspect(node, parseJson(req, introspectionRequest))) }],
);

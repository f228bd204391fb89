import { tenantNode } from '../../lib/api/context';
import { json, openPaymentsApi, parseJson } from '../../lib/api/http/open-payments';
import { introspect } from '../../lib/auth-server';
import { introspectionRequest } from '../../lib/auth-server/schemas';

// Token introspection for the resource server: POST /introspect on the authorization server's API,
// which only IAM-signed callers reach (infra/resources.yml). Not part of the public GNAP API.
export const handler = openPaymentsApi({ server: 'authServer', tenants: tenantNode }, [
  { method: 'POST', path: '/introspect', handler: async (req, node) => json(200, await introspect(node, parseJson(req, introspectionRequest))) },
]);

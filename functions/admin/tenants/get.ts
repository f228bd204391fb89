import { adminRoute, ok } from '../../../lib/http/admin';
import { getTenant } from '../../../lib/tenants';
import { tenantParams } from '../../../lib/tenants/schemas';

export const handler = adminRoute({ params: tenantParams, operatorOnly: true }, async ({ params, node }) => ok(await getTenant(node, params.id)));

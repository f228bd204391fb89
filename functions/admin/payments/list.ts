import { adminRoute, ok } from '../../../lib/http/admin';
import { listPayments } from '../../../lib/payments';
import { listPaymentsQuery } from '../../../lib/payments/schemas';

export const handler = adminRoute({ query: listPaymentsQuery }, async ({ query, node }) => ok(await listPayments(node, query)));

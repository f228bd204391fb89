import { adminRoute, ok } from '../../../lib/http/admin';
import { lookUpRate } from '../../../lib/rates';
import { rateQuery } from '../../../lib/rates/schemas';

export const handler = adminRoute({ query: rateQuery }, async ({ query, node }) => ok(await lookUpRate(node, query)));

import { adminRoute, ok } from '../../../lib/http/admin';
import { resolveRate } from '../../../lib/rates';
import { rateQuery } from '../../../lib/rates/schemas';

export const handler = adminRoute({ query: rateQuery }, async ({ query }) => ok(await resolveRate(query)));

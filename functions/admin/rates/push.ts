import { adminRoute, created } from '../../../lib/http/admin';
import { pushRate } from '../../../lib/rates';
import { pushRateBody } from '../../../lib/rates/schemas';

export const handler = adminRoute({ body: pushRateBody }, async ({ body, node }) => created(await pushRate(node, body)));

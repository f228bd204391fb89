import { adminRoute, ok } from '../../../lib/http/admin';
import { idParams } from '../../../lib/http/schemas';
import { getPayment } from '../../../lib/payments';

export const handler = adminRoute({ params: idParams }, async ({ params, node }) => ok(await getPayment(node, params.id)));

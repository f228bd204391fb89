import { adminRoute, ok } from '../../../lib/http/admin';
import { idParams } from '../../../lib/http/schemas';
import { cancelPayment } from '../../../lib/payments';

export const handler = adminRoute({ params: idParams, transactional: true }, async ({ params, node }) => ok(await cancelPayment(node, params.id)));

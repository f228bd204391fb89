import { adminRoute, ok } from '../../../lib/http/admin';
import { idParams } from '../../../lib/http/schemas';
import { withdrawPayment } from '../../../lib/payments';

export const handler = adminRoute({ params: idParams, transactional: true }, async ({ params, node }) => ok(await withdrawPayment(node, params.id)));

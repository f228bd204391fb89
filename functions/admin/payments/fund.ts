import { adminRoute, ok } from '../../../lib/http/admin';
import { idParams } from '../../../lib/http/schemas';
import { fundPayment } from '../../../lib/payments';

export const handler = adminRoute({ params: idParams, transactional: true }, async ({ params }) => ok(await fundPayment(params.id)));

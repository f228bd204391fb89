import { adminRoute, created } from '../../../lib/http/admin';
import { createPayment } from '../../../lib/payments';
import { createPaymentBody } from '../../../lib/payments/schemas';

export const handler = adminRoute({ body: createPaymentBody, transactional: true }, async ({ body, node }) => created(await createPayment(node, body)));

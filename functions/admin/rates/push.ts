import { adminRoute } from '../../../lib/api/http/admin';
import { routes } from '../../../lib/api/routes';
import { pushRate } from '../../../lib/rates';

export const handler = adminRoute(routes.pushRate, ({ body, node }) => pushRate(node, body));

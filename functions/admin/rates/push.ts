import { adminRoute } from '../../../lib/http/admin';
import { pushRate } from '../../../lib/rates';
import { routes } from '../../../lib/routes';

export const handler = adminRoute(routes.pushRate, ({ body, node }) => pushRate(node, body));

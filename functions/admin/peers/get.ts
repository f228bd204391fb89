import { adminRoute } from '../../../lib/api/http/admin';
import { routes } from '../../../lib/api/routes';
import { getPeer } from '../../../lib/peers';

export const handler = adminRoute(routes.getPeer, ({ params, node }) => getPeer(node, params.id));

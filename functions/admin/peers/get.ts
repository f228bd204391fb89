import { adminRoute } from '../../../lib/http/admin';
import { getPeer } from '../../../lib/peers';
import { routes } from '../../../lib/routes';

export const handler = adminRoute(routes.getPeer, ({ params, node }) => getPeer(node, params.id));

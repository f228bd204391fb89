import { adminRoute } from '../../../lib/api/http/admin';
import { routes } from '../../../lib/api/routes';
import { lookUpRate } from '../../../lib/rates';

export const handler = adminRoute(routes.getRate, ({ query, node }) => lookUpRate(node, query));

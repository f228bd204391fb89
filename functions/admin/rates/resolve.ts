import { adminRoute } from '../../../lib/http/admin';
import { lookUpRate } from '../../../lib/rates';
import { routes } from '../../../lib/routes';

export const handler = adminRoute(routes.getRate, ({ query, node }) => lookUpRate(node, query));

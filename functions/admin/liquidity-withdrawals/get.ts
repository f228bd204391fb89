import { adminRoute } from '../../../lib/api/http/admin';
import { routes } from '../../../lib/api/routes';
import { getWithdrawal } from '../../../lib/liquidity-withdrawals';

export const handler = adminRoute(routes.getLiquidityWithdrawal, ({ params, node }) => getWithdrawal(node, params.id));

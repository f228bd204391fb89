import { adminRoute } from '../../../lib/http/admin';
import { getWithdrawal } from '../../../lib/liquidity-withdrawals';
import { routes } from '../../../lib/routes';

export const handler = adminRoute(routes.getLiquidityWithdrawal, ({ params, node }) => getWithdrawal(node, params.id));

import { adminRoute } from '../../../lib/http/admin';
import { postWithdrawal } from '../../../lib/liquidity-withdrawals';
import { routes } from '../../../lib/routes';

export const handler = adminRoute(routes.postLiquidityWithdrawal, ({ params, node }) => postWithdrawal(node, params.id));

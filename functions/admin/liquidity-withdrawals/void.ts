import { adminRoute } from '../../../lib/http/admin';
import { voidWithdrawal } from '../../../lib/liquidity-withdrawals';
import { routes } from '../../../lib/routes';

export const handler = adminRoute(routes.voidLiquidityWithdrawal, ({ params, node }) => voidWithdrawal(node, params.id));

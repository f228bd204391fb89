import { adminRoute } from '../../../lib/api/http/admin';
import { routes } from '../../../lib/api/routes';
import { voidWithdrawal } from '../../../lib/liquidity-withdrawals';

export const handler = adminRoute(routes.voidLiquidityWithdrawal, ({ params, node }) => voidWithdrawal(node, params.id));

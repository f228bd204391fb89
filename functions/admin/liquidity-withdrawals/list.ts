import { adminRoute } from '../../../lib/http/admin';
import { listPendingWithdrawals } from '../../../lib/liquidity-withdrawals';
import { routes } from '../../../lib/routes';

export const handler = adminRoute(routes.listLiquidityWithdrawals, ({ query, node }) => listPendingWithdrawals(node, query.limit, query.cursor));

import { adminRoute } from '../../../lib/api/http/admin';
import { routes } from '../../../lib/api/routes';
import { listPendingWithdrawals } from '../../../lib/liquidity-withdrawals';

export const handler = adminRoute(routes.listLiquidityWithdrawals, ({ query, node }) => listPendingWithdrawals(node, query.limit, query.cursor));

// Made from its route's declaration (getLiquidityWithdrawal, lib/api/routes/assets.ts) by infra/route-handlers.ts: change that, not this.
import { adminRoute } from '../../../lib/api/http/admin';
import { routes } from '../../../lib/api/routes';
import { getWithdrawal } from '../../../lib/liquidity-withdrawals';

export const handler = adminRoute(routes.getLiquidityWithdrawal, ({ params, node }) => getWithdrawal(node, params.id));

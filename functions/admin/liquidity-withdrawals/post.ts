// Made from its route's declaration (postLiquidityWithdrawal, lib/api/routes/assets.ts) by infra/route-handlers.ts: change that, not this.
import { adminRoute } from '../../../lib/api/http/admin';
import { routes } from '../../../lib/api/routes';
import { postWithdrawal } from '../../../lib/liquidity-withdrawals';

export const handler = adminRoute(routes.postLiquidityWithdrawal, ({ params, node }) => postWithdrawal(node, params.id));

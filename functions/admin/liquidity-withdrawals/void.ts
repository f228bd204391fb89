// Made from its route's declaration (voidLiquidityWithdrawal, lib/api/routes/assets.ts) by infra/route-handlers.ts: change that, not this.
import { adminRoute } from '../../../lib/api/http/admin';
import { routes } from '../../../lib/api/routes';
import { voidWithdrawal } from '../../../lib/liquidity-withdrawals';

export const handler = adminRoute(routes.voidLiquidityWithdrawal, ({ params, node }) => voidWithdrawal(node, params.id));

// Made from its route's declaration (checkLedger, lib/api/routes/assets.ts) by infra/route-handlers.ts: change that, not this.
import { adminRoute } from '../../../lib/api/http/admin';
import { routes } from '../../../lib/api/routes';
import { checkLedger } from '../../../lib/ledger-check';

export const handler = adminRoute(routes.checkLedger, ({ node }) => checkLedger(node));

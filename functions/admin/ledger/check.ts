import { adminRoute } from '../../../lib/http/admin';
import { checkLedger } from '../../../lib/ledger-check';
import { routes } from '../../../lib/routes';

export const handler = adminRoute(routes.checkLedger, ({ node }) => checkLedger(node));

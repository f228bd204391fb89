import { adminRoute } from '../../../lib/http/admin';
import { listTransfers } from '../../../lib/ledger-check/transfers';
import { routes } from '../../../lib/routes';

export const handler = adminRoute(routes.listLedgerTransfers, ({ query, node }) => listTransfers(node, query.account, query.limit, query.cursor));

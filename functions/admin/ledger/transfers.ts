import { adminRoute } from '../../../lib/api/http/admin';
import { routes } from '../../../lib/api/routes';
import { listTransfers } from '../../../lib/ledger-check/transfers';

export const handler = adminRoute(routes.listLedgerTransfers, ({ query, node }) => listTransfers(node, query.account, query.limit, query.cursor));

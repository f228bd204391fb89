import { adminRoute, ok } from '../../../lib/http/admin';
import { checkLedger } from '../../../lib/ledger-check';

export const handler = adminRoute({}, async ({ node }) => ok(await checkLedger(node)));

import { forEachTenant } from '../../lib/api/context';
import { expireDueWithdrawals } from '../../lib/liquidity-withdrawals';
import { observed } from '../../lib/platform/tracing';

// Scheduled every minute: voids each tenant's pending liquidity withdrawals past their timeout.
// Answers how many it voided, over the tenants.
export const handler = observed(async () => (await forEachTenant(expireDueWithdrawals)).reduce((a, b) => a + b, 0));

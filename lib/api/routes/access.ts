// Every role of the Admin API's functions, by name: those routes share (./roles.ts) and each tag's
// own. Apart from the route table (./index.ts), which every Admin function bundles: only the template
// needs them (infra/serverless/admin-routes.cjs).
import { assetsRoles } from './assets';
import { auditEventsRoles } from './audit-events';
import { docsRoles } from './docs';
import { grantsRoles } from './grants';
import { paymentIntentsRoles } from './payment-intents';
import { paymentsRoles } from './payments';
import { peersRoles } from './peers';
import { quotesRoles } from './quotes';
import { ratesRoles } from './rates';
import { receiversRoles } from './receivers';
import { sharedRoles } from './roles';
import type { FunctionRoles } from './route';
import { searchRoles } from './search';
import { tenantsRoles } from './tenants';
import { walletAddressesRoles } from './wallet-addresses';
import { webhookEventsRoles } from './webhook-events';

export const adminRoles: FunctionRoles = {
  ...sharedRoles,
  ...assetsRoles,
  ...walletAddressesRoles,
  ...ratesRoles,
  ...paymentIntentsRoles,
  ...receiversRoles,
  ...quotesRoles,
  ...paymentsRoles,
  ...peersRoles,
  ...grantsRoles,
  ...webhookEventsRoles,
  ...auditEventsRoles,
  ...tenantsRoles,
  ...searchRoles,
  ...docsRoles,
};

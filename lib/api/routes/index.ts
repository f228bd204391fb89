// The Admin API's route table: every route of every tag, each declared once in its tag's file
// (./route.ts says what a declaration holds). The handlers take their spec from it, the OpenAPI
// document is built from it, and serverless.yml's Admin functions and their roles are made from it
// (infra/serverless/admin-routes.cjs).
import * as z from 'zod';
import { assetsRoutes } from './assets';
import { auditEventsRoutes } from './audit-events';
import { docsRoutes } from './docs';
import { grantsRoutes } from './grants';
import { paymentIntentsRoutes } from './payment-intents';
import { paymentsRoutes } from './payments';
import { peersRoutes } from './peers';
import { quotesRoutes } from './quotes';
import { ratesRoutes } from './rates';
import { receiversRoutes } from './receivers';
import type { Route } from './route';
import { searchRoutes } from './search';
import { tenantsRoutes } from './tenants';
import { walletAddressesRoutes } from './wallet-addresses';
import { webhookEventsRoutes } from './webhook-events';

export { assetLiquidityWithdrawn, assetPage, ledgerTransferPage, liquidityWithdrawalPage } from './assets';
export { auditEventPage } from './audit-events';
export { openApiDocumentSchema } from './docs';
export { grantPage } from './grants';
export { paymentIntentPage, paymentIntentWithdrawal } from './payment-intents';
export { paymentPage, paymentWithdrawal } from './payments';
export { peerLiquidityWithdrawn, peerPage } from './peers';
export { type FunctionRoles, neededRole, type Route, type RouteEntry, tags } from './route';
export { tenantPage } from './tenants';
export { walletAddressKeyList, walletAddressOrPage, walletAddressPage } from './wallet-addresses';
export { webhookEventPage } from './webhook-events';

// In the order of the tags (the OpenAPI document's).
export const routes = {
  ...assetsRoutes,
  ...walletAddressesRoutes,
  ...ratesRoutes,
  ...paymentIntentsRoutes,
  ...receiversRoutes,
  ...quotesRoutes,
  ...paymentsRoutes,
  ...peersRoutes,
  ...grantsRoutes,
  ...webhookEventsRoutes,
  ...auditEventsRoutes,
  ...tenantsRoutes,
  ...searchRoutes,
  ...docsRoutes,
};

export const allRoutes: Route[] = Object.values(routes);

// What a route answers, for clients in this repository (the console) to name by type only.
export type RouteResponse<K extends keyof typeof routes> = (typeof routes)[K] extends { response: infer S extends z.ZodType } ? z.output<S> : undefined;
export const signedRoutes = allRoutes.filter((r) => !r.isPublic);

// Whether a route takes an Idempotency-Key: every POST but those whose answer holds secrets, which
// the idempotency layer would store (lib/api/http/admin.ts refuses the header on them).
export const takesIdempotencyKey = (route: Pick<Route, 'method' | 'answersSecrets'>) => route.method === 'post' && !route.answersSecrets;

// The object a query is documented and fuzzed by: itself, or what its cross-field check leads into.
export function queryFields(route: Route): z.ZodObject | undefined {
  const q = route.query;
  return q instanceof z.ZodPipe ? (q.out as z.ZodObject) : (q as z.ZodObject | undefined);
}

// A handler marked with the route it serves, so that a test can tell that each function of
// serverless.yml serves the route the table gives it.
export const serving = <H extends object>(route: Route, handler: H): H & { route: string } => Object.assign(handler, { route: route.id });

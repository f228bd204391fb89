// What an Admin API route's declaration holds: what it is (method, path, schemas, status, answer,
// the errors it can give), what the signed stack does for it (lib/api/http/admin.ts), and the
// Lambda function that serves it: its name, its handler and its role with what that role allows.
// Each route is declared once, in its tag's file beside this one; from the declarations come the
// route table (./index.ts), the OpenAPI document (lib/api/openapi.ts) and the Admin API's functions
// and their roles in serverless.yml (infra/serverless/admin-routes.cjs, with ./access.ts).
import * as z from 'zod';
import type { AuditedKind } from '../../shared/audited';
import type { CatalogEntry } from '../../shared/errors';
import type { Role } from '../../shared/operators';

// Request and response shapes every tag's routes share (the values in them are lib/shared/values.ts).
export const idParams = z.object({ id: z.uuid() });
export const page = <T extends z.ZodType>(item: T) => z.object({ items: z.array(item), nextCursor: z.string().nullable() });

export const tags = [
  { name: 'Assets', description: 'The currencies the FSP holds, each with the liquidity that pays out.' },
  { name: 'Wallet addresses', description: 'The accounts that send and receive, published over Open Payments.' },
  { name: 'Rates', description: 'Exchange rates: pushed by the FSP, or pulled from its rates endpoint and cached.' },
  { name: 'Payment intents', description: 'Payments a wallet address expects (Open Payments incoming payments).' },
  { name: 'Quotes', description: 'What a payment to an incoming payment will debit and deliver.' },
  {
    name: 'Receivers',
    description: "Incoming payments on any node, this one's or another's, made, read and completed over Open Payments as this node's own client.",
  },
  { name: 'Payments', description: 'Outgoing payments made from quotes: funded by the FSP, then sent.' },
  { name: 'Peers', description: 'The nodes this one exchanges Interledger packets with, and the credit each has.' },
  { name: 'Grants', description: "What the FSP's users let Open Payments apps do: listed, and revoked." },
  { name: 'Webhook events', description: 'The events sent to the FSP, with every delivery attempt.' },
  { name: 'Audit events', description: 'What each operator signed in to the console did: who, with which role, when, to what, and the outcome.' },
  { name: 'Tenants', description: "The FSPs the deployment serves besides its operator's: the operator's alone to manage." },
  { name: 'Search', description: 'Anything of the tenant found by its id or URL.' },
  { name: 'Docs', description: 'This document.' },
] as const;

type Tag = (typeof tags)[number]['name'];

// Functions' roles by name (infra/serverless/function-roles.cjs makes them), each by resource (a
// table, `<table>/index`, a queue, `secrets` by name, ...) the actions its code calls and nothing
// more. A package test derives each function's calls from its bundle and fails on anything a role
// lacks or grants beyond them. Routes share a role (./roles.ts) only when they need the same; a
// route's own is beside it, in its tag's file. (Apart from the table, which every Admin function
// bundles: the roles are the template's alone.)
export type FunctionRoles = Record<string, Record<string, readonly string[]>>;

export interface RouteEntry {
  tag: Tag;
  method: 'get' | 'post' | 'patch' | 'delete';
  path: string;
  summary: string;
  description?: string;
  params?: z.ZodObject;
  // An object, or one checked across its fields (z.preprocess into an object: queryFields).
  query?: z.ZodType;
  body?: z.ZodType;
  // What the route answers on success (the handler returns the body only).
  status: 200 | 201 | 202 | 204;
  response?: z.ZodType;
  // The errors of the catalogs this route can answer; those every route shares are added by
  // openApiDocument(), and each is documented under its catalog's status.
  problems?: CatalogEntry[];
  // Every write of this route goes through lib/platform/tx commit(): the signature's replay guard then
  // rides in that transaction instead of costing a round trip of its own.
  transactional?: true;
  // The record it creates (its kind, lib/shared/audited), under the first id the request draws
  // (lib/platform/ids.ts), or under an id named by what it is for, keeping that first id (a payment,
  // by its quote: lib/shared/audited GUARD_ID): the signature's replay guard is then that record's own
  // Put (lib/api/http/store.ts usedSignature), and rides in no commit of the route before it.
  creates?: AuditedKind;
  // Its record is named by what it is for, not by the drawn id, and keeps that id: true where the
  // route answers the record's id (a payment, named by its quote), else the record's id from the one
  // it answers (a funding's transfer, named by its payment). An Idempotency-Key's replay reads the
  // record there to tell whether this very request made it (lib/api/http/admin.ts namedReplay).
  named?: true | ((answered: string) => string);
  // The operator's alone (the tenants' routes): a tenant's request is 403 operator_only.
  operatorOnly?: true;
  // Its answer holds secrets, which the idempotency layer must not store: an Idempotency-Key is
  // refused (400), and the route makes a retry safe another way.
  answersSecrets?: true;
  // One of the actions an operator takes on a row (approve, cancel, withdraw, post, void, revoke):
  // the console's `operator` role may; other writes need `admin`, and reads `viewer`.
  rowAction?: true;
  // Unsigned: no signature, and none of the signed stack's problems.
  isPublic?: true;
  // Its Lambda function: its name (and so its logical id), its handler (functions/admin/<handler>.ts,
  // which exports `handler`), and its role's name (./roles.ts, or its tag's roles).
  functionName: string;
  handler: string;
  role: string;
  // The domain operation that serves it (lib/<domain>/index.ts's export `name`), called with the
  // node, then the path's fields, the body and the query, as the route has them: its handler is then
  // made from this declaration (infra/route-handlers.ts). Without it, the handler is written by hand
  // (an answer shaped from the operation's, one route for two operations).
  operation?: { domain: string; name: string };
}

// The console's role a route needs (lib/shared/operators.ts): reads, a viewer's; row actions, an operator's;
// other writes, an admin's.
export const neededRole = (route: Pick<RouteEntry, 'method' | 'rowAction'>): Role =>
  route.method === 'get' ? 'viewer' : route.rowAction ? 'operator' : 'admin';

// A table entry with its operationId, which generated clients name their methods after: it never changes.
export type Route = RouteEntry & { id: string };

// A tag's routes, each keyed by its id, which it is given too.
export const declareRoutes = <T extends Record<string, RouteEntry>>(table: T) =>
  Object.fromEntries(Object.entries(table).map(([id, entry]) => [id, { ...entry, id }])) as { [K in keyof T]: T[K] & { id: K } };

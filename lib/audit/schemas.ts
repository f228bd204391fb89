import * as z from 'zod';
import { roles } from '../shared/operators';
import { windowedPageQuery } from '../shared/values';

// The audit trail: every change of a resource, by whoever made it (a signed-in operator, a request
// signed with an Admin API secret, the service itself), and each operator's refused action.
export const auditOutcomes = ['succeeded', 'refused'] as const;
export const actorKinds = ['operator', 'key', 'service'] as const;

export const auditEvent = z.object({
  id: z.uuid(),
  at: z.iso.datetime(),
  // An operator (their sign-in name and role); a key: the tenant whose Admin API secret signed
  // (`operator` for the deployment's); the service: its own work (role-less both).
  actor: z.object({ kind: z.enum(actorKinds), name: z.string(), role: z.enum(roles).optional() }),
  // The route as "<METHOD> <path template>", and its operationId in the OpenAPI document.
  action: z.string(),
  operationId: z.string(),
  // What it acted on: the kind (the path's first segment, singular) and the id in the path, or for
  // a create the new resource's; null where there is none (a pushed rate, a refused create).
  resource: z.object({ type: z.string(), id: z.string().nullable() }),
  tenant: z.string(),
  outcome: z.enum(auditOutcomes),
  status: z.int().optional(), // the HTTP status answered (none for the service's own work)
  code: z.string().optional(), // the problem's code, when refused
  requestId: z.string().optional(), // the Admin API request's (Lambda's request id), as its log line has it
  reason: z.string().optional(), // the request's own, where its route takes one
  // What changed on the resource: each field's value before and after (absent: not there), secrets redacted.
  changes: z.record(z.string(), z.object({ before: z.unknown().optional(), after: z.unknown().optional() })).optional(),
});
export type AuditEvent = z.infer<typeof auditEvent>;

// GET /audit-events: newest first; each filter narrows, `from` and `to` bound the time, [from, to).
export const auditEventsQuery = windowedPageQuery({
  actor: z.string().min(1).max(256).optional(),
  resourceId: z.string().min(1).max(300).optional(), // a wallet address's key: its id, /keys/, and a kid of up to 255
  action: z
    .string()
    .regex(/^(POST|PATCH|PUT|DELETE) \/\S*$/, 'must be a route, e.g. POST /assets/{id}/liquidity')
    .max(256)
    .optional(),
  outcome: z.enum(auditOutcomes).optional(),
});
export type AuditEventsQuery = z.infer<typeof auditEventsQuery>;

import * as z from 'zod';
import { roles } from '../shared/operators';
import { windowedPageQuery } from '../shared/values';

// The audit trail: what each signed-in operator did on the Admin API, succeeded or refused.
export const auditOutcomes = ['succeeded', 'refused'] as const;

export const auditEvent = z.object({
  id: z.uuid(),
  at: z.iso.datetime(),
  actor: z.object({ kind: z.literal('operator'), name: z.string(), role: z.enum(roles) }),
  // The route as "<METHOD> <path template>", and its operationId in the OpenAPI document.
  action: z.string(),
  operationId: z.string(),
  // What it acted on: the kind (the path's first segment, singular) and the id in the path, or for
  // a create the new resource's; null where there is none (a pushed rate, a refused create).
  resource: z.object({ type: z.string(), id: z.string().nullable() }),
  tenant: z.string(),
  outcome: z.enum(auditOutcomes),
  status: z.int(), // the HTTP status answered
  code: z.string().optional(), // the problem's code, when refused
});
export type AuditEvent = z.infer<typeof auditEvent>;

// GET /audit-events: newest first; each filter narrows, `from` and `to` bound the time, [from, to).
export const auditEventsQuery = windowedPageQuery({
  actor: z.string().min(1).max(256).optional(),
  resourceId: z.string().min(1).max(128).optional(),
  action: z
    .string()
    .regex(/^(POST|PATCH|PUT|DELETE) \/\S*$/, 'must be a route, e.g. POST /assets/{id}/liquidity')
    .max(256)
    .optional(),
  outcome: z.enum(auditOutcomes).optional(),
});
export type AuditEventsQuery = z.infer<typeof auditEventsQuery>;

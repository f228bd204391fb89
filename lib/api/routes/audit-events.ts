// The Admin API's routes of the tag Audit events, each declared once (./route.ts says what a declaration holds).
import { auditErrors } from '../../audit/errors';
import { auditEvent, auditEventsQuery } from '../../audit/schemas';
import { ADMIN_API_SECRETS } from './roles';
import { declareRoutes, type FunctionRoles, page } from './route';

export const auditEventPage = page(auditEvent);

export const auditEventsRoutes = declareRoutes({
  listAuditEvents: {
    tag: 'Audit events',
    method: 'get',
    path: '/audit-events',
    summary: "List the audit trail: every change, and operators' refused actions, newest first",
    description:
      'Every change of a resource in the tenant, whoever made it: an operator signed in to the console, a request signed with an Admin API secret ' +
      "(the actor is the tenant whose secret signed), or the service itself; each with the fields it changed, before and after, and the request's id. " +
      'And every action (any method but GET) of an operator that changed nothing: refused, or a no-op. Read from the write-once audit store, ' +
      "which the table's stream feeds within seconds of the change. " +
      "`actor` (an operator's name, a signing tenant's id), `resourceId`, `action` (e.g. `POST /assets/{id}/liquidity`) and `outcome` narrow the list; " +
      '`from` and `to` bound its time, [from, to).',
    query: auditEventsQuery,
    status: 200,
    response: auditEventPage,
    problems: [auditErrors.storeUnavailable],
    functionName: 'auditEventsList',
    handler: 'audit-events/list',
    role: 'AuditEventsListRole',
    operation: { domain: 'audit', name: 'listAuditEvents' },
  },
});

// The roles of these routes' own functions (those they share are in ./roles.ts).
export const auditEventsRoles = {
  // GET /audit-events: the tenant's objects in the write-once store (the tenant: the main table)
  AuditEventsListRole: {
    MainTable: ['GetItem'],
    AuditBucket: ['ListBucket'],
    'AuditBucket/objects': ['GetObject'],
    secrets: ADMIN_API_SECRETS,
  },
} satisfies FunctionRoles;

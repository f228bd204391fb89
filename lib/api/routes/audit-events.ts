// The Admin API's routes of the tag Audit events, each declared once (./route.ts says what a declaration holds).
import { auditEvent, auditEventsQuery } from '../../audit/schemas';
import { ADMIN_API_SECRETS } from './roles';
import { declareRoutes, type FunctionRoles, page } from './route';

export const auditEventPage = page(auditEvent);

export const auditEventsRoutes = declareRoutes({
  listAuditEvents: {
    tag: 'Audit events',
    method: 'get',
    path: '/audit-events',
    summary: "List operators' actions, newest first",
    description:
      'Every action (any method but GET) of an operator signed in to the console, succeeded or refused, in the tenant it acted in. ' +
      "A succeeded action's event was written in the transaction of its change. Requests signed with an Admin API secret are not listed. " +
      "`actor` (an operator's name), `resourceId`, `action` (e.g. `POST /assets/{id}/liquidity`) and `outcome` narrow the list; " +
      '`from` and `to` bound its time, [from, to).',
    query: auditEventsQuery,
    status: 200,
    response: auditEventPage,
    functionName: 'auditEventsList',
    handler: 'audit-events/list',
    role: 'AuditEventsListRole',
    operation: { domain: 'audit', name: 'listAuditEvents' },
  },
});

// The roles of these routes' own functions (those they share are in ./roles.ts).
export const auditEventsRoles = {
  // GET /audit-events: one partition of the main table
  AuditEventsListRole: {
    MainTable: ['GetItem', 'Query'],
    secrets: ADMIN_API_SECRETS,
  },
} satisfies FunctionRoles;

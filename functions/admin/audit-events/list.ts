// Made from its route's declaration (listAuditEvents, lib/api/routes/audit-events.ts) by infra/route-handlers.ts: change that, not this.
import { adminRoute } from '../../../lib/api/http/admin';
import { routes } from '../../../lib/api/routes';
import { listAuditEvents } from '../../../lib/audit';

export const handler = adminRoute(routes.listAuditEvents, ({ query, node }) => listAuditEvents(node, query));

import { listAuditEvents } from '../../../lib/audit';
import { adminRoute } from '../../../lib/http/admin';
import { routes } from '../../../lib/routes';

export const handler = adminRoute(routes.listAuditEvents, ({ query, node }) => listAuditEvents(node, query));

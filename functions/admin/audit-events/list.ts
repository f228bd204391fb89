import { adminRoute } from '../../../lib/api/http/admin';
import { routes } from '../../../lib/api/routes';
import { listAuditEvents } from '../../../lib/audit';

export const handler = adminRoute(routes.listAuditEvents, ({ query, node }) => listAuditEvents(node, query));

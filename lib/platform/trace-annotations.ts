// The route a request took ("POST /payments/{id}/fund", its resource path, not the URL's ids),
// annotated on its trace by the gateway, or by the console's function for the Admin route it hands a
// request to: the local console names a trace by it. (A module of its own, with no Node import, so
// that the console's page, which reads traces, may take it too.)
export const ROUTE_ANNOTATION = 'route';

// The tenant an entry adapter found a request, a message or a schedule's run to be for (lib/api/context.ts),
// annotated on its trace: the local console shows a tenant's staff the traces of their tenant alone.
export const TENANT_ANNOTATION = 'tenant';

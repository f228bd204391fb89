// The routes the CLI (./admin.ts) may send, as the Admin API's OpenAPI document gives them: a METHOD
// and path are checked against it before anything is signed, and a wrong one is told with the routes
// nearest to it.

import { nearRoutes } from '../emulators/near-routes';

export type Document = { paths: Record<string, Record<string, unknown>> };

const METHODS = ['get', 'post', 'put', 'patch', 'delete'];

// Every route of the document, in its order: "GET /assets/{id}" and its summary.
export const documentRoutes = (doc: Document) =>
  Object.entries(doc.paths).flatMap(([path, item]) =>
    Object.entries(item)
      .filter(([method]) => METHODS.includes(method))
      .map(([method, op]) => ({ method: method.toUpperCase(), path, summary: (op as { summary?: string }).summary ?? '' })),
  );

const segments = (path: string) => path.split('?')[0].split('/').slice(1);
// Whether a path (`/grants/7d9b…`) is one of a template's (`/grants/{id}`): a variable is any one segment.
function matches(template: string, path: string): boolean {
  const want = segments(template);
  const got = segments(path);
  return want.length === got.length && want.every((s, i) => (/^\{[^}]+\}$/.test(s) ? got[i] !== '' : s === got[i]));
}

// Why the document has no route METHOD path (undefined: it has it).
export function routeProblem(doc: Document, method: string, path: string): string | undefined {
  const routes = documentRoutes(doc);
  const wanted = method.toUpperCase();
  if (!METHODS.includes(method.toLowerCase())) return `${method} is not a method of the Admin API, which takes ${METHODS.join(', ').toUpperCase()}`;
  if (!path.startsWith('/')) return `${wanted} ${path}: a path begins with /, as in ${wanted} /${path}`;
  const same = routes.filter((r) => matches(r.path, path));
  if (same.some((r) => r.method === wanted)) return undefined;
  const line = (r: { method: string; path: string }) => `  ${r.method} ${r.path}`;
  if (same.length) return `${wanted} ${path}: ${same[0].path} takes ${same.map((r) => r.method).join(', ')}, not ${wanted}`;
  const near = nearRoutes(routes, path);
  return (
    `${wanted} ${path}: the Admin API has no such route` +
    (near.length ? `; its routes under /${segments(near[0].path)[0]}:\n${near.map(line).join('\n')}` : ' (--routes lists them all)')
  );
}

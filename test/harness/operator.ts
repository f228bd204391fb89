import { randomUUID } from 'node:crypto';
import type { Stack } from '../../infra/local/start/stack';
import { signedRoutes } from '../../lib/api/routes';
import type { Reply } from './stack';

// An operator signed in to the console, as a route's function sees one: the API Gateway event the
// console's function hands on (lambda Invoke), with the operator's ID token (the local sign-in's,
// which the functions verify as Cognito's) in requestContext.authorizer.idToken, and no signature.
// `groups` as API Gateway's authorizer renders Cognito's ("admin", "[viewer operator]").
export interface Signed {
  name: string;
  groups: string;
  tenant?: string;
}

const templateOf = (method: string, path: string) => {
  const bare = path.split('?')[0];
  for (const r of signedRoutes) {
    if (r.method !== method.toLowerCase()) continue;
    const names = [...r.path.matchAll(/\{(\w+)\}/g)].map((m) => m[1]);
    const pattern = new RegExp(`^${r.path.replace(/\{\w+\}/g, '([^/]+)')}$`);
    const m = pattern.exec(bare);
    if (m) return { route: r, params: Object.fromEntries(names.map((n, i) => [n, decodeURIComponent(m[i + 1])])) };
  }
  throw new Error(`No route serves ${method} ${bare}`);
};

const groupsOf = (rendered: string) =>
  rendered
    .replace(/^\[|\]$/g, '')
    .split(/[\s,]+/)
    .filter(Boolean);

// `authorizer`: what the event carries instead (a forged one: claims, or a token of another key).
export function operatorAdmin(stack: Pick<Stack, 'invoke' | 'operators'>, who: Signed, authorizer?: Record<string, unknown>) {
  return async (method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<Pick<Reply, 'status' | 'body'>> => {
    const { route, params } = templateOf(method, path);
    const query = new URLSearchParams(path.split('?')[1] ?? '');
    const text = body === undefined ? undefined : JSON.stringify(body);
    const allHeaders = { ...(text && { 'Content-Type': 'application/json' }), ...headers };
    const event = {
      resource: route.path,
      path: path.split('?')[0],
      httpMethod: method,
      headers: allHeaders,
      multiValueHeaders: Object.fromEntries(Object.entries(allHeaders).map(([k, v]) => [k, [v]])),
      queryStringParameters: query.size ? Object.fromEntries(query) : null,
      multiValueQueryStringParameters: query.size ? Object.fromEntries([...new Set(query.keys())].map((k) => [k, query.getAll(k)])) : null,
      pathParameters: Object.keys(params).length ? params : null,
      stageVariables: null,
      body: text ?? null,
      isBase64Encoded: false,
      requestContext: {
        httpMethod: method,
        path: path.split('?')[0],
        resourcePath: route.path,
        requestId: randomUUID(),
        stage: 'local',
        identity: { sourceIp: '127.0.0.1' },
        authorizer: authorizer ?? { idToken: stack.operators.issue({ name: who.name, groups: groupsOf(who.groups), tenant: who.tenant }) },
      },
    };
    const res = (await stack.invoke(route.functionName, event)) as { statusCode: number; body: string };
    return { status: res.statusCode, body: res.body ? JSON.parse(res.body) : undefined };
  };
}

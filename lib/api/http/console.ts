import { InvokeCommand, LambdaClient } from '@aws-sdk/client-lambda';
import type { APIGatewayProxyEvent, APIGatewayProxyResult, Context } from 'aws-lambda';
import { counted } from '../../platform/aws';
import { ROUTE_ANNOTATION } from '../../platform/trace-annotations';
import { annotate, currentTraceHeader, TRACE_HEADER } from '../../platform/tracing';
import { commonErrors } from '../../shared/errors';
import { allRoutes, type Route } from '../routes';
import { httpErrors } from './errors';
import { problemResponse } from './problem';

// The console's function (functions/console/): its page, and its door to the Admin API. A request
// to /console/api/<Admin path> comes with the operator's ID token, which the console's authorizer
// verified (Cognito on AWS, the local one under npm start); it is handed to the function of the
// route that serves that path (lib/api/routes) with the token, so that each route keeps its own
// function and role, and verifies the token and checks the operator's role itself (lib/api/http/admin.ts).
export const CONSOLE_PREFIX = '/console';
export const CONSOLE_API_PREFIX = `${CONSOLE_PREFIX}/api`;

// Each route's path template as segments: a variable ({id}) is any one segment, and a static
// segment wins over it, as in API Gateway (were /assets/summary a route, before /assets/{id}).
const templates = allRoutes.map((route) => ({ route, segments: route.path.split('/').filter(Boolean) }));

function paramsOf(segments: string[], parts: string[]): Record<string, string> | undefined {
  if (segments.length !== parts.length) return undefined;
  const params: Record<string, string> = {};
  for (const [i, segment] of segments.entries()) {
    if (!parts[i]) return undefined; // an empty segment (//) names nothing
    if (segment.startsWith('{')) params[segment.slice(1, -1)] = decodeURIComponent(parts[i]);
    else if (segment !== parts[i]) return undefined;
  }
  return params;
}

const staticCount = (segments: string[]) => segments.filter((s) => !s.startsWith('{')).length;

// The route that serves `method` on an Admin path (as sent, e.g. /assets/3f…/liquidity), with its
// path parameters; or the methods the path is served for, when it is not for this one.
export function routeFor(method: string, path: string): { route: Route; params: Record<string, string> } | { allow: string[] } {
  const parts = path.split('/').slice(1);
  const matches = templates
    .map(({ route, segments }) => ({ route, segments, params: safeParams(segments, parts) }))
    .filter((m) => m.params !== undefined)
    .sort((a, b) => staticCount(b.segments) - staticCount(a.segments));
  const found = matches.find((m) => m.route.method === method.toLowerCase());
  if (found) return { route: found.route, params: found.params! };
  return { allow: [...new Set(matches.map((m) => m.route.method.toUpperCase()))].sort() };
}

// A segment that does not decode (%zz) matches no variable: no route serves it.
function safeParams(segments: string[], parts: string[]) {
  try {
    return paramsOf(segments, parts);
  } catch {
    return undefined;
  }
}

// What hands an event to a function by its name in serverless.yml and answers what it answers.
export type Invoke = (functionName: string, event: APIGatewayProxyEvent) => Promise<APIGatewayProxyResult>;

// Lambda's Invoke, on AWS and under npm start alike (where AWS_ENDPOINT_URL_LAMBDA is the local
// runtime's stand-in, infra/local/emulators/lambda-api.ts). The deployed functions are named
// <service>-<stage>-<name>, as this one is (`self`, its own deployed name, ends with `own`), and
// are called through their alias (infra/serverless/safe-deploy.cjs) where they have one: the one
// this function was called through, the qualifier of its invoked ARN (none locally, nor with
// TRAFFIC_SHIFT=none), so that a hand-off runs the version the alias serves, a canary's share
// too, and counts in its alarms. The invocation carries this one's trace (X-Amzn-Trace-Id), so
// that the route's work is traced in it.
let client: LambdaClient | undefined;
function lambda(): LambdaClient {
  if (client) return client;
  client = counted(new LambdaClient({}), 'Lambda');
  client.middlewareStack.add(
    (next) => (args) => {
      const header = currentTraceHeader();
      if (header) (args.request as { headers: Record<string, string> }).headers[TRACE_HEADER] = header;
      return next(args);
    },
    { step: 'build', name: 'traceHeader' },
  );
  return client;
}
export function handOffTarget(self: Pick<Context, 'functionName' | 'invokedFunctionArn'>, own: string, name: string): string {
  const qualifier = self.invokedFunctionArn.split(':')[7];
  // (An alias, never a version: another function's version of that number is another deploy's.)
  const alias = qualifier && qualifier !== '$LATEST' && !/^\d+$/.test(qualifier) ? `:${qualifier}` : '';
  return `${self.functionName.slice(0, -own.length)}${name}${alias}`;
}
export const lambdaInvoke =
  (self: Pick<Context, 'functionName' | 'invokedFunctionArn'>, own: string): Invoke =>
  async (name, event) => {
    const out = await lambda().send(new InvokeCommand({ FunctionName: handOffTarget(self, own, name), Payload: JSON.stringify(event) }));
    // A function that threw (or timed out): API Gateway's answer to a failed integration.
    if (out.FunctionError) throw new Error(`${name} failed: ${new TextDecoder().decode(out.Payload)}`);
    return JSON.parse(new TextDecoder().decode(out.Payload)) as APIGatewayProxyResult;
  };

// A console API request handed to its route's function: the event as API Gateway would have made
// it for the route on the Admin API (path, resource, path parameters), the headers, the query and
// the body, with the operator's ID token moved from the Authorization header to where an
// authorizer's context goes (requestContext.authorizer.idToken), which no request to the Admin API
// itself can fill; the route's function verifies it (lib/api/http/operator-token.ts). The claims API
// Gateway's authorizer put there are not handed on: nothing takes claims but from a verified token.
export async function handOff(event: APIGatewayProxyEvent, invoke: Invoke): Promise<APIGatewayProxyResult> {
  const path = event.path.slice(CONSOLE_API_PREFIX.length) || '/';
  const found = routeFor(event.httpMethod, path);
  if ('allow' in found) {
    if (!found.allow.length) return problemResponse(commonErrors.notFound(`No Admin API route serves ${path}`));
    return problemResponse(httpErrors.methodNotAllowed(`${event.httpMethod} is not served at ${path}; ${found.allow.join(', ')} is`, found.allow));
  }
  const { route, params } = found;
  const withoutToken = <T>(headers: Record<string, T> | null) =>
    headers && Object.fromEntries(Object.entries(headers).filter(([name]) => name.toLowerCase() !== 'authorization'));
  const idToken = Object.entries(event.headers ?? {}).find(([name]) => name.toLowerCase() === 'authorization')?.[1] ?? '';
  const handed: APIGatewayProxyEvent = {
    ...event,
    path,
    resource: route.path,
    pathParameters: Object.keys(params).length ? params : null,
    headers: withoutToken(event.headers) ?? {},
    multiValueHeaders: withoutToken(event.multiValueHeaders) ?? {},
    requestContext: { ...event.requestContext, path, resourcePath: route.path, authorizer: { idToken } },
  };
  annotate(ROUTE_ANNOTATION, `${event.httpMethod} ${route.path}`);
  return invoke(route.functionName, handed);
}

// The page's settings: how an operator signs in (the local form under npm start; on AWS, Cognito's
// hosted sign-in, by authorization code with PKCE, with the app client's id).
export type SignIn = { kind: 'local' } | { kind: 'hosted'; url: string; clientId: string };

export interface PageFiles {
  html: string;
  js: string;
  css: string;
}

// Nothing but this origin (and the hosted sign-in's token endpoint): the page loads and fetches
// nothing from anywhere else.
const csp = (signIn: SignIn) =>
  `default-src 'self'; connect-src 'self'${signIn.kind === 'hosted' ? ` ${signIn.url}` : ''}; style-src 'self' 'unsafe-inline'; img-src 'self' data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'`;

const file = (type: string, body: string, signIn: SignIn): APIGatewayProxyResult => ({
  statusCode: 200,
  headers: { 'content-type': type, 'cache-control': 'no-store', 'content-security-policy': csp(signIn), 'x-content-type-options': 'nosniff' },
  body,
});

// GET /console (the page), /console/console.js, /console/console.css, /console/config.json. `files`
// is the error of a page that could not be built (under npm start, console/ as it is being edited):
// each of its files is then a 503 that says why, and the next request builds again.
export function servePage(event: APIGatewayProxyEvent, files: PageFiles | Error, signIn: SignIn, node: string): APIGatewayProxyResult {
  if (event.httpMethod !== 'GET') return problemResponse(httpErrors.methodNotAllowed(`${event.httpMethod} is not served at ${event.path}; GET is`, ['GET']));
  const path = event.path.slice(CONSOLE_PREFIX.length);
  if (path === '/config.json') return file('application/json', JSON.stringify({ signIn }), signIn);
  const built = PAGE_FILES.get(path === '' ? '/' : path);
  if (!built) return problemResponse(commonErrors.notFound(`The console has nothing at ${event.path}`));
  if (files instanceof Error) return problemResponse(httpErrors.consoleUnavailable(files.message));
  return file(built.type, built.body(files, node), signIn);
}

// The page's built files, by their path under /console (a Map: no path reaches a prototype's key).
const PAGE_FILES = new Map<string, { type: string; body: (f: PageFiles, node: string) => string }>([
  ['/', { type: 'text/html; charset=utf-8', body: (f, node) => f.html.replaceAll('{{node}}', node) }],
  ['/console.js', { type: 'text/javascript; charset=utf-8', body: (f) => f.js }],
  ['/console.css', { type: 'text/css; charset=utf-8', body: (f) => f.css }],
]);

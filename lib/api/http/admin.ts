import { IdempotencyConfig } from '@aws-lambda-powertools/idempotency';
import { makeHandlerIdempotent } from '@aws-lambda-powertools/idempotency/middleware';
import middy, { type MiddlewareObj, type Request } from '@middy/core';
import type { APIGatewayProxyEvent, APIGatewayProxyResult, Context } from 'aws-lambda';
import type { output, ZodType } from 'zod';
import { type Action, recordUnchanged } from '../../audit';
import { config } from '../../platform/config';
import { idScope, seedIds } from '../../platform/ids';
import { logger } from '../../platform/log';
import { scoped } from '../../platform/store';
import { observed } from '../../platform/tracing';
import { type Author, authorScope, rideAlong, riderScope, setAuthor, untakenRider } from '../../platform/tx';
import { commonErrors, DomainError, invalidFields } from '../../shared/errors';
import { type Node, OPERATOR_TENANT_ID } from '../../shared/node';
import { type Actor, allows, MACHINE, type Operator, operatorOf } from '../../shared/operators';
import { tenantErrors } from '../../tenants/errors';
import { deployment, tenantNode } from '../context';
import { neededRole, type Route, serving } from '../routes';
import { httpErrors } from './errors';
import { IDEMPOTENCY_EXPIRES_AFTER_SECONDS, idempotencyPersistence, idempotencyRefusal } from './idempotency';
import { parseJsonBody } from './json';
import { consoleTokens } from './operator-token';
import { fieldErrors, problemResponse } from './problem';
import { entriesOf, sentQueries } from './query';
import { lowerCaseHeaders, requestBody } from './request';
import { verifySignature } from './signature';
import { signedFor } from './signer';
import { createdReplayRefusal, recordSignature, usedSignature } from './store';

// The one middleware stack of every Admin API route (a REST API's Lambda proxy events): size
// limit, signature, content type, JSON and zod validation, Idempotency-Key, and errors as
// problem+json. Handlers get typed input.

// What a route's schema gives its handler: the parsed value, or undefined for a route without one.
type Parsed<R, K extends 'body' | 'query' | 'params'> = R extends { [k in K]: infer S extends ZodType } ? output<S> : undefined;

export interface RouteInput<R extends Route> {
  body: Parsed<R, 'body'>;
  query: Parsed<R, 'query'>;
  params: Parsed<R, 'params'>;
  event: AdminEvent;
  node: Node;
  actor: Actor; // who asked: a machine that signed, or a signed-in operator
}

// Header names in lower case (a REST API passes them as the client wrote them).
// `raw`: the body's bytes, decoded once (the signature covers them, the JSON parse reads them).
// `node`: the node as the request's tenant sees it, once its signature is checked.
// `console`: a console request's operator, once its token is verified (none: in no role).
// `signer`: the tenant whose Admin API secret signed it (a machine's request).
type AdminEvent = APIGatewayProxyEvent & {
  headers: Record<string, string | undefined>;
  raw?: Buffer;
  node?: Node;
  actor?: Actor;
  signer?: string;
  console?: { operator?: Operator };
  input?: RouteInput<Route>;
};
type AdminRequest = Request<AdminEvent, APIGatewayProxyResult, Error, Context>;

const replayed = () => httpErrors.unauthorized('This signature was already used; sign each request afresh');
// The names of the writes that ride along with a request's first transaction (lib/platform/tx.ts).
const GUARD = 'signature';

// What the client may have signed: the path below the API's base URL (a stage is not part of
// it) with the query as sent, which the event holds only decoded (./query.ts).
function signedPaths(event: AdminEvent): string[] {
  return sentQueries(entriesOf(event.multiValueQueryStringParameters)).map((q) => (q ? `${event.path}?${q}` : event.path));
}

// Header names in lower case; each query parameter, and each header the signature or the route
// reads, once: a repeated one would reach the route as its last value only, which is not what the
// client meant (nor what a signer that joined the values signed).
const SINGLE_HEADERS = ['signature', 'idempotency-key', 'content-type', 'tenant-id'];
const normalize = (): MiddlewareObj<AdminEvent> => ({
  before: ({ event }) => {
    event.headers = lowerCaseHeaders(event.headers);
    const repeated = Object.entries(event.multiValueQueryStringParameters ?? {}).filter(([, v]) => (v?.length ?? 0) > 1);
    if (repeated.length) throw commonErrors.invalidRequest(`Each query parameter may be given once: ${repeated.map(([k]) => k).join(', ')}`);
    const sent = lowerCaseHeaders(event.multiValueHeaders);
    const twice = SINGLE_HEADERS.filter((h) => (sent[h]?.length ?? 0) > 1);
    if (twice.length) throw commonErrors.invalidRequest(`Each of these headers may be given once: ${twice.join(', ')}`);
    event.raw = requestBody(event); // 413 above the limit
  },
});

function signedBy(event: AdminEvent, tenant: Node | undefined) {
  const signed = {
    method: event.httpMethod,
    pathWithQuery: signedPaths(event),
    idempotencyKey: event.headers['idempotency-key'],
    tenantId: event.headers['tenant-id'],
    body: event.raw!,
  };
  return signedFor(tenant, (secret) => verifySignature(event.headers.signature, secret, signed, Date.now() / 1000));
}

// A console request, as the console's function hands it on (lib/api/http/console.ts): the operator's
// ID token where API Gateway's authorizer puts its context, which no request to the Admin API's own
// routes can set. Anything there marks a console request; only a token this function verifies
// names its operator, never claims beside it (a direct invoke of this function could write any).
const checkToken = consoleTokens({ userPoolId: config.CONSOLE_USER_POOL_ID, clientId: config.CONSOLE_CLIENT_ID, jwks: config.CONSOLE_JWKS });
type Signed = { console: false } | { console: true; operator?: Operator } | { console: true; refused: string };
async function signedIn(event: AdminEvent): Promise<Signed> {
  const authorizer = event.requestContext?.authorizer as { idToken?: unknown; claims?: unknown } | null | undefined;
  if (!authorizer || (authorizer.idToken === undefined && authorizer.claims === undefined)) return { console: false };
  const checked = await checkToken(typeof authorizer.idToken === 'string' ? authorizer.idToken : undefined);
  return checked.ok ? { console: true, operator: operatorOf(checked.claims) } : { console: true, refused: checked.reason };
}

// An operator of one tenant works for that tenant alone; the deployment operator's staff, for any.
async function operatorTenant(event: AdminEvent, operator: Operator, route: Route): Promise<Node> {
  const named = event.headers['tenant-id'] ?? operator.tenant ?? OPERATOR_TENANT_ID;
  if (operator.tenant && named !== operator.tenant) throw httpErrors.roleForbids(`${operator.name} works for tenant ${operator.tenant} only`);
  if (!allows(operator, neededRole(route))) {
    throw httpErrors.roleForbids(`${route.method.toUpperCase()} ${route.path} needs the ${neededRole(route)} role; ${operator.name} is ${operator.role}`);
  }
  const tenant = await tenantNode(named);
  if (!tenant) throw httpErrors.unauthorized(`No active tenant ${named}`);
  return tenant;
}

const authenticate = (route: Route): MiddlewareObj<AdminEvent> => ({
  before: async ({ event }) => {
    const operator = event.console?.operator;
    if (event.console && !operator) throw httpErrors.roleForbids('The signed-in user is in no role: viewer, operator or admin');
    const tenant = operator ? await operatorTenant(event, operator, route) : await tenantNode(event.headers['tenant-id'] ?? OPERATOR_TENANT_ID);
    const signature = operator ? undefined : await signedBy(event, tenant);
    event.node = tenant!;
    event.actor = operator ?? MACHINE;
    event.signer = signature?.signer;
    if (route.operatorOnly && !event.node.tenant.operator) throw tenantErrors.operatorOnly();
    if (route.answersSecrets && event.headers['idempotency-key'] !== undefined) throw tenantErrors.idempotencyKeyRefused();
    if (!signature || event.httpMethod === 'GET' || event.httpMethod === 'HEAD') return;
    // The ids this request draws come from its signature; a create's first is its record's (./store.ts).
    const first = seedIds(signature.mac);
    const record = usedSignature(event.node, signature.mac, signature.t, route.creates && { kind: route.creates, id: first });
    if (route.transactional) rideAlong(GUARD, { write: () => record, refused: replayed, heldOnly: route.creates !== undefined });
    else if (!(await recordSignature(record))) throw replayed();
  },
});

function parse<T>(schema: ZodType<T>, value: unknown, prefix: string): T {
  const parsed = schema.safeParse(value);
  if (!parsed.success) throw invalidFields(fieldErrors(parsed.error, prefix));
  return parsed.data;
}

const validate = (route: Route): MiddlewareObj<AdminEvent> => ({
  before: ({ event }) => {
    const json = parseJsonBody(event.raw!, event.headers['content-type']);
    let body: unknown;
    if (route.body) body = parse(route.body, json, '');
    else if (json !== undefined && !(typeof json === 'object' && json && !Array.isArray(json) && Object.keys(json).length === 0)) {
      throw commonErrors.invalidRequest('This route takes no request body');
    }
    const rawQuery = event.queryStringParameters ?? {};
    if (!route.query && Object.keys(rawQuery).length > 0) {
      throw commonErrors.invalidRequest(`Unknown query parameter: ${Object.keys(rawQuery).join(', ')}`);
    }
    const query = route.query ? parse(route.query, rawQuery, 'query') : undefined;
    let params: unknown;
    if (route.params) {
      const parsed = route.params.safeParse(event.pathParameters ?? {});
      // A path id that cannot exist names no resource: 404, not 400.
      if (!parsed.success) throw commonErrors.notFound(`No resource at ${event.path}`);
      params = parsed.data;
    }
    event.input = { body, query, params, event, node: event.node!, actor: event.actor! } as RouteInput<Route>;
  },
});

// A route as API Gateway names it, e.g. "POST /assets/{id}/liquidity".
const routeOf = (event: AdminEvent) => `${event.httpMethod} ${event.resource}`;

const idempotencyConfig = new IdempotencyConfig({
  eventKeyJmesPath: 'headers."idempotency-key"',
  // The path too: the same key on another resource of this route is a different request (422).
  payloadValidationJmesPath: '[path, body]',
  throwOnNoIdempotencyKey: false,
  expiresAfterSeconds: IDEMPOTENCY_EXPIRES_AFTER_SECONDS,
});

// Idempotency-Key on POST only (Stripe semantics): the stored response is replayed for the same
// key and body; another body under the same key is a 422. Keys are scoped per tenant and route.
function idempotency(): MiddlewareObj<AdminEvent> {
  const inner = new Map<string, MiddlewareObj>();
  const forRoute = (event: AdminEvent) => {
    const keyPrefix = scoped(event.node!, routeOf(event));
    let mw = inner.get(keyPrefix);
    if (!mw) {
      mw = makeHandlerIdempotent({ persistenceStore: idempotencyPersistence(deployment), config: idempotencyConfig, keyPrefix });
      inner.set(keyPrefix, mw);
    }
    return mw;
  };
  // (Not before the signature is checked, which resolves the tenant.)
  const applies = (event: AdminEvent) => event.httpMethod === 'POST' && !!event.headers['idempotency-key'] && !!event.node;
  // The requests whose key's record this one wrote (in progress): only their failure may delete it.
  // A refusal (another body under the key, or the key in progress) throws from `before`, and the
  // library's onError would then delete the record of the request that holds the key: its stored
  // answer (so that the next retry runs again) or its claim while it runs (so that one runs twice).
  const holding = new WeakSet<object>();
  return {
    before: async (request) => {
      if (!applies(request.event)) return;
      const key = request.event.headers['idempotency-key']!;
      if (key.length > 255) throw commonErrors.invalidRequest('Idempotency-Key must be at most 255 characters');
      const replay = await forRoute(request.event).before!(request as never);
      if (replay === undefined) holding.add(request);
      return replay;
    },
    after: (request) => (applies(request.event) ? forRoute(request.event).after!(request as never) : undefined),
    onError: (request) => (holding.has(request) ? forRoute(request.event).onError!(request as never) : undefined),
  };
}

const problems = (): MiddlewareObj<AdminEvent, APIGatewayProxyResult> => ({
  onError: (request) => {
    request.response = problemResponse(idempotencyRefusal(request.error));
  },
});

// A domain names the fields of its operation's input (`cursor`); a route whose input is its query
// answers where they were sent (`query.cursor`), as it does for the query's own validation.
function inQuery(e: unknown): unknown {
  return e instanceof DomainError && e.fields ? e.fieldsUnder('query') : e;
}

// A route of the table (lib/api/routes) served by `fn`, which returns the answer's body (none for a
// 204): the status is the table's, as the OpenAPI document says it.
export function adminRoute<R extends Route>(route: R, fn: (input: RouteInput<R>) => Promise<unknown>) {
  const started = new WeakMap<object, number>();
  const handler = middy<AdminEvent, APIGatewayProxyResult, Error, Context>({
    timeoutEarlyInMillis: 0,
    requestStart: (request: AdminRequest) => {
      started.set(request, performance.now());
    },
    requestEnd: (request: AdminRequest) => {
      const res = request.response as { statusCode?: number } | undefined;
      logger.info('request', {
        route: routeOf(request.event),
        path: request.event.path,
        tenant: request.event.node?.tenant.id, // once the signature named it
        actor: request.event.actor?.name,
        status: res?.statusCode,
        ms: Math.round((performance.now() - (started.get(request) ?? 0)) * 10) / 10,
        requestId: request.context.awsRequestId,
      });
    },
  } as never)
    .use(problems())
    .use(normalize())
    .use(authenticate(route))
    .use(validate(route))
    .use(idempotency())
    .handler(async (event, context) => {
      setAuthor(authorOf(route, event, context));
      const body = await fn(event.input as RouteInput<R>).catch((e) => {
        throw route.query && !route.body ? inQuery(e) : e;
      });
      if (body === undefined) return { statusCode: route.status, body: '' };
      return { statusCode: route.status, headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) };
    });
  // A deferred guard that no transaction took (the request failed, wrote nothing, or was an
  // idempotent replay) is written now, so that the signature still counts as used; and an
  // operator's action that committed no change has its audit event written.
  return serving(
    route,
    observed((event: AdminEvent, context: Context) =>
      riderScope(() =>
        idScope(() =>
          authorScope(async (authoring) => {
            const signed = await signedIn(event);
            // A console request whose token is not this pool's, valid and current: nothing is done,
            // nothing recorded (no audit event: its name is not known), and the refusal is logged.
            if ('refused' in signed) {
              logger.warn('console token refused', { route: routeOf(event), reason: signed.refused, requestId: context.awsRequestId });
              return problemResponse(httpErrors.unauthorized(`The operator's ID token was refused: ${signed.refused}`));
            }
            if (signed.console) event.console = { operator: signed.operator };
            const response = await handler(event, context);
            const guard = untakenRider(GUARD);
            const named = guard && (await namedReplay(route, event, response));
            if (named) return problemResponse(named);
            if (guard) {
              // A store that fails here leaves a refused request's answer as it was (it changed
              // nothing, so a replay may act once); any other answer becomes the store's problem.
              const recorded = await recordSignature(guard.write([])).catch((e: unknown) => e);
              if (recorded === false) return problemResponse(replayed());
              if (recorded !== true) {
                if (response.statusCode < 400) return problemResponse(recorded);
                logger.warn('signature guard not written', { route: routeOf(event), error: recorded, requestId: context.awsRequestId });
                return response;
              }
            }
            const operator = route.method === 'get' ? undefined : event.console?.operator;
            if (operator && !authoring.committed) await auditUnchanged(route, event, operator, response, context.awsRequestId);
            return response;
          }),
        ),
      ),
    ),
  );
}

// An Idempotency-Key's replay of a create whose record is named, not drawn (a payment, by its quote;
// a funding's transfer, by its payment): the record (the one it answers, or that `named` names from
// that) holds the signature's guard if this very request made it (lib/platform/tx). A read that
// fails leaves it to the guard's own write (the stored answer, then 401 for the next).
async function namedReplay(route: Route, event: AdminEvent, response: APIGatewayProxyResult): Promise<Error | undefined> {
  if (!route.named || !route.creates || response.statusCode >= 300 || !event.node) return undefined;
  const id = (JSON.parse(response.body) as { id?: unknown }).id;
  if (typeof id !== 'string') return undefined;
  const created = route.named === true ? id : route.named(id);
  return createdReplayRefusal(event.node, route.creates, created).catch((error: unknown) => {
    logger.warn('named record not read for a replay', { route: routeOf(event), error });
    return undefined;
  });
}

// The audit trail (lib/audit): who makes a request's changes, stamped on each item its commits
// write (lib/platform/tx), which the table's stream carries to the write-once store: an operator, or
// the tenant whose Admin API secret signed; the route, its answer, the request id, and the reason
// the body gives where the route takes one.
function authorOf(route: Route, event: AdminEvent, context: Context): Author {
  const operator = event.console?.operator;
  const reason = (event.input?.body as { reason?: unknown } | undefined)?.reason;
  return {
    actor: operator ? { kind: 'operator', name: operator.name, role: operator.role } : { kind: 'key', name: event.signer ?? event.node!.tenant.id },
    action: `${route.method.toUpperCase()} ${route.path}`,
    operationId: route.id,
    status: route.status,
    requestId: context.awsRequestId,
    ...(typeof reason === 'string' && { reason }),
  };
}

const actionOf = (route: Route, event: AdminEvent, actor: Operator): Action => ({
  actor,
  action: `${route.method.toUpperCase()} ${route.path}`,
  operationId: route.id,
  resource: { type: resourceType(route.path), id: event.pathParameters?.id ?? null },
});

// What a route acts on: its path's first segment, singular ("/wallet-addresses/{id}" is a wallet-address).
const resourceType = (path: string) => path.split('/')[1].replace(/(address)es$|s$/, '$1');

// In the tenant the request acted in, or, refused before that was known, the operator's own.
async function auditUnchanged(route: Route, event: AdminEvent, operator: Operator, response: APIGatewayProxyResult, requestId: string): Promise<void> {
  try {
    const named = operator.tenant ?? lowerCaseHeaders(event.headers)['tenant-id'] ?? OPERATOR_TENANT_ID;
    const node = event.node ?? (await tenantNode(named)) ?? deployment;
    const problem = response.headers?.['content-type'] === 'application/problem+json' ? JSON.parse(response.body) : undefined;
    await recordUnchanged(node, actionOf(route, event, operator), response.statusCode, problem?.code, requestId);
  } catch (e) {
    logger.error('audit event not written', { route: route.id, actor: operator.name, status: response.statusCode, error: e });
  }
}

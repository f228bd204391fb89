import httpRouterHandler from '@middy/http-router';
import type { APIGatewayProxyEvent, APIGatewayProxyResult } from 'aws-lambda';
import type { ZodType } from 'zod';
import { logger } from '../../platform/log';
import { observed } from '../../platform/tracing';
import { commonErrors, invalidFields } from '../../shared/errors';
import { type Node, OPERATOR_TENANT_ID, TENANT_PATH } from '../../shared/node';
import { refuseLoneSurrogates } from './json';
import { type SignedRequest, targetUris } from './message-signatures';
import { fieldErrors, type ProblemApi, problemResponse } from './problem';
import { lowerCaseHeaders, requestBody } from './request';

// The one request stack of the Open Payments APIs (the resource server's incoming payments and the
// authorization server), REST API events in, JSON out. Routes get the request with its raw body,
// its GNAP token and what its signature covers; errors answer as RFC 9457 problem documents that
// also carry the `error: {code, description}` object the Open Payments specification and its
// official client read. Every answer allows any origin (CORS), as browser clients call these APIs.

export interface OpRequest {
  method: string;
  path: string;
  params: Record<string, string>;
  query: Record<string, string>;
  body: string;
  token?: string; // Authorization: GNAP <token>
  signed: SignedRequest;
}

export interface OpReply {
  status: number;
  body?: unknown;
  headers?: Record<string, string>;
}

interface OpRoute {
  method: 'GET' | 'POST' | 'DELETE';
  path: string; // '/continue/{id}'
  handler: (req: OpRequest, node: Node) => Promise<OpReply>;
}

const CORS = {
  'access-control-allow-origin': '*',
  'access-control-allow-methods': 'GET, POST, DELETE, OPTIONS',
  'access-control-allow-headers': 'authorization, content-type, content-digest, content-length, signature, signature-input',
  'access-control-max-age': '600',
};

// Open Payments answers a request it cannot take with 400 (it has no 422), and its clients read
// the `error` object of the specification.
const PROBLEMS: ProblemApi = {
  statuses: { 422: 400 },
  members: (p) => ({ error: { code: p.code, description: p.detail } }),
  headers: CORS,
};

export const json = (status: number, body: unknown): OpReply => ({ status, body });

export function parseJson<T>(req: OpRequest, schema: ZodType<T>): T {
  let value: unknown;
  try {
    value = req.body ? JSON.parse(req.body) : undefined;
  } catch (e) {
    throw commonErrors.invalidRequest(`The body is not valid JSON: ${(e as Error).message}`);
  }
  refuseLoneSurrogates(value);
  const parsed = schema.safeParse(value);
  if (!parsed.success) throw invalidFields(fieldErrors(parsed.error));
  return parsed.data;
}

function toRequest(event: APIGatewayProxyEvent, base: string): OpRequest {
  const headers = lowerCaseHeaders(event.headers);
  const text = requestBody(event).toString('utf8');
  const authorization = /^GNAP (\S+)$/.exec(headers.authorization ?? '');
  return {
    method: event.httpMethod,
    path: event.path,
    params: (event.pathParameters ?? {}) as Record<string, string>,
    query: Object.fromEntries(Object.entries(event.queryStringParameters ?? {}).map(([k, v]) => [k, v ?? ''])),
    body: text,
    ...(authorization && { token: authorization[1] }),
    signed: { method: event.httpMethod, urls: targetUris(base, event.path, event.multiValueQueryStringParameters), headers, body: text },
  };
}

const respond = (r: OpReply): APIGatewayProxyResult => ({
  statusCode: r.status,
  headers: { ...CORS, ...(r.body !== undefined && { 'content-type': 'application/json' }), ...r.headers },
  body: r.body === undefined ? '' : JSON.stringify(r.body),
});

// Which API this is of the node (its URL is what signatures' @target-uri is checked against), and
// how to find a tenant's node by id (lib/api/context.ts tenantNode).
interface OpApi {
  server: 'resourceServer' | 'authServer';
  tenants: (id: string) => Promise<Node | undefined>;
}

// The tenant a request is for: the operator's at the API's root, another's under /t/<tenant id>
// (lib/shared/node.ts nodeFor), which is taken off the path before routing. An unknown tenant is 404.
type TenantEvent = APIGatewayProxyEvent & { node: Node };
async function withTenant(api: OpApi, event: APIGatewayProxyEvent): Promise<TenantEvent> {
  const named = TENANT_PREFIX.exec(event.path);
  const node = await api.tenants(named ? named[1] : OPERATOR_TENANT_ID); // an id holds no escapes
  if (!node) throw commonErrors.notFound(`No route ${event.httpMethod} ${event.path}`);
  return named ? { ...event, path: named[2] || '/', node } : { ...event, node };
}
const TENANT_PREFIX = new RegExp(`^${TENANT_PATH}([^/]+)(/.*)?$`);

// A Lambda handler serving `routes` for every tenant (traced, its metrics published).
export function openPaymentsApi(api: OpApi, routes: OpRoute[]) {
  const router = httpRouterHandler<TenantEvent, APIGatewayProxyResult>({
    routes: routes.map((r) => ({
      method: r.method,
      path: r.path,
      handler: async (event: TenantEvent) => respond(await r.handler(toRequest(event, event.node.urls[api.server]), event.node)),
    })),
    notFoundResponse: ({ method, path }) => {
      throw commonErrors.notFound(`No route ${method} ${path}`);
    },
  }) as unknown as (event: TenantEvent) => Promise<APIGatewayProxyResult>;
  return observed(async (event: APIGatewayProxyEvent): Promise<APIGatewayProxyResult> => {
    const started = performance.now();
    let result: APIGatewayProxyResult;
    let tenant: string | undefined; // whose request it was, once known
    if (event.httpMethod === 'OPTIONS')
      result = respond({ status: 204 }); // CORS preflight
    else {
      try {
        const routed = await withTenant(api, event);
        tenant = routed.node.tenant.id;
        result = await router(routed);
      } catch (e) {
        result = problemResponse(e, PROBLEMS);
      }
    }
    logger.info('request', {
      method: event.httpMethod,
      path: event.path,
      tenant,
      status: result.statusCode,
      ms: Math.round((performance.now() - started) * 10) / 10,
    });
    return result;
  });
}

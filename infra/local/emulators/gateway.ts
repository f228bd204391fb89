import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import { httpErrors } from '../../../lib/api/http/errors';
import { problemResponse } from '../../../lib/api/http/problem';
import { ROUTE_ANNOTATION } from '../../../lib/platform/trace-annotations';
import { Span, type TraceSink } from '../../../lib/platform/tracing';
// @ts-expect-error a serverless plugin, in CommonJS without types
import gatewayResponses from '../../serverless/gateway-responses.cjs';
import { listen, readBody } from '../start/listen';
import type { LambdaRuntime } from './lambda';
import { nearRoutes } from './near-routes';
import type { Route } from './rest-apis';
import { sigV4Refusal } from './sigv4';

// A local API Gateway: routes requests to functions as a REST API does (Lambda proxy events,
// payload 1.0), with API Gateway's path templates and precedence. A route that needs IAM
// authorization (AWS_IAM) is refused without an Authorization header (404, as the deployed APIs
// answer MISSING_AUTHENTICATION_TOKEN), and with a SigV4 signature that IAM would refuse (403:
// ./sigv4.ts verifies it with the local credentials). A route with a Cognito authorizer (the
// console's) takes the ID token in the Authorization header, verified by `authorize` (the local
// sign-in's, ./operators.ts), and passes its claims in requestContext.authorizer.claims; without a
// valid one it is 401, as API Gateway's UNAUTHORIZED. Given a trace sink, each
// request is a segment, as a stage with X-Ray tracing records it: in the trace its X-Amzn-Trace-Id
// header names (a traced caller: a peer's worker, the local FSP), or in a new one; the function
// it invokes continues that trace.
const MAX_PAYLOAD = 10 * 1024 * 1024;

interface Compiled {
  route: Route;
  segments: string[];
  score: number;
}

function compile(route: Route): Compiled {
  const segments = route.path.split('/').filter(Boolean);
  // Static segments win over variables, variables over a greedy {proxy+}.
  const score = segments.reduce((s, seg) => s * 4 + (seg.endsWith('+}') ? 0 : seg.startsWith('{') ? 1 : 2), 1);
  return { route, segments, score };
}

function match(route: Compiled, parts: string[]): Record<string, string> | undefined {
  const params: Record<string, string> = {};
  for (let i = 0; i < route.segments.length; i++) {
    const seg = route.segments[i];
    if (seg.endsWith('+}')) {
      if (i >= parts.length) return undefined;
      params[seg.slice(1, -2)] = parts.slice(i).join('/');
      return params;
    }
    if (i >= parts.length) return undefined;
    if (seg.startsWith('{')) params[seg.slice(1, -1)] = parts[i];
    else if (seg !== parts[i]) return undefined;
  }
  return parts.length === route.segments.length ? params : undefined;
}

function decode(s: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
}

function toEvent(
  route: Route,
  req: IncomingMessage,
  rawPath: string,
  url: URL,
  params: Record<string, string>,
  body: Buffer,
  binary: boolean,
  claims?: Record<string, string>,
) {
  // Header names as the client wrote them, as a REST API passes them on.
  const multiValueHeaders: Record<string, string[]> = {};
  for (let i = 0; i < req.rawHeaders.length; i += 2) {
    const name = req.rawHeaders[i];
    multiValueHeaders[name] = [...(multiValueHeaders[name] ?? []), req.rawHeaders[i + 1]];
  }
  const headers = Object.fromEntries(Object.entries(multiValueHeaders).map(([k, v]) => [k, v.at(-1)!]));
  const hasQuery = url.searchParams.size > 0;
  const text = body.length ? body.toString('utf8') : undefined;
  const isText = !binary && (text === undefined || Buffer.from(text, 'utf8').equals(body));
  return {
    resource: route.path,
    path: rawPath,
    httpMethod: req.method!,
    headers,
    multiValueHeaders,
    // Decoded, the last value of a repeated name in one and all of them in the other, as API Gateway does.
    queryStringParameters: hasQuery ? Object.fromEntries(url.searchParams) : undefined,
    multiValueQueryStringParameters: hasQuery
      ? Object.fromEntries([...new Set(url.searchParams.keys())].map((k) => [k, url.searchParams.getAll(k)]))
      : undefined,
    pathParameters: Object.keys(params).length ? Object.fromEntries(Object.entries(params).map(([k, v]) => [k, decode(v)])) : undefined,
    stageVariables: undefined,
    body: body.length ? (isText ? text : body.toString('base64')) : undefined,
    isBase64Encoded: !isText,
    requestContext: {
      accountId: '000000000000',
      apiId: 'local',
      httpMethod: req.method!,
      path: rawPath,
      protocol: `HTTP/${req.httpVersion}`,
      requestId: randomUUID(),
      resourcePath: route.path,
      stage: 'local',
      identity: { sourceIp: req.socket.remoteAddress ?? '127.0.0.1' },
      requestTimeEpoch: Date.now(),
      ...(claims && { authorizer: { claims } }),
    },
  };
}

// What API Gateway answers by itself, as the deployed APIs do (infra/gateway-responses.json).
type GatewayResponseType = 'MISSING_AUTHENTICATION_TOKEN' | 'REQUEST_TOO_LARGE' | 'INTEGRATION_FAILURE' | 'DEFAULT_4XX' | 'THROTTLED';

// A rate-based rule of WAF on one method and path (as sent): requests per client address over the
// last 5 minutes, refused (429) while more than `limit` came, those refused included, as WAF counts.
export interface RateRule {
  method: string;
  path: string;
  limit: number;
}
const RATE_WINDOW_MS = 5 * 60 * 1000;
function rateLimiter(limit: number) {
  const hits = new Map<string, number[]>(); // address -> its last limit + 1 requests' times
  return (address: string, now = Date.now()): boolean => {
    const times = (hits.get(address) ?? []).filter((t) => t > now - RATE_WINDOW_MS);
    times.push(now);
    hits.set(address, times.slice(-(limit + 1)));
    return times.length > limit;
  };
}
const problemBody = (type: GatewayResponseType) => gatewayResponses.problemBody(type) as { status: number } & Record<string, unknown>;

// What a path no route serves is told locally, where the gateway knows it has no such route: the routes
// nearest it (of the same method and depth if there are, else of the same method, else any), and no
// word of SigV4 (deployed, the same 404 answers an IAM route called unsigned, so it cannot say which).
export function noRouteDetail(routes: Array<{ method: string; path: string }>, method: string, path: string): string {
  const near = nearRoutes(routes, path);
  const depth = (p: string) => p.split('/').length;
  const sameMethod = near.filter((r) => r.method === method || r.method === 'ANY');
  const sameDepth = sameMethod.filter((r) => depth(r.path) === depth(path));
  const named = (sameDepth.length ? sameDepth : sameMethod.length ? sameMethod : near).map((r) => `${r.method} ${r.path}`);
  return `No route ${method} ${path}${named.length ? `; the nearest: ${named.join(', ')}` : ''}`;
}

function requestSegment(req: IncomingMessage, trace: { name: string; sink: TraceSink }): Span | undefined {
  const header = req.headers['x-amzn-trace-id'];
  const url = `http://${req.headers.host ?? 'localhost'}${(req.url ?? '/').split('?')[0]}`;
  return Span.segment(trace.name, Array.isArray(header) ? header[0] : header, trace.sink, {
    origin: 'AWS::ApiGateway::Stage',
    http: { request: { method: req.method ?? 'GET', url } },
  });
}

// `observe` hears each answer's status and how long the gateway took (API Gateway's Latency);
// `trace` names the API in its segments and takes them.
export async function startGateway(opts: {
  port: number;
  routes: Route[];
  runtime: LambdaRuntime;
  binary?: boolean;
  observe?: (status: number, ms: number) => void;
  trace?: { name: string; sink: TraceSink };
  hosts?: string[]; // the names it answers to besides loopback (./listen.ts)
  rateRule?: RateRule; // what the template's WAF rate-based rule limits on this API
  authorize?: (token: string | undefined) => Promise<Record<string, string> | undefined>; // the Cognito authorizer's stand-in
}) {
  const routes = opts.routes.map(compile).sort((a, b) => b.segments.length - a.segments.length || b.score - a.score);
  const { rateRule } = opts;
  const overLimit = rateRule && rateLimiter(rateRule.limit);

  const server: Server = createServer(async (req, res) => {
    const { observe } = opts;
    if (observe) {
      const began = performance.now();
      res.once('finish', () => observe(res.statusCode, performance.now() - began));
    }
    const segment = opts.trace && requestSegment(req, opts.trace);
    if (segment)
      res.once('close', () => {
        segment.respond(res.statusCode);
        segment.end();
      });
    const send = (status: number, headers: Record<string, unknown>, body: string | Buffer) => {
      res.writeHead(status, headers as Record<string, string>);
      res.end(body);
    };
    // `status`: API Gateway's own, for a type whose body names none (DEFAULT_4XX).
    const sendGateway = (type: GatewayResponseType, status?: number, detail?: string) => {
      const body = { ...(status && { status }), ...problemBody(type), ...(detail && { detail }), requestId: randomUUID() };
      send(body.status, { 'content-type': 'application/problem+json' }, JSON.stringify(body));
    };
    try {
      // The path as sent ("/a/../b" stays so), as API Gateway passes it on: the signature covers it.
      const target = req.url ?? '/';
      const q = target.indexOf('?');
      const rawPath = (q < 0 ? target : target.slice(0, q)) || '/';
      const url = new URL(`http://localhost/${q < 0 ? '' : target.slice(q)}`);
      const parts = rawPath.split('/').filter(Boolean);
      const method = req.method ?? 'GET';
      // WAF stands in front of API Gateway: its refusal comes before anything else.
      if (overLimit && method === rateRule.method && rawPath === rateRule.path && overLimit(req.socket.remoteAddress ?? '')) return sendGateway('THROTTLED');
      let found: { compiled: Compiled; params: Record<string, string> } | undefined;
      const allowed = new Set<string>();
      for (const compiled of routes) {
        const params = match(compiled, parts);
        if (!params) continue;
        if (compiled.route.method !== method && compiled.route.method !== 'ANY') {
          allowed.add(compiled.route.method);
          continue;
        }
        if (!found || compiled.score > found.compiled.score) found = { compiled, params };
      }
      if (!found) {
        const allow = [...allowed].sort();
        // (API Gateway answers an unknown method as an unknown route; here it is a 405 with Allow.)
        if (allow.length) {
          const r = problemResponse(httpErrors.methodNotAllowed(`${method} is not served at ${rawPath}; ${allow.join(', ')} is`, allow));
          return send(r.statusCode, r.headers!, r.body);
        }
        return sendGateway('MISSING_AUTHENTICATION_TOKEN', undefined, noRouteDetail(opts.routes, method, rawPath));
      }
      const { route } = found.compiled;
      // Which route the request took, for the console's list of traces (its resource path, not the URL's ids).
      // (A greedy route's template says nothing: the function behind it names what it serves.)
      if (!route.path.includes('+}')) segment?.annotate(ROUTE_ANNOTATION, `${method} ${route.path}`);
      if (route.iam && !req.headers.authorization) return sendGateway('MISSING_AUTHENTICATION_TOKEN');
      const claims = route.cognito ? await opts.authorize?.(req.headers.authorization) : undefined;
      if (route.cognito && !claims) return sendGateway('DEFAULT_4XX', 401);
      const body = await readBody(req, MAX_PAYLOAD);
      if (body === 'too_large') return sendGateway('REQUEST_TOO_LARGE');
      // A signature IAM refuses (forged, stale, for another key or service): API Gateway's
      // INVALID_SIGNATURE, answered with the DEFAULT_4XX body as deployed.
      if (route.iam && (await sigV4Refusal(req, rawPath, url.searchParams, body))) return sendGateway('DEFAULT_4XX', 403);
      const event = toEvent(route, req, rawPath, url, found.params, body, opts.binary ?? false, claims);
      const result = (await opts.runtime.invoke(route.fn, event, segment?.header)) as {
        statusCode?: number;
        headers?: Record<string, unknown>;
        body?: string;
        isBase64Encoded?: boolean;
      };
      const payload = result.body === undefined ? '' : result.isBase64Encoded ? Buffer.from(result.body, 'base64') : result.body;
      send(result.statusCode ?? 200, result.headers ?? {}, payload);
    } catch (e) {
      // A handler that throws is API Gateway's integration failure; show it loudly in the local log.
      console.error(e);
      sendGateway('INTEGRATION_FAILURE');
    }
  });
  const { port, stop } = await listen(server, opts.port, opts.hosts);
  return { url: `http://localhost:${port}`, port, stop };
}

import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { httpErrors } from '../../../lib/api/http/errors';
import { PAYMENT_ANNOTATION } from '../../../lib/payments';
import { commonErrors, invalidField } from '../../../lib/shared/errors';
import { operatorOf } from '../../../lib/shared/operators';
import type { LocalCloudWatch } from '../emulators/cloudwatch';
import type { TraceStore } from '../emulators/traces';
import { fromLocalOrigin, sendProblem, signingHandler } from '../tools/proxy';
import { localErrors } from './errors';
import { listen, readBody } from './listen';
import type { LocalOperators } from './operators';

// The back-office console that `npm start` serves on its own port, as an FSP's operators reach it
// on AWS: the page and its API are the Admin API's console routes (functions/console: /console,
// and /console/api/<Admin path> behind the console's authorizer), forwarded as they are, unsigned;
// the operator's ID token is what lets a request through. Beside them, what only the local run has:
// /local/sign-in, the local stand-in for Cognito's hosted sign-in (a name and password from the
// local operators, ./operators.ts, for an ID token); and, for a signed-in operator, /local/dashboard
// (the template's dashboard and alarms on the metrics the local run collects) and /local/traces
// (the traces it records: the recent ones, a payment's by its id, one by its id; an operator of one
// tenant, its `custom:tenant`, sees that tenant's only, ./traces.ts). Like the signing
// proxy, it takes requests only from this machine, and no web page of another site.
const CONSOLE = '/console';
const TRACES = '/local/traces';
const SIGN_IN = '/local/sign-in';
const MAX_SIGN_IN_BODY = 4096;

interface ConsoleOptions {
  port: number;
  adminUrl: string;
  operators: LocalOperators;
  metrics?: LocalCloudWatch; // undefined: collection is off (LOCAL_METRICS=false)
  traces?: TraceStore; // undefined: tracing is off (LOCAL_TRACES=false)
}

const sendJson = (res: ServerResponse, body: unknown) => {
  res.writeHead(200, { 'content-type': 'application/json', 'cache-control': 'no-store', 'x-content-type-options': 'nosniff' });
  res.end(JSON.stringify(body));
};

export async function startConsole(opts: ConsoleOptions) {
  const toAdminApi = signingHandler({ nodeA: opts.adminUrl });
  // One request's failure (a request-target URL cannot parse) is its own 4xx/5xx: an unhandled
  // rejection here would end the whole npm start it shares a process with.
  const server = createServer((req, res) => {
    serve(req, res).catch((e: unknown) => (res.headersSent ? res.destroy() : sendProblem(res, e)));
  });
  async function serve(req: IncomingMessage, res: ServerResponse) {
    if (!fromLocalOrigin(req)) return sendProblem(res, localErrors.consoleRefused());
    if (!URL.canParse(req.url ?? '/', 'http://localhost')) return sendProblem(res, invalidField('url', 'is not a request target this console serves'));
    const url = new URL(req.url ?? '/', 'http://localhost');
    if (url.pathname === '/') req.url = CONSOLE;
    if (url.pathname === '/' || url.pathname === CONSOLE || url.pathname.startsWith(`${CONSOLE}/`)) return toAdminApi(req, res);
    if (url.pathname === SIGN_IN) return signIn(req, res);
    if (req.method !== 'GET') return sendProblem(res, httpErrors.methodNotAllowed(`${req.method} is not served at ${url.pathname}; GET is`, ['GET']));
    const known = url.pathname === '/local/dashboard' || url.pathname === TRACES || url.pathname.startsWith(`${TRACES}/`);
    if (!known) return sendProblem(res, commonErrors.notFound(`The console has nothing at ${url.pathname}`));
    const claims = await opts.operators.verify(req.headers.authorization);
    if (!claims) return sendProblem(res, httpErrors.unauthorized('Sign in to the console first'));
    const operator = operatorOf(claims);
    if (!operator) return sendProblem(res, httpErrors.roleForbids('The signed-in user is in no role: viewer, operator or admin'));
    if (url.pathname === '/local/dashboard') {
      if (!opts.metrics) return sendProblem(res, localErrors.metricsOff());
      const minutes = Math.min(24 * 60, Math.max(5, Number(url.searchParams.get('minutes')) || 60));
      return sendJson(res, { ...opts.metrics.dashboard(minutes), alarms: opts.metrics.alarms() });
    }
    return serveTraces(res, url, operator.tenant);
  }
  // POST /local/sign-in {"name","password"}: the operator's ID token, or 401 for any wrong pair.
  async function signIn(req: IncomingMessage, res: ServerResponse) {
    if (req.method !== 'POST') return sendProblem(res, httpErrors.methodNotAllowed(`${req.method} is not served at ${SIGN_IN}; POST is`, ['POST']));
    const body = await readBody(req, MAX_SIGN_IN_BODY);
    if (body === 'too_large') return sendProblem(res, httpErrors.payloadTooLarge(`A sign-in is at most ${MAX_SIGN_IN_BODY} bytes`));
    let given: { name?: unknown; password?: unknown };
    try {
      given = JSON.parse(body.toString('utf8'));
    } catch {
      return sendProblem(res, httpErrors.malformedJson('A sign-in is {"name": "...", "password": "..."}'));
    }
    const signedIn = typeof given?.name === 'string' && typeof given.password === 'string' && opts.operators.signIn(given.name, given.password);
    if (!signedIn) return sendProblem(res, httpErrors.unauthorized('Wrong name or password'));
    sendJson(res, signedIn);
  }
  // /local/traces[?paymentId=…]: what the recent traces are (a payment's); /local/traces/<id>: one.
  // Those of `tenant` only, for its staff: another tenant's is not found, as one never recorded.
  function serveTraces(res: ServerResponse, url: URL, tenant: string | undefined) {
    if (!opts.traces) return sendProblem(res, localErrors.tracesOff());
    const id = url.pathname.slice(TRACES.length + 1);
    if (!id) {
      const paymentId = url.searchParams.get('paymentId');
      const items = opts.traces.recent(50, paymentId ? { key: PAYMENT_ANNOTATION, value: paymentId } : undefined, tenant);
      return sendJson(res, { items });
    }
    const trace = opts.traces.trace(id, tenant);
    if (!trace) return sendProblem(res, localErrors.traceNotFound(id));
    sendJson(res, trace);
  }
  const { port, stop } = await listen(server, opts.port);
  return { url: `http://localhost:${port}`, port, stop };
}

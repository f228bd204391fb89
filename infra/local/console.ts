import { readFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { join } from 'node:path';
import { build } from 'esbuild';
import { commonErrors, invalidField } from '../../lib/errors';
import { httpErrors } from '../../lib/http/errors';
import { PAYMENT_ANNOTATION } from '../../lib/payments';
import type { LocalCloudWatch } from './cloudwatch';
import { localErrors } from './errors';
import { listen } from './listen';
import { customSecretRefusal, fromLocalOrigin, sendProblem, signingHandler } from './proxy';
import { ROOT } from './serverless-config';
import type { TraceStore } from './traces';

// The back-office console that `npm start` serves (its page in console/, bundled here by esbuild
// when the node starts). The page reaches the service through three doors only: /admin/<path>, the
// Admin API, each request signed with the node's secret as the signing proxy signs it;
// /local/dashboard, the template's dashboard and alarms on the metrics the local run collects; and
// /local/traces, the traces it records (the recent ones, a payment's by its id, one by its id).
// Like the proxy, it takes requests only from this machine, and no web page of another site; and
// like it, it signs with a secret other than the local default only when PROXY_ALLOW_CUSTOM_SECRET=1
// says so (customSecretRefusal): otherwise /admin/ is refused, and the rest of the page works.
const ADMIN_PREFIX = '/admin';
const TRACES = '/local/traces';
const SOURCE = join(ROOT, 'console');
// Nothing but this origin: the page loads and fetches nothing from anywhere else.
const CSP = "default-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

interface ConsoleOptions {
  port: number;
  node: string; // "A", "B": the page says which node it shows
  adminUrl: string;
  secret: string;
  metrics?: LocalCloudWatch; // undefined: collection is off (LOCAL_METRICS=false)
  traces?: TraceStore; // undefined: tracing is off (LOCAL_TRACES=false)
  env?: NodeJS.ProcessEnv; // where PROXY_ALLOW_CUSTOM_SECRET is read; process.env by default
}

// The page's script and style sheet, minified: Preact, uPlot and the console's own code.
async function bundleConsole(): Promise<{ js: string; css: string }> {
  const { outputFiles } = await build({
    entryPoints: [join(SOURCE, 'main.tsx')],
    bundle: true,
    minify: true,
    write: false,
    format: 'esm',
    target: 'es2022',
    jsx: 'automatic',
    jsxImportSource: 'preact',
    outdir: 'out',
    logLevel: 'silent',
  });
  const text = (ext: string) => outputFiles.find((f) => f.path.endsWith(ext))?.text ?? '';
  return { js: text('.js'), css: text('.css') };
}

function send(res: ServerResponse, status: number, type: string, body: string) {
  res.writeHead(status, { 'content-type': type, 'cache-control': 'no-store', 'content-security-policy': CSP, 'x-content-type-options': 'nosniff' });
  res.end(body);
}

export async function startConsole(opts: ConsoleOptions) {
  const bundle = bundleConsole();
  bundle.catch(() => undefined); // a failed build is answered per request, below
  const page = readFileSync(join(SOURCE, 'index.html'), 'utf8').replaceAll('{{node}}', opts.node);
  const signingOff = customSecretRefusal('the console', opts.secret, opts.env ?? process.env);
  const admin = signingHandler({ nodeA: opts.adminUrl, secret: opts.secret });
  // One request's failure (a request-target URL cannot parse) is its own 4xx/5xx: an unhandled
  // rejection here would end the whole npm start it shares a process with.
  const server = createServer((req, res) => {
    serve(req, res).catch((e: unknown) => (res.headersSent ? res.destroy() : sendProblem(res, e)));
  });
  async function serve(req: IncomingMessage, res: ServerResponse) {
    if (!fromLocalOrigin(req)) return sendProblem(res, localErrors.consoleRefused());
    if (!URL.canParse(req.url ?? '/', 'http://localhost')) return sendProblem(res, invalidField('url', 'is not a request target this console serves'));
    const url = new URL(req.url ?? '/', 'http://localhost');
    if (url.pathname === ADMIN_PREFIX || url.pathname.startsWith(`${ADMIN_PREFIX}/`)) {
      if (signingOff) return sendProblem(res, localErrors.consoleSigningOff(signingOff));
      req.url = req.url!.slice(ADMIN_PREFIX.length) || '/';
      return admin(req, res);
    }
    if (req.method !== 'GET') return sendProblem(res, httpErrors.methodNotAllowed(`${req.method} is not served at ${url.pathname}; GET is`, ['GET']));
    if (url.pathname === TRACES || url.pathname.startsWith(`${TRACES}/`)) return serveTraces(res, url);
    switch (url.pathname) {
      case '/':
        return send(res, 200, 'text/html; charset=utf-8', page);
      case '/console.js':
      case '/console.css': {
        const built = await bundle.catch((e: Error) => e);
        if (built instanceof Error) return sendProblem(res, localErrors.consoleBuildFailed(built.message));
        const js = url.pathname.endsWith('.js');
        return send(res, 200, js ? 'text/javascript; charset=utf-8' : 'text/css; charset=utf-8', js ? built.js : built.css);
      }
      case '/local/dashboard': {
        if (!opts.metrics) return sendProblem(res, localErrors.metricsOff());
        const minutes = Math.min(24 * 60, Math.max(5, Number(url.searchParams.get('minutes')) || 60));
        const body = { ...opts.metrics.dashboard(minutes), alarms: opts.metrics.alarms() };
        return send(res, 200, 'application/json', JSON.stringify(body));
      }
    }
    sendProblem(res, commonErrors.notFound(`The console has nothing at ${url.pathname}`));
  }
  // /local/traces[?paymentId=…]: what the recent traces are (a payment's); /local/traces/<id>: one.
  function serveTraces(res: ServerResponse, url: URL) {
    if (!opts.traces) return sendProblem(res, localErrors.tracesOff());
    const id = url.pathname.slice(TRACES.length + 1);
    if (!id) {
      const paymentId = url.searchParams.get('paymentId');
      const items = opts.traces.recent(50, paymentId ? { key: PAYMENT_ANNOTATION, value: paymentId } : undefined);
      return send(res, 200, 'application/json', JSON.stringify({ items }));
    }
    const trace = opts.traces.trace(id);
    if (!trace) return sendProblem(res, localErrors.traceNotFound(id));
    send(res, 200, 'application/json', JSON.stringify(trace));
  }
  const { port, stop } = await listen(server, opts.port);
  return { url: `http://localhost:${port}`, port, stop, signingOff };
}

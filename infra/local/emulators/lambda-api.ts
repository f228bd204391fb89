import { createServer } from 'node:http';
import { listen, readBody } from '../start/listen';
import type { FunctionDef } from '../start/serverless-config';
import type { LambdaRuntime } from './lambda';
import { sigV4Refusal } from './sigv4';

// Lambda's Invoke (POST /2015-03-31/functions/<name>/invocations, RequestResponse), signed with SigV4
// by the local credentials, for the functions of the local runtime by their names in serverless.yml:
// what the console's function calls to hand a request to its route's function (lib/api/http/console.ts),
// as it calls Lambda on AWS, through the SDK's AWS_ENDPOINT_URL_LAMBDA. A function that throws is a
// 200 with X-Amz-Function-Error, as Lambda answers.
const INVOKE = /^\/2015-03-31\/functions\/([^/]+)\/invocations$/;
const MAX_PAYLOAD = 6 * 1024 * 1024;

export async function startLambdaApi(opts: { port?: number; functions: FunctionDef[]; runtime: LambdaRuntime }) {
  const byName = new Map(opts.functions.map((f) => [f.name, f]));
  const server = createServer(async (req, res) => {
    const reply = (status: number, body: unknown, headers: Record<string, string> = {}) => {
      res.writeHead(status, { 'content-type': 'application/json', ...headers });
      res.end(JSON.stringify(body));
    };
    const url = new URL(req.url ?? '/', 'http://localhost');
    const body = await readBody(req, MAX_PAYLOAD);
    if (body === 'too_large') return reply(413, { Type: 'User', message: 'Request must be smaller than 6291456 bytes for the InvokeFunction operation' });
    const unsigned = await sigV4Refusal(req, url.pathname, url.searchParams, body, { service: 'lambda' });
    if (unsigned)
      return reply(
        403,
        { message: `The security token included in the request is invalid: ${unsigned}` },
        { 'x-amzn-errortype': 'UnrecognizedClientException' },
      );
    const name = req.method === 'POST' ? INVOKE.exec(url.pathname)?.[1] : undefined;
    const fn = name && byName.get(decodeURIComponent(name));
    if (!fn) return reply(404, { Type: 'User', message: `Function not found: ${name ?? url.pathname}` }, { 'x-amzn-errortype': 'ResourceNotFoundException' });
    try {
      const header = req.headers['x-amzn-trace-id'];
      const result = await opts.runtime.invoke(fn, JSON.parse(body.toString('utf8') || '{}'), Array.isArray(header) ? header[0] : header);
      reply(200, result ?? null, { 'x-amz-executed-version': '$LATEST' });
    } catch (e) {
      console.error(e); // loudly in the local log, as a function's error is in its logs
      reply(200, { errorType: (e as Error).name, errorMessage: (e as Error).message }, { 'x-amz-function-error': 'Unhandled' });
    }
  });
  const { port, stop } = await listen(server, opts.port ?? 0);
  return { endpoint: `http://localhost:${port}`, stop };
}

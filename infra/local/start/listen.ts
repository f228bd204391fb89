import type { IncomingMessage, RequestListener, Server, ServerResponse } from 'node:http';
import { problemResponse } from '../../../lib/api/http/problem';
import { localErrors } from './errors';

// A start that cannot go on for a reason the user can mend (a port held by another program): its
// message says what to change, and `npm start` prints it without a stack trace.
export class StartError extends Error {}

// The hosts of a node's public URLs, which a peer, Rafiki or a browser may reach its servers under
// (a tunnel, a name in /etc/hosts), besides its loopback names: those of WALLET_ADDRESS_URL,
// AUTH_SERVER_URL and IDP_CONSENT_URL, and LOCAL_ALLOWED_HOSTS (comma-separated `name[:port]`, for
// a name no URL setting holds, such as the connector's that peers were given).
export function publicHosts(env: NodeJS.ProcessEnv): string[] {
  const ofUrl = (url: string | undefined) => (url && URL.canParse(url) ? [new URL(url).host] : []);
  const listed = (env.LOCAL_ALLOWED_HOSTS ?? '').split(',').map((h) => h.trim().toLowerCase());
  return [...ofUrl(env.WALLET_ADDRESS_URL), ...ofUrl(env.AUTH_SERVER_URL), ...ofUrl(env.IDP_CONSENT_URL), ...listed].filter(Boolean);
}

const LOOPBACK_NAMES = new Set(['localhost', '127.0.0.1', '[::1]']);
const HOST = /^(\[[0-9a-f:.]+\]|[a-z0-9.-]+)(?::(\d{1,5}))?$/;

// Whether a Host header names this server: a loopback name with its port (none for port 80), or
// one of `hosts`, as written. A page of another site that DNS rebinding pointed at 127.0.0.1 sends
// its own name, and is refused.
export function isOwnHost(host: string | undefined, port: number, hosts: string[]): boolean {
  const m = HOST.exec(host?.toLowerCase() ?? '');
  if (!m) return false;
  if (LOOPBACK_NAMES.has(m[1]) && Number(m[2] ?? 80) === port) return true;
  return hosts.includes(m[0]);
}

// Starts a local HTTP server on loopback (port 0: any free port) and gives its port and a stop
// that also ends kept-alive connections. Every request whose Host is not one of the server's own
// names (isOwnHost; `hosts`: the names besides loopback) is answered 403 before the server's
// request listeners see it: so a web page cannot read a local server through DNS rebinding.
export async function listen(server: Server, port: number, hosts: string[] = []): Promise<{ port: number; stop(): Promise<void> }> {
  const handlers = server.listeners('request') as RequestListener[];
  server.removeAllListeners('request');
  server.on('request', (req: IncomingMessage, res: ServerResponse) => {
    if (isOwnHost(req.headers.host, bound, hosts)) for (const handle of handlers) handle.call(server, req, res);
    else refuseHost(res, bound);
  });
  await new Promise<void>((ok, fail) => {
    server.once('error', fail);
    server.listen(port, '127.0.0.1', () => ok());
  });
  const bound = (server.address() as { port: number }).port;
  return {
    port: bound,
    stop: () =>
      new Promise<void>((ok) => {
        server.closeAllConnections();
        server.close(() => ok());
      }),
  };
}

function refuseHost(res: ServerResponse, port: number) {
  const r = problemResponse(localErrors.hostRefused(port));
  res.writeHead(r.statusCode, r.headers as Record<string, string>);
  res.end(r.body);
}

// A request's body, read whole unless it grows past `maxBytes` (then 'too_large', and the rest is
// not read): the local servers' one body reader.
export async function readBody(req: IncomingMessage, maxBytes: number): Promise<Buffer | 'too_large'> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += chunk.length;
    if (size > maxBytes) return 'too_large';
    chunks.push(chunk);
  }
  return Buffer.concat(chunks);
}

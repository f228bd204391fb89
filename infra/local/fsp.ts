import { readFile } from 'node:fs/promises';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { Webhook } from 'standardwebhooks';
import { adminClient } from './admin-client';
import { consentPages } from './consent';
import { listen, readBody } from './listen';

// The local FSP simulator that `npm start` runs. It serves the pull model's rates endpoint
// (GET /rates?base=USD[&peerId=P]) from an editable JSON file, read afresh on every request, and
// receives webhooks (POST /webhooks): it verifies each signature (a bad one gets 401), logs and
// keeps what arrived with the result (GET /webhooks: `verified`, and `error` when it failed), and,
// like a real FSP, funds each payment it is told about
// (payment.created) through the signed Admin API, unless autoFund is off (or the payment's
// metadata says "autoFund": false). Its funding request carries the webhook's X-Amzn-Trace-Id, as
// a traced FSP's would, so that the payment's trace goes on through the funding and the worker.
// Given the authorization server and the IdP secret, it also serves the consent page of
// interactive Open Payments grants (GET and POST /consent, ./consent.ts) and keeps the choices
// made there (GET /consent/decisions).
// Far above any event the service sends (EventBridge carries at most 256 KB).
const MAX_WEBHOOK_BYTES = 1024 * 1024;

interface RatesFile {
  rates?: Record<string, Record<string, number>>;
  peerRates?: Record<string, Record<string, Record<string, number>>>;
}

export interface FspOptions {
  port: number;
  ratesFile: string;
  webhookSecret: string;
  adminUrl: string;
  adminSecret: string;
  autoFund: boolean;
  log?: (line: string) => void;
  // The consent page: the authorization server's URL and the secret it takes as x-idp-secret.
  authServerUrl?: string;
  idpSecret?: string;
}

export async function startFsp(opts: FspOptions) {
  const log = opts.log ?? (() => undefined);
  const verifier = new Webhook(opts.webhookSecret);
  type Received = { receivedAt: string; id: string; type?: string; verified: boolean; error?: string; data?: unknown };
  const received: Received[] = [];
  const keep = (r: Omit<Received, 'receivedAt'>) => {
    received.push({ receivedAt: new Date().toISOString(), ...r });
    if (received.length > 200) received.shift();
  };

  const admin = adminClient(opts.adminUrl, opts.adminSecret);
  const consent = opts.authServerUrl && opts.idpSecret ? consentPages({ authServerUrl: opts.authServerUrl, idpSecret: opts.idpSecret, log }) : undefined;
  async function fund(paymentId: string, traceHeader: string | undefined) {
    // One key per payment: a retry of this funding (or a second webhook for it) cannot fund twice.
    const headers = { 'idempotency-key': `fsp-fund-${paymentId}`, ...(traceHeader && { 'x-amzn-trace-id': traceHeader }) };
    const res = await admin.request('POST', `/payments/${paymentId}/fund`, { headers });
    log(`[fsp] funded payment ${paymentId} -> ${res.status}`);
  }

  // A request that fails (a client gone mid-body, a fault here) is answered or dropped on its own:
  // an unhandled rejection would end the npm start this shares a process with.
  const server = createServer((req, res) => {
    serve(req, res).catch((e: Error) => (res.headersSent ? res.destroy() : reply(res, 500, { error: e.message })));
  });
  const reply = (res: ServerResponse, status: number, body: unknown) => {
    res.writeHead(status, { 'content-type': 'application/json' });
    res.end(JSON.stringify(body));
  };
  async function serve(req: IncomingMessage, res: ServerResponse) {
    if (!URL.canParse(req.url ?? '/', 'http://localhost')) return reply(res, 400, { error: 'the request target is not a path this server serves' });
    const url = new URL(req.url ?? '/', 'http://localhost');
    if (consent && (await consent.serve(req, res, url))) return;
    if (req.method === 'POST' && url.pathname === '/webhooks') {
      const body = await readBody(req, MAX_WEBHOOK_BYTES);
      if (body === 'too_large') return reply(res, 413, { error: `a webhook is at most ${MAX_WEBHOOK_BYTES} bytes` });
      const raw = body.toString('utf8');
      let event: { id: string; type: string; data: { id?: string; metadata?: { autoFund?: unknown } | null } };
      try {
        event = verifier.verify(raw, req.headers as Record<string, string>) as typeof event;
      } catch (e) {
        const id = String(req.headers['webhook-id'] ?? '(no id)');
        log(`[fsp] REJECTED webhook ${id}: ${(e as Error).message}`);
        keep({ id, verified: false, error: (e as Error).message });
        return reply(res, 401, { error: 'signature verification failed' });
      }
      // De-duplicate on the event id: delivery is at least once.
      if (received.some((r) => r.verified && r.id === event.id)) return reply(res, 200, { duplicate: true });
      keep({ id: event.id, type: event.type, verified: true, data: event.data });
      log(`[fsp] webhook ${event.type} ${event.data?.id ?? ''}`);
      reply(res, 204, {});
      // A payment whose metadata says "autoFund": false is left to the user to fund or cancel.
      const funds = opts.autoFund && event.data?.metadata?.autoFund !== false;
      const trace = req.headers['x-amzn-trace-id'];
      if (event.type === 'payment.created' && funds && event.data?.id)
        void fund(event.data.id, Array.isArray(trace) ? trace[0] : trace).catch((e) => log(`[fsp] funding failed: ${e.message}`));
      return;
    }
    if (req.method === 'GET' && url.pathname === '/webhooks') return reply(res, 200, received);
    if (req.method !== 'GET' || url.pathname !== '/rates') return reply(res, 404, { error: 'not found' });
    const base = url.searchParams.get('base');
    const peerId = url.searchParams.get('peerId');
    if (!base) return reply(res, 400, { error: 'base is required' });
    let file: RatesFile;
    try {
      file = JSON.parse(await readFile(opts.ratesFile, 'utf8'));
    } catch (e) {
      return reply(res, 500, { error: `cannot read ${opts.ratesFile}: ${(e as Error).message}` });
    }
    const rates = (peerId ? file.peerRates?.[peerId] : file.rates)?.[base];
    log(`[fsp] rates for ${base}${peerId ? ` (peer ${peerId})` : ''} -> ${rates ? 200 : 404}`);
    if (!rates) return reply(res, 404, { error: `no rates for base ${base}${peerId ? ` and peer ${peerId}` : ''}` });
    reply(res, 200, { base, rates });
  }
  const { port, stop } = await listen(server, opts.port);
  return { url: `http://localhost:${port}`, stop, consentDecisions: consent?.decisions ?? [] };
}

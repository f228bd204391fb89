import { readFile } from 'node:fs/promises';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { Webhook } from 'standardwebhooks';
import { listen, readBody } from '../start/listen';
import { adminClient } from '../tools/admin-client';
import { consentPages } from './consent';

// The local FSP simulator that `npm start` runs. It serves the pull model's rates endpoint
// (GET /rates?base=USD[&peerId=P]) from an editable JSON file, read afresh on every request, and
// receives webhooks (POST /webhooks): it verifies each signature (a bad one gets 401), logs and
// keeps what arrived with the result (GET /webhooks: `verified`, `answered`, and `error` when it
// failed), and, like a careful FSP, funds each payment it is told about (payment.created) through
// the signed Admin API before it answers, unless autoFund is off (or the payment's metadata says
// "autoFund": false): a 2xx means the payment is funded, or can never be (`fundingOutcome`), and a
// funding that failed is a 503, so the service sends the webhook again. Told that a client looked up
// a wallet address that is not there (wallet_address.not_found), it creates it, in its
// `walletAddressAssetCode` (USD unless told), as an FSP that makes wallet addresses on demand does. Its funding request carries
// the webhook's X-Amzn-Trace-Id, as a traced FSP's would, so that the payment's trace goes on
// through the funding and the worker.
// Given the authorization server and the IdP secret, it also serves the consent page of
// interactive Open Payments grants (GET and POST /consent, ./consent.ts) and keeps the choices
// made there (GET /consent/decisions).
// Far above any event the service sends (EventBridge carries at most 256 KB).
const MAX_WEBHOOK_BYTES = 1024 * 1024;

// What a funding's answer leaves for the payment.created webhook: 'done' when the payment is funded
// (200, or the replay of an earlier 200) or can never be by trying again (409 invalid_state: it is
// funded, cancelled or ended already; 404: no such payment; 422: a domain rule refuses it, e.g. its
// quote expired); 'retry' for anything that may pass later: another funding of it still in
// progress (409 idempotency_key_in_progress, which a crash in the middle of one leaves until its
// lock expires), a refused signature, a throttle, a 5xx.
export function fundingOutcome(status: number, code: unknown): 'done' | 'retry' {
  if (status === 200 || status === 404 || status === 422) return 'done';
  return status === 409 && code === 'invalid_state' ? 'done' : 'retry';
}

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
  walletAddressAssetCode?: string; // of the wallet addresses it creates on demand; USD unless given
  log?: (line: string) => void;
  // The consent page: the authorization server's URL and the secret it takes as x-idp-secret.
  authServerUrl?: string;
  idpSecret?: string;
  hosts?: string[]; // the names it answers to besides loopback (./listen.ts)
}

export async function startFsp(opts: FspOptions) {
  const log = opts.log ?? (() => undefined);
  const verifier = new Webhook(opts.webhookSecret);
  type Received = { receivedAt: string; id: string; type?: string; verified: boolean; answered?: number; error?: string; data?: unknown };
  const received: Received[] = [];
  const keep = (r: Omit<Received, 'receivedAt'>) => {
    received.push({ receivedAt: new Date().toISOString(), ...r });
    if (received.length > 200) received.shift();
  };

  const admin = adminClient(opts.adminUrl, opts.adminSecret);
  const consent = opts.authServerUrl && opts.idpSecret ? consentPages({ authServerUrl: opts.authServerUrl, idpSecret: opts.idpSecret, log }) : undefined;
  // The answer to payment.created: 204 once the payment is funded, or once it can never be; 503
  // while it could still be (the service tries the webhook again, on its retry schedule).
  async function fund(paymentId: string, traceHeader: string | undefined): Promise<204 | 503> {
    // One key per payment: a retry of this funding (or a second webhook for it) cannot fund twice.
    const headers = { 'idempotency-key': `fsp-fund-${paymentId}`, ...(traceHeader && { 'x-amzn-trace-id': traceHeader }) };
    const started = performance.now();
    const res = await admin.request('POST', `/payments/${paymentId}/fund`, { headers }).catch((e: Error) => e);
    const ms = Math.round(performance.now() - started);
    if (res instanceof Error) {
      log(`[fsp] funding payment ${paymentId} failed after ${ms} ms: ${res.message}`);
      return 503;
    }
    log(`[fsp] funded payment ${paymentId} -> ${res.status} in ${ms} ms${res.status === 200 ? '' : ` (${res.body?.code ?? res.body})`}`);
    return fundingOutcome(res.status, res.body?.code) === 'done' ? 204 : 503;
  }
  // The answer to wallet_address.not_found: 204 once the address exists (made now, or before) or can
  // never be made (4xx); 503 while it could still be.
  async function createOnDemand(address: string): Promise<204 | 503> {
    const body = { address, assetCode: opts.walletAddressAssetCode ?? 'USD' };
    const res = await admin.request('POST', '/wallet-addresses', { body }).catch((e: Error) => e);
    if (res instanceof Error) {
      log(`[fsp] creating wallet address ${address} failed: ${res.message}`);
      return 503;
    }
    log(`[fsp] created wallet address ${address} on demand -> ${res.status}${res.status === 201 ? '' : ` (${res.body?.code ?? res.body})`}`);
    return res.status < 500 && res.status !== 401 && res.status !== 429 ? 204 : 503;
  }
  // What the simulator does for an event, and its answer.
  const handle = (type: string, data: { id?: string; walletAddressUrl?: string; metadata?: { autoFund?: unknown } | null }, trace?: string) => {
    // A payment whose metadata says "autoFund": false is left to the user to fund or cancel.
    if (type === 'payment.created' && opts.autoFund && data?.metadata?.autoFund !== false && data?.id) return fund(data.id, trace);
    if (type === 'wallet_address.not_found' && data?.walletAddressUrl) return createOnDemand(data.walletAddressUrl);
    return 204;
  };

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
      let event: { id: string; type: string; data: Parameters<typeof handle>[1] };
      try {
        event = verifier.verify(raw, req.headers as Record<string, string>) as typeof event;
      } catch (e) {
        const id = String(req.headers['webhook-id'] ?? '(no id)');
        log(`[fsp] REJECTED webhook ${id}: ${(e as Error).message}`);
        keep({ id, verified: false, error: (e as Error).message });
        return reply(res, 401, { error: 'signature verification failed' });
      }
      // De-duplicate on the event id (delivery is at least once): an event handled already is
      // answered at once; one whose funding failed is tried again.
      if (received.some((r) => r.id === event.id && r.answered === 204)) return reply(res, 200, { duplicate: true });
      const trace = req.headers['x-amzn-trace-id'];
      const answered = await handle(event.type, event.data, Array.isArray(trace) ? trace[0] : trace);
      keep({ id: event.id, type: event.type, verified: true, answered, data: event.data });
      log(`[fsp] webhook ${event.type} ${event.data?.id ?? event.data?.walletAddressUrl ?? ''} (${event.id}) -> ${answered}`);
      return answered === 204 ? reply(res, 204, {}) : reply(res, 503, { error: `${event.type} is not handled yet; send the webhook again` });
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
  const { port, stop } = await listen(server, opts.port, opts.hosts);
  return { url: `http://localhost:${port}`, stop, consentDecisions: consent?.decisions ?? [] };
}

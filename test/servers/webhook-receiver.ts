import { createHmac, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import canonicalize from 'canonicalize';
import { Webhook } from 'standardwebhooks';
import { waitFor } from '../harness/wait';

// A real HTTP server standing in for the FSP's webhook endpoint. It verifies every delivery with
// the standardwebhooks package and keeps what arrived; a test decides what it answers.
export const TEST_WEBHOOK_SECRET = `whsec_${Buffer.from('test-webhook-secret-0123456789ab').toString('base64')}`;

export interface Delivery {
  headers: Record<string, string>;
  raw: string;
  verified: boolean;
  event: { id: string; type: string; createdAt: string; data: any };
  answered: number;
}

// A status, 'hang' (never answer), or a promise of a status (an FSP that acts before it answers).
type Responder = (d: Delivery, req: IncomingMessage, res: ServerResponse) => number | 'hang' | Promise<number>;

// A Rafiki-Signature checked as an FSP built on Rafiki's would: `t=<ms>, v1=<hex HMAC-SHA256 of
// "<t>.<RFC 8785 JSON of {id, type, data}>">`, with the secret's text as the key (node:crypto and the
// canonicalize package here; not the service's code). Throws unless it holds, within 5 minutes.
export function verifyRafikiSignature(secret: string, raw: string, headers: Record<string, string>) {
  const m = /^t=(\d+), v1=([0-9a-f]{64})$/.exec(headers['rafiki-signature'] ?? '');
  if (!m) throw new Error(`no Rafiki-Signature: ${headers['rafiki-signature']}`);
  if (Math.abs(Date.now() - Number(m[1])) > 300_000) throw new Error('Rafiki-Signature too old');
  const { id, type, data } = JSON.parse(raw);
  const expected = createHmac('sha256', secret)
    .update(`${m[1]}.${canonicalize({ id, type, data })}`)
    .digest();
  if (!timingSafeEqual(expected, Buffer.from(m[2], 'hex'))) throw new Error('Rafiki-Signature does not match');
}

// `secret`: the Standard Webhooks secret it verifies with (a tenant's own, for one); `dialect`
// rafiki: it verifies Rafiki-Signature with it instead.
export async function startWebhookReceiver(secret = TEST_WEBHOOK_SECRET, dialect: 'standard' | 'rafiki' = 'standard') {
  const standard = dialect === 'standard' ? new Webhook(secret) : undefined;
  const verify = (raw: string, headers: Record<string, string>) => (standard ? standard.verify(raw, headers) : verifyRafikiSignature(secret, raw, headers));
  const deliveries: Delivery[] = [];
  let respond: Responder = () => 204;
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', async () => {
      const raw = Buffer.concat(chunks).toString('utf8');
      const headers = Object.fromEntries(Object.entries(req.headers).map(([k, v]) => [k, String(v)]));
      let verified = true;
      try {
        verify(raw, headers);
      } catch {
        verified = false;
      }
      const d: Delivery = { headers, raw, verified, event: JSON.parse(raw), answered: 0 };
      const status = await respond(d, req, res);
      if (status === 'hang') return; // never answer: the sender's timeout decides
      d.answered = status;
      deliveries.push(d);
      res.writeHead(status);
      res.end();
    });
  });
  await new Promise<void>((ok) => server.listen(0, '127.0.0.1', () => ok()));
  const port = (server.address() as { port: number }).port;
  const accepted = () => deliveries.filter((d) => d.answered >= 200 && d.answered < 300);
  return {
    url: `http://127.0.0.1:${port}/webhooks`,
    deliveries,
    // Delivered (2xx) events, in arrival order: what the FSP acted on.
    get seen() {
      return accepted().map((d) => d.event);
    },
    // The types of the delivered events about one resource, sorted.
    typesOf(id: string): string[] {
      return accepted()
        .filter((d) => d.event.data.id === id)
        .map((d) => d.event.type)
        .sort();
    },
    respondWith(r: Responder) {
      respond = r;
    },
    waitForEvent(type: string, match: (data: any) => boolean = () => true, timeoutMs?: number) {
      return waitFor(`webhook ${type}`, async () => accepted().find((d) => d.event.type === type && match(d.event.data))?.event, timeoutMs);
    },
    stop: () =>
      new Promise<void>((ok) => {
        server.closeAllConnections();
        server.close(() => ok());
      }),
  };
}
export type WebhookReceiver = Awaited<ReturnType<typeof startWebhookReceiver>>;

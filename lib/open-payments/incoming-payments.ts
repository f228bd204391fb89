import type { JWK } from '@interledger/http-signature-utils';
import * as z from 'zod';
import { config } from '../config';
import { OpenPaymentsError } from '../errors';
import { verifySignature } from '../http/message-signatures';
import { json, type OpReply, type OpRequest, parseJson } from '../http/open-payments';
import { streamCredentials } from '../ilp/stream';
import { completeIntent, createIntent, intentView } from '../payment-intents';
import { createIntentBody, type IntentRecord } from '../payment-intents/schemas';
import { cursorOf, findIntent, pageByWallet } from '../payment-intents/store';
import { intentUrl } from '../resources';
import { findWalletRecordByUrl } from '../wallet-addresses';
import { clientKey } from './client-keys';
import { type Asked, introspectToken } from './introspection';

// Open Payments incoming payments, on the resource server. An incoming payment is a payment
// intent: one record, which the Admin API reaches at /payment-intents/{id} and Open Payments at its
// URL, with the same state, amounts and webhooks. Every call but the public read carries a GNAP
// access token, which the authorization server is asked about (the right type, action and wallet
// address), and is signed with the key of the client the token was granted to. `read` and `list`
// see only the incoming payments that client created; `read-all` and `list-all` see all of the
// wallet address's. The STREAM credentials (`methods`) are shown only to a client with access,
// and only while the payment can receive.
const asServer = { 'www-authenticate': `GNAP as_uri=${config.AUTH_SERVER_URL}` };
const unauthorized = (detail: string) => new OpenPaymentsError(401, 'unauthorized', detail, asServer);
const forbidden = (detail: string) => new OpenPaymentsError(403, 'forbidden', detail, asServer);
const notFound = (id: string) => new OpenPaymentsError(404, 'not_found', `No incoming payment ${id}`);
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

async function existing(id: string): Promise<IntentRecord> {
  const intent = UUID.test(id) ? await findIntent(id) : undefined;
  if (!intent) throw notFound(id);
  return intent;
}

// Who called (the client a token was granted to, as stored on what it creates), and whether its
// token reaches beyond its own resources (read-all, list-all).
interface Caller {
  client: string;
  all: boolean;
}

async function authorize(req: OpRequest, asked: Asked): Promise<Caller> {
  if (!req.token) throw unauthorized('This call needs an Open Payments access token: Authorization: GNAP <token>');
  const info = await introspectToken(req.token, [asked]);
  if (!info.active) throw unauthorized('The access token is not active: unknown, expired or revoked');
  if (!info.access.length) throw forbidden(`The access token does not grant ${asked.actions[0]} on ${asked.type}s of ${asked.identifier}`);
  const client = info.client;
  const verified = await verifySignature(req.signed, async (keyId) =>
    'jwk' in client ? (client.jwk.kid === keyId ? (client.jwk as unknown as JWK) : undefined) : clientKey(client.walletAddress, keyId),
  );
  if (!verified.ok) throw new OpenPaymentsError(401, 'invalid_signature', verified.reason);
  const all = `${asked.actions[0]}-all`;
  return {
    client: 'jwk' in client ? `jwk:${String(client.jwk.x)}` : client.walletAddress.toLowerCase().replace(/\/+$/, ''),
    all: info.access.some((a) => a.actions.includes(all)),
  };
}

// The incoming payment as Open Payments shows it; with `methods` for a client with access.
function view(r: IntentRecord) {
  const v = intentView(r);
  return {
    id: intentUrl(r.id),
    walletAddress: r.walletAddress,
    completed: v.state === 'completed',
    ...(v.incomingAmount && { incomingAmount: v.incomingAmount }),
    receivedAmount: v.receivedAmount,
    expiresAt: r.expiresAt,
    ...(r.metadata && { metadata: r.metadata }),
    createdAt: r.createdAt,
  };
}

async function viewWithMethods(r: IntentRecord) {
  const open = intentView(r).state === 'pending' || intentView(r).state === 'processing';
  return { ...view(r), methods: open ? [await streamCredentials(r)] : [] };
}

export async function createIncomingPayment(req: OpRequest): Promise<OpReply> {
  const body = parseJson(req, createIntentBody);
  const caller = await authorize(req, { type: 'incoming-payment', actions: ['create'], identifier: body.walletAddress });
  return json(201, await viewWithMethods(await createIntent(body, caller.client)));
}

// Read by a client with access (if the token allows `read` only, one it created), or, with no
// Authorization header at all, the public view: what it received, and where to ask for access.
export async function getIncomingPayment(req: OpRequest): Promise<OpReply> {
  const intent = await existing(req.params.id);
  if (req.signed.headers.authorization === undefined) {
    return json(200, { receivedAmount: intentView(intent).receivedAmount, authServer: config.AUTH_SERVER_URL });
  }
  const caller = await authorize(req, { type: 'incoming-payment', actions: ['read'], identifier: intent.walletAddress });
  if (!caller.all && intent.client !== caller.client) throw notFound(req.params.id);
  return json(200, await viewWithMethods(intent));
}

export async function completeIncomingPayment(req: OpRequest): Promise<OpReply> {
  const intent = await existing(req.params.id);
  await authorize(req, { type: 'incoming-payment', actions: ['complete'], identifier: intent.walletAddress });
  return json(200, view(await completeIntent(intent.id)));
}

const pageSize = z
  .string()
  .regex(/^[1-9]\d{0,2}$/, 'must be a whole number from 1 to 100')
  .transform(Number)
  .refine((n) => n <= 100, 'must be at most 100');
const listQuery = z
  .strictObject({
    'wallet-address': z.string().min(1).max(512),
    first: pageSize.optional(),
    last: pageSize.optional(),
    cursor: z
      .string()
      .max(512)
      .transform((c) => Buffer.from(c, 'base64url').toString('utf8'))
      .refine((c) => /^\d{4}-\d\d-\d\dT[\d:.]+Z#[0-9a-f-]{36}$/.test(c), 'is not a cursor this list returned')
      .optional(),
  })
  .refine((q) => !(q.first && q.last), { message: 'first and last cannot be given together', path: ['last'] })
  .refine((q) => !q.last || q.cursor, { message: 'last needs a cursor', path: ['last'] });

const cursor = (r: IntentRecord) => Buffer.from(cursorOf(r)).toString('base64url');

// A wallet address's incoming payments, newest first: `first` (default 20) after `cursor`, or
// `last` before it.
export async function listIncomingPayments(req: OpRequest): Promise<OpReply> {
  const parsed = listQuery.safeParse(req.query);
  if (!parsed.success)
    throw new OpenPaymentsError(400, 'invalid_request', parsed.error.issues.map((i) => `${i.path.join('.') || 'query'} ${i.message}`).join('; '));
  const q = parsed.data;
  const caller = await authorize(req, { type: 'incoming-payment', actions: ['list'], identifier: q['wallet-address'] });
  const wallet = await findWalletRecordByUrl(q['wallet-address']);
  if (!wallet) throw new OpenPaymentsError(404, 'wallet_address_not_found', `No wallet address ${q['wallet-address']}`);
  const page = await pageByWallet(wallet.id, {
    size: q.last ?? q.first ?? 20,
    direction: q.last ? 'newer' : 'older',
    cursor: q.cursor,
    client: caller.all ? undefined : caller.client,
  });
  const [first, last] = [page.records[0], page.records.at(-1)];
  return json(200, {
    pagination: {
      ...(first && { startCursor: cursor(first), endCursor: cursor(last!) }),
      hasNextPage: page.hasNextPage,
      hasPreviousPage: page.hasPreviousPage,
    },
    result: page.records.map(view),
  });
}

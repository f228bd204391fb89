import { type AuthenticatedClient, createAuthenticatedClient, isFinalizedGrantWithAccessToken, OpenPaymentsClientError } from '@interledger/open-payments';
import { ilpErrors } from '../ilp/errors';
import { type RemoteReceiver, receiverFrom } from '../ilp/receiver';
import { withBoundedFetch } from '../platform/net/fetch';
import { httpsAsHttp } from '../platform/runtime';
import { DomainError } from '../shared/errors';
import type { Node } from '../shared/node';
import { serviceIdentity, serviceWalletAddress } from './identity';

// This service as an Open Payments client of other nodes (and of itself), with the official
// client and the service's own identity (./identity.ts): to read an incoming payment anywhere (to
// pay it), it asks the authorization server that the payment names for a grant, then reads the
// payment with it, which yields its STREAM credentials. The grant asked for first is `read-all`,
// as Rafiki's own nodes ask (and as this service's authorization server issues at once, showing a
// payer what it needs and no metadata: lib/auth-server/policy.ts): one token per authorization
// server serves every payment there until it nearly expires, where a grant per payment would cost
// the other node a signed grant request for each (and count against its per-client limit). A
// server that does not issue `read-all` at once is asked for `read` of the one payment, its URL as
// the identifier, and that is remembered. Responses are not validated against the specification
// here: loading it takes about a second at every cold start.
const EARLY_SECS = 30;
const MAX_TOKENS = 1000;

type Scope = 'one' | 'all';
// Each tenant reads as its own client (its service address), with its own tokens: by payment URL
// (scope one) or authorization server (all).
type Token = { value: string; expiresAt: number };
interface Reader {
  api: AuthenticatedClient;
  tokens: Map<string, Token>;
}
const readers = new Map<string, Promise<Reader>>(); // by tenant
const preferred = new Map<string, Scope>(); // by authorization server

function readerOf(node: Node): Promise<Reader> {
  let reader = readers.get(node.tenant.id);
  if (!reader) {
    reader = serviceIdentity(node).then(async ({ privateKey, jwk }) => ({
      // Locally with https ids served over http (LOCAL_FETCH_HTTPS_AS_HTTP), the client signs the
      // http URL it sends to, as the other node (Rafiki among them) checks the URL it received.
      api: await createAuthenticatedClient({
        walletAddressUrl: serviceWalletAddress(node),
        privateKey,
        keyId: jwk.kid,
        validateResponses: false,
        useHttp: httpsAsHttp(),
      }),
      tokens: new Map(),
    }));
    readers.set(node.tenant.id, reader);
    reader.catch(() => readers.delete(node.tenant.id));
  }
  return reader;
}

// A grant that waits for interaction is no use to a payer: the other scope is asked for instead.
class NotIssuedAtOnce extends Error {}

const refused = (e: unknown) =>
  e instanceof NotIssuedAtOnce || (e instanceof OpenPaymentsClientError && (e.status === 400 || e.status === 401 || e.status === 403));

async function requestToken(r: Reader, authServer: string, url: string, scope: Scope): Promise<string> {
  const access = scope === 'one' ? { actions: ['read' as const], identifier: url } : { actions: ['read-all' as const] };
  const grant = await r.api.grant.request({ url: authServer }, { access_token: { access: [{ type: 'incoming-payment', ...access }] } });
  if (!isFinalizedGrantWithAccessToken(grant)) throw new NotIssuedAtOnce(`${authServer} did not issue a grant to read incoming payments at once`);
  const expiresIn = grant.access_token.expires_in ?? 60;
  if (r.tokens.size >= MAX_TOKENS) r.tokens.delete(r.tokens.keys().next().value!);
  r.tokens.set(scope === 'one' ? url : authServer, { value: grant.access_token.value, expiresAt: Date.now() + (expiresIn - EARLY_SECS) * 1000 });
  return grant.access_token.value;
}

// The payment read with a token of this scope: a kept one, and if the resource server no longer
// takes it (revoked, or the server forgot it), a new one, once.
async function readWith(r: Reader, authServer: string, url: string, scope: Scope) {
  const key = scope === 'one' ? url : authServer;
  for (;;) {
    const kept = r.tokens.get(key);
    const fresh = !kept || kept.expiresAt <= Date.now();
    const accessToken = fresh ? await requestToken(r, authServer, url, scope) : kept.value;
    try {
      return await r.api.incomingPayment.get({ url, accessToken });
    } catch (e) {
      r.tokens.delete(key);
      if (fresh || !refused(e)) throw e;
    }
  }
}

// The receiver as it is now: an incoming payment on any node, read over Open Payments, with its
// STREAM credentials.
export async function readReceiver(node: Node, url: string): Promise<RemoteReceiver> {
  let read: Awaited<ReturnType<typeof readIncomingPayment>>;
  try {
    read = await readIncomingPayment(node, url);
  } catch (e) {
    throw receiverFailure(e, url, 'read the incoming payment');
  }
  return receiverFrom(url, read);
}

// What another node's failure to answer for the incoming payment (or wallet address) at `url` means
// here: none there is receiver_not_found; no answer, or one that is not, receiver_unreachable, with
// what it answered when it answered (a refusal is not an outage): its status, never its body (the
// client's description is the body's).
export function receiverFailure(e: unknown, url: string, doing: string, missing = `No incoming payment at ${url}`): unknown {
  if (e instanceof OpenPaymentsClientError && e.status === 404) return ilpErrors.receiverNotFound(missing);
  if (e instanceof DomainError) return e;
  const answer = e instanceof OpenPaymentsClientError && e.status !== undefined ? ` (HTTP ${e.status})` : '';
  return ilpErrors.receiverUnreachable(`Could not ${doing} at ${url}: ${(e as Error).message}${answer}`);
}

// An incoming payment on any node, read with access: amounts, state and its payment methods. The
// URL and the servers it names are another node's (or anyone's) choice: every fetch the client makes
// for it is bounded (lib/platform/net/fetch.ts). A failure is a plain error: readReceiver says what it means
// (receiver_unreachable).
export async function readIncomingPayment(node: Node, url: string) {
  const reader = await readerOf(node);
  try {
    return await withBoundedFetch({ allowPrivate: node.allowPrivateFetch }, () => read(reader, url));
  } catch (e) {
    // Not answered at all (refused, too large, timed out), or not with JSON: the client's message
    // names only the request; its description says why (a JSON parser's quotes the body: not that).
    if (e instanceof OpenPaymentsClientError && e.status === undefined && e.description) {
      throw new Error(/\bJSON\b/.test(e.description) ? 'The answer is not JSON' : e.description, { cause: e });
    }
    throw e;
  }
}

async function read(r: Reader, url: string) {
  const { authServer } = await r.api.incomingPayment.getPublic({ url });
  if (!authServer) throw new Error(`${url} names no authorization server`);
  const first = preferred.get(authServer) ?? 'all';
  try {
    return await readWith(r, authServer, url, first);
  } catch (e) {
    if (!refused(e)) throw e;
    const other = first === 'all' ? 'one' : 'all';
    const read = await readWith(r, authServer, url, other);
    preferred.set(authServer, other);
    return read;
  }
}

// An access token for incoming payments at `authServer` with these actions, kept until it nearly
// expires (one per server and set of actions, as reading keeps its own).
async function actionToken(r: Reader, authServer: string, actions: ('create' | 'read-all' | 'complete')[]): Promise<string> {
  const key = `${authServer}#${actions.join(',')}`;
  const kept = r.tokens.get(key);
  if (kept && kept.expiresAt > Date.now()) return kept.value;
  const grant = await r.api.grant.request({ url: authServer }, { access_token: { access: [{ type: 'incoming-payment', actions }] } });
  if (!isFinalizedGrantWithAccessToken(grant)) throw new NotIssuedAtOnce(`${authServer} did not issue a grant for incoming payments at once`);
  if (r.tokens.size >= MAX_TOKENS) r.tokens.delete(r.tokens.keys().next().value!);
  r.tokens.set(key, { value: grant.access_token.value, expiresAt: Date.now() + ((grant.access_token.expires_in ?? 60) - EARLY_SECS) * 1000 });
  return grant.access_token.value;
}

export interface RemoteIncomingPaymentInput {
  incomingAmount?: { value: string; assetCode: string; assetScale: number };
  expiresAt?: string;
  metadata?: Record<string, unknown> | null;
}

// An incoming payment made on another node's wallet address, as this node's own client (Rafiki's
// remote receiver: it asks `create` and `read-all`, as Rafiki's nodes do), bounded as reading is.
export async function createRemoteIncomingPayment(node: Node, walletAddressUrl: string, input: RemoteIncomingPaymentInput) {
  const r = await readerOf(node);
  return withBoundedFetch({ allowPrivate: node.allowPrivateFetch }, async () => {
    const wallet = await r.api.walletAddress.get({ url: walletAddressUrl });
    const accessToken = await actionToken(r, wallet.authServer, ['create', 'read-all']);
    const { metadata, ...rest } = input;
    return r.api.incomingPayment.create({ url: wallet.resourceServer, accessToken }, { walletAddress: wallet.id, ...rest, ...(metadata && { metadata }) });
  });
}

// Another node's incoming payment completed (it takes nothing more), as this node's own client.
export async function completeRemoteIncomingPayment(node: Node, url: string) {
  const r = await readerOf(node);
  return withBoundedFetch({ allowPrivate: node.allowPrivateFetch }, async () => {
    const { authServer } = await r.api.incomingPayment.getPublic({ url });
    if (!authServer) throw new Error(`${url} names no authorization server`);
    return r.api.incomingPayment.complete({ url, accessToken: await actionToken(r, authServer, ['read-all', 'complete']) });
  });
}

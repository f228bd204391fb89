import { streamCredentials } from '../../ilp/stream';
import { completeIntent, createIntent, cursorOf, findIntent, intentView, pageIntentsByWallet } from '../../payment-intents';
import { createIntentBody, type IntentRecord } from '../../payment-intents/schemas';
import { commonErrors } from '../../shared/errors';
import type { Node } from '../../shared/node';
import { intentUrl, isResourceId } from '../../shared/resources';
import { sameAddress } from '../../shared/wallet-address-url';
import { json, type OpReply, type OpRequest, parseJson } from '../http/open-payments';
import { authorize, forbidden, reachesAll, shownTo } from './access';
import { listRoute } from './pagination';

// Open Payments incoming payments, on the resource server. An incoming payment is a payment
// intent: one record, which the Admin API reaches at /payment-intents/{id} and Open Payments at its
// URL, with the same state, amounts and webhooks. Every call but the public read carries a GNAP
// access token, which the authorization server is asked about (the right type, action and wallet
// address), and is signed with the key of the client the token was granted to. `read`, `list` and
// `complete` reach only the incoming payments that client created (another's is 403); `read-all`
// and `list-all` (only with the wallet owner's consent) all of the wallet address's; a `read` whose
// identifier is an incoming payment's URL, that one payment. The STREAM credentials (`methods`) are shown only to a client with access,
// and only while the payment can receive or waits for the FSP's approval.
async function existing(node: Node, id: string): Promise<IntentRecord> {
  const intent = isResourceId(id) ? await findIntent(node, id) : undefined;
  if (!intent) throw commonErrors.notFound(`No incoming payment ${id}`);
  return intent;
}

const notTheClients = (node: Node, id: string) =>
  forbidden(node, `Incoming payment ${id} was not created by this client, and the access token reaches only those it did`);

// The incoming payment as Open Payments shows it; with `methods` for a client with access.
function view(node: Node, r: IntentRecord) {
  const v = intentView(node, r);
  return {
    id: intentUrl(node, r.id),
    walletAddress: r.walletAddress,
    completed: v.state === 'completed',
    ...(v.incomingAmount && { incomingAmount: v.incomingAmount }),
    // What payers paid, the receiving fee included: what they compare with incomingAmount.
    receivedAmount: v.paidAmount,
    expiresAt: r.expiresAt,
    ...(r.metadata && { metadata: r.metadata }),
    createdAt: r.createdAt,
  };
}

async function viewWithMethods(node: Node, r: IntentRecord) {
  const { state } = intentView(node, r);
  // One held for approval too: a payer can quote it, and pays once it is approved.
  const open = state === 'pending_approval' || state === 'pending' || state === 'processing';
  return { ...view(node, r), methods: open ? [await streamCredentials(node, r)] : [] };
}

export async function createIncomingPayment(node: Node, req: OpRequest): Promise<OpReply> {
  const body = parseJson(req, createIntentBody);
  const caller = await authorize(node, req, [{ type: 'incoming-payment', actions: ['create'], identifier: body.walletAddress }]);
  return json(201, await viewWithMethods(node, await createIntent(node, body, caller.client)));
}

// Read by a client with access: one it created; with read-all, any (a payer's node reads the one
// it was given to pay; Rafiki's asks for read-all); or the one payment its token names by URL. Only
// the client that created it sees its metadata. With no Authorization header at all, the public
// view: what it received, and where to ask for access.
export async function getIncomingPayment(node: Node, req: OpRequest): Promise<OpReply> {
  const intent = await existing(node, req.params.id);
  if (req.signed.headers.authorization === undefined) {
    return json(200, { receivedAmount: intentView(node, intent).paidAmount, authServer: node.urls.authServer });
  }
  const url = intentUrl(node, intent.id);
  const read = (identifier: string) => ({ type: 'incoming-payment' as const, actions: ['read'], identifier });
  const caller = await authorize(node, req, [read(intent.walletAddress), read(url)]);
  const byUrl = caller.access.some((a) => a.identifier !== undefined && sameAddress(a.identifier, url));
  if (intent.client !== caller.client && !reachesAll(caller, 'read') && !byUrl) throw notTheClients(node, req.params.id);
  return json(200, shownTo(caller, intent.client, await viewWithMethods(node, intent)));
}

// Only the client that created it completes it (nothing grants more yet).
export async function completeIncomingPayment(node: Node, req: OpRequest): Promise<OpReply> {
  const intent = await existing(node, req.params.id);
  const caller = await authorize(node, req, [{ type: 'incoming-payment', actions: ['complete'], identifier: intent.walletAddress }]);
  if (intent.client !== caller.client) throw notTheClients(node, req.params.id);
  return json(200, view(node, await completeIntent(node, intent.id)));
}

// A wallet address's incoming payments, newest first (./pagination.ts).
export const listIncomingPayments = (node: Node, req: OpRequest): Promise<OpReply> =>
  listRoute(node, req, 'incoming-payment', {
    page: (walletAddressId, opts) => pageIntentsByWallet(node, walletAddressId, opts),
    sortKeyOf: cursorOf,
    view: (r, caller) => shownTo(caller, r.client, view(node, r)),
  });

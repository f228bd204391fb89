import * as z from 'zod';
import { amount } from '../shared/amounts';
import { amountValue, assetCode, windowedPageQuery } from '../shared/values';

// Peers: the FSPs this node exchanges ILP packets with, over ILP-over-HTTP (Interledger RFC 35).
// An ILP address (RFC 15): an allocation scheme, then segments.
const SCHEME = '(g|private|example|peer|self|test[1-3]?|local)';
const SEGMENT = '[.][a-zA-Z0-9_~-]+';
export const ilpAddress = z
  .string()
  .max(1023)
  .regex(new RegExp(`^${SCHEME}(${SEGMENT})+$`), 'must be an ILP address, e.g. test.node-b');
// A route's ILP address prefix: an allocation scheme alone (a default route, e.g. `test`) or an
// address's first segments; it matches itself and every address under it, on segment boundaries.
const ilpPrefix = z
  .string()
  .max(1023)
  .regex(new RegExp(`^${SCHEME}(${SEGMENT})*$`), 'must be an ILP address prefix, e.g. test.node-c');
export const MAX_ROUTES = 100;
// Rafiki's `routes`: the prefixes reached through the peer (its static address is one already),
// repeats dropped.
const routes = z
  .array(ilpPrefix)
  .max(MAX_ROUTES)
  .transform((r) => [...new Set(r)]);
const authToken = z.string().min(16, 'must be at least 16 characters').max(256);
const endpoint = z.url({ protocol: /^https?$/ }).max(1024);
const positive = amountValue.refine((v) => v !== '0', 'must be greater than 0');
const name = z.string().trim().min(1).max(200);

const incoming = z.strictObject({
  authTokens: z
    .array(authToken)
    .min(1)
    .max(10)
    .refine((t) => new Set(t).size === t.length, 'must not repeat a token'),
});
const outgoing = z.strictObject({ authToken, endpoint });

export const createPeerBody = z.strictObject({
  name: name.optional(),
  staticIlpAddress: ilpAddress,
  assetCode,
  http: z.strictObject({ incoming, outgoing }),
  // The largest packet this peer takes (at the asset's scale); larger ones are refused with F08.
  maxPacketAmount: positive.optional(),
  // Below this liquidity (at the asset's scale) the service emits peer.liquidity_low.
  liquidityThreshold: amountValue.optional(),
  routes: routes.optional(),
});
export type CreatePeer = z.infer<typeof createPeerBody>;

export const updatePeerBody = z
  .strictObject({
    name: name.optional(),
    http: z.strictObject({ incoming: incoming.optional(), outgoing: outgoing.optional() }).optional(),
    maxPacketAmount: positive.nullable().optional(),
    liquidityThreshold: amountValue.nullable().optional(),
    routes: routes.optional(), // replaces them all
  })
  .refine((b) => Object.keys(b).length > 0, 'must change something');
export type UpdatePeer = z.infer<typeof updatePeerBody>;

// POST /peers/by-url (Rafiki's createOrUpdatePeerByUrl): the other node's peering endpoint (Rafiki's
// auto-peering server, `http://host:3005`, or ours, `<connector>/peering`), and this side's settings
// of the peer it makes or changes.
export const peerByUrlBody = z.strictObject({
  url: endpoint,
  assetCode,
  maxPacketAmount: positive.optional(),
  name: name.optional(),
  liquidityThreshold: amountValue.optional(),
  // Deposited on the peer once it is made or changed (at the asset's scale): the credit extended to it.
  liquidityToDeposit: amountValue.optional(),
});
export type PeerByUrl = z.infer<typeof peerByUrlBody>;

// A name the other node gives, if it is one (else none: the peer is named by its address).
const givenName = z.unknown().transform((v) => {
  const parsed = name.safeParse(v);
  return parsed.success ? parsed.data : undefined;
});

// The peering request, as Rafiki's auto-peering sends and takes it (POST, JSON): who asks, where its
// connector is, the asset, the token it will send its packets with, its largest packet (a number, or
// null or 0 for none), its name. Fields it may add are ignored.
export const peeringRequest = z.object({
  staticIlpAddress: ilpAddress,
  ilpConnectorUrl: endpoint,
  asset: z.object({ code: assetCode, scale: z.int().min(0).max(255) }),
  httpToken: authToken,
  maxPacketAmount: z
    .union([z.int().min(0), amountValue])
    .nullish()
    .transform((v) => (v === null || v === undefined || String(v) === '0' ? undefined : String(v))),
  name: givenName,
});
export type PeeringRequest = z.infer<typeof peeringRequest>;

// Its answer: the answering node's address, connector and the token it will send its packets with.
export const peeringAnswer = z.object({ staticIlpAddress: ilpAddress, ilpConnectorUrl: endpoint, httpToken: authToken, name: givenName });
export type PeeringAnswer = z.infer<typeof peeringAnswer>;

export const peer = z.object({
  id: z.uuid(),
  name: z.string().nullable(),
  staticIlpAddress: z.string(),
  assetCode,
  assetScale: z.int(),
  http: z.object({ outgoing: z.object({ endpoint: z.string() }) }),
  maxPacketAmount: z.string().nullable(),
  liquidityThreshold: z.string().nullable(),
  routes: z.array(z.string()),
  createdAt: z.iso.datetime(),
});
export type Peer = z.infer<typeof peer>;

export const peerWithLiquidity = peer.extend({ liquidity: z.object({ value: z.string(), assetCode, assetScale: z.int() }) });

// What is stored: the view, and what routing and accounting need. Incoming tokens are kept only as
// their SHA-256; the outgoing token is the peer's credential for its own connector.
export interface PeerRecord extends Peer {
  assetId: string;
  incomingTokenHashes: string[];
  outgoingAuthToken: string;
  // Bumped by every change, which is conditional on it: two changes made from the same read cannot
  // both commit (each computes the tokens to release and claim from what it read).
  version?: number;
}

// GET /peers/{id}/reconciliation: the packets this node sent (or forwarded to) the peer that got no answer before
// they expired (booked as not paid), in a window of their expiry, [from, to): by default the 24
// hours before now, at most 31 days.
export const RECONCILIATION_MAX_DAYS = 31;
export const reconciliationQuery = windowedPageQuery({});
export type ReconciliationQuery = z.infer<typeof reconciliationQuery>;

export const unansweredPacket = z.object({
  executionCondition: z.string(), // hex: the packet's id, and the receiver's (transfer ilp:<peer>:<condition>)
  paymentId: z.uuid().nullable(), // the payment that sent it; null for a packet this node forwarded
  incomingPeerId: z.uuid().nullable(), // the peer a forwarded packet came from; null for a payment's
  amount, // what the packet carried, in the peer's asset
  paymentAmount: amount, // what it took from the payment (or from the incoming peer), in that one's asset
  sentAt: z.iso.datetime(),
  expiresAt: z.iso.datetime(),
  bookedAt: z.iso.datetime(), // when it was booked as not paid
});
export const reconciliation = z.object({
  peerId: z.uuid(),
  from: z.iso.datetime(),
  to: z.iso.datetime(),
  total: z.object({ count: z.int(), amount }), // every packet of the window, not only this page's
  items: z.array(unansweredPacket),
  nextCursor: z.string().nullable(),
});
export type Reconciliation = z.infer<typeof reconciliation>;

import { deserializeIlpReply, type IlpPrepare, type IlpReply, serializeIlpPrepare } from 'ilp-packet';
import type { PeerRecord } from '../peers/schemas';
import { boundedFetch, errorCode, OutboundFetchError } from '../platform/net/fetch';
import { mayPeerPrivately, type Node } from '../shared/node';

// ILP over HTTP (Interledger RFC 35) to a peer's connector: the Prepare POSTed with this node's
// outgoing token, the Fulfill or Reject in the 200 answer. What cannot be a reply says whether the
// peer can have taken the packet: `not_sent` (it cannot: the connection failed, or the peer refused
// the request), or `unknown` (it may have: no answer in time, or an answer that says the peer
// failed midway). The caller must not treat an unknown packet as rejected.
//
// The answer is awaited until the packet's expiry and ANSWER_GRACE_MS more. A node of this
// service credits a packet before its expiry or never: a credit still under way then is fenced
// off by one more write, whose outcome its answer tells (lib/ilp/receive.ts). The grace is that
// write and the answer's way back, on a loaded machine too (the slowest single write measured on a
// loaded 2-core machine: 1.6 s; its event loop's longest stall: 0.8 s). So only a crash or a lost
// connection leaves a packet unknown.
export const ANSWER_GRACE_MS = 5_000;

export type Delivery = { kind: 'reply'; reply: IlpReply } | { kind: 'not_sent'; reason: string; refused: boolean } | { kind: 'unknown'; reason: string };

const NEVER_CONNECTED = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH']);

// The peer's connector is where its FSP says (POST and PATCH /peers), so the request is bounded
// and checked as any URL from outside (lib/platform/net/fetch.ts): no internal address, unless the tenant
// may peer there (ALLOW_PRIVATE_PEERS), checked again at every new connection (DNS may have
// changed since the peer was made). A failure says the peer's status and this node's reason,
// never what the peer's answer said.
export async function sendToPeer(node: Node, peer: PeerRecord, prepare: IlpPrepare): Promise<Delivery> {
  const { endpoint } = peer.http.outgoing;
  const wait = prepare.expiresAt.getTime() + ANSWER_GRACE_MS - Date.now();
  let res: Response;
  try {
    res = await boundedFetch(
      endpoint,
      {
        method: 'POST',
        headers: { authorization: `Bearer ${peer.outgoingAuthToken}`, 'content-type': 'application/octet-stream', accept: 'application/octet-stream' },
        body: new Uint8Array(serializeIlpPrepare(prepare)),
      },
      { allowPrivate: mayPeerPrivately(node), timeoutMs: Math.max(1, wait) },
    );
  } catch (e) {
    const reason = e instanceof OutboundFetchError ? e.reason : undefined;
    if (reason === 'private_address')
      return { kind: 'not_sent', reason: `${endpoint} is at an internal address, where this node does not send`, refused: false };
    if (reason === 'too_many_redirects') return { kind: 'not_sent', reason: `${endpoint} redirected more than this node follows`, refused: false };
    const code = errorCode(e) ?? '';
    if (NEVER_CONNECTED.has(code)) return { kind: 'not_sent', reason: `${endpoint} cannot be reached (${code})`, refused: false };
    if (reason === 'timeout') return { kind: 'unknown', reason: `${endpoint} did not answer in time` };
    if (reason === 'too_large') return { kind: 'unknown', reason: `${endpoint} answered more than an ILP reply` };
    return { kind: 'unknown', reason: `${endpoint} failed before its answer was complete (${code || (e as Error).name})` };
  }
  const body = Buffer.from(await res.arrayBuffer());
  if (res.status === 200) {
    try {
      return { kind: 'reply', reply: deserializeIlpReply(body) };
    } catch {
      return { kind: 'unknown', reason: `${endpoint} answered 200 with no ILP reply` };
    }
  }
  if (res.status === 401 || res.status === 403) {
    return { kind: 'not_sent', reason: `Peer ${peer.id} refused this node's outgoing token (HTTP ${res.status})`, refused: true };
  }
  // A gateway's 502 or 504 may come after the peer's function settled the packet.
  if (res.status === 502 || res.status === 504) return { kind: 'unknown', reason: `${endpoint} failed midway (HTTP ${res.status})` };
  return { kind: 'not_sent', reason: `${endpoint} answered HTTP ${res.status}`, refused: false };
}

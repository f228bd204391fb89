import { deserializeIlpReply, type IlpPrepare, type IlpReply, serializeIlpPrepare } from 'ilp-packet';
import type { PeerRecord } from '../peers/schemas';
import { tracedFetch } from '../tracing';

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

export async function sendToPeer(peer: PeerRecord, prepare: IlpPrepare): Promise<Delivery> {
  const wait = prepare.expiresAt.getTime() + ANSWER_GRACE_MS - Date.now();
  let res: Response;
  try {
    res = await tracedFetch(peer.http.outgoing.endpoint, {
      method: 'POST',
      headers: { authorization: `Bearer ${peer.outgoingAuthToken}`, 'content-type': 'application/octet-stream', accept: 'application/octet-stream' },
      body: new Uint8Array(serializeIlpPrepare(prepare)),
      signal: AbortSignal.timeout(Math.max(1, wait)),
    });
  } catch (e) {
    const code = ((e as Error).cause as { code?: string } | undefined)?.code ?? '';
    if (NEVER_CONNECTED.has(code)) return { kind: 'not_sent', reason: `${peer.http.outgoing.endpoint} cannot be reached (${code})`, refused: false };
    return {
      kind: 'unknown',
      reason: `${peer.http.outgoing.endpoint} did not answer in time (${(e as Error).name}${code ? ` ${code}` : ''})`,
    };
  }
  const body = Buffer.from(await res.arrayBuffer().catch(() => new ArrayBuffer(0)));
  if (res.status === 200) {
    try {
      return { kind: 'reply', reply: deserializeIlpReply(body) };
    } catch {
      return { kind: 'unknown', reason: `${peer.http.outgoing.endpoint} answered 200 with no ILP reply` };
    }
  }
  if (res.status === 401 || res.status === 403) {
    return { kind: 'not_sent', reason: `Peer ${peer.id} refused this node's outgoing token (HTTP ${res.status})`, refused: true };
  }
  // A gateway's 502 or 504 may come after the peer's function settled the packet.
  if (res.status === 502 || res.status === 504) return { kind: 'unknown', reason: `${peer.http.outgoing.endpoint} failed midway (HTTP ${res.status})` };
  return { kind: 'not_sent', reason: `${peer.http.outgoing.endpoint} answered HTTP ${res.status}: ${body.toString('utf8').slice(0, 200)}`, refused: false };
}

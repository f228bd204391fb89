// Peering by URL, the wire: the request this node sends another node's peering endpoint and what it
// makes of the answer (Rafiki's auto-peering shapes: docs/interledger.md, "Peering by URL").
import { randomBytes } from 'node:crypto';
import { boundedFetch, errorCode, OutboundFetchError } from '../platform/net/fetch';
import { peerErrors } from './errors';
import { type PeeringAnswer, peeringAnswer } from './schemas';

// What the request carries, as Rafiki's PeeringRequestArgs: maxPacketAmount a JSON number.
export interface PeeringRequestOut {
  staticIlpAddress: string;
  ilpConnectorUrl: string;
  asset: { code: string; scale: number };
  httpToken: string;
  maxPacketAmount?: number;
  name: string;
}

// A token this node makes for the packets it sends (each side makes its own, as Rafiki's does).
export const newPeerToken = () => randomBytes(32).toString('base64url');

// Under the Admin function's 25 s, with room to make the peer once the answer is in.
const PEERING_TIMEOUT_MS = 10_000;

// Sends the request; answers the other node's answer, or throws peering_failed (unreachable, or
// not 2xx) or peering_answer_invalid (not an answer), both 502.
export async function requestPeering(url: string, request: PeeringRequestOut, allowPrivate: boolean): Promise<PeeringAnswer> {
  let res: Response;
  try {
    res = await boundedFetch(
      url,
      { method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json' }, body: JSON.stringify(request) },
      { allowPrivate, timeoutMs: PEERING_TIMEOUT_MS },
    );
  } catch (e) {
    const why = e instanceof OutboundFetchError ? e.message : (errorCode(e) ?? (e as Error).message);
    throw peerErrors.peeringFailed(url, `unreachable (${why})`);
  }
  const text = await res.text();
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    body = undefined;
  }
  if (!res.ok) throw peerErrors.peeringFailed(url, `it answered ${res.status}${refusalOf(body)}`);
  const parsed = peeringAnswer.safeParse(body);
  if (!parsed.success) {
    const why = body === undefined ? 'not JSON' : parsed.error.issues.map((i) => `${i.path.join('.') || '(root)'} ${i.message}`).join('; ');
    throw peerErrors.peeringAnswerInvalid(url, why);
  }
  return parsed.data;
}

// What a refusal says: a problem's code and detail (ours), or Rafiki's {error: {type, message}}.
function refusalOf(body: unknown): string {
  const b = body as { code?: unknown; detail?: unknown; error?: { type?: unknown; message?: unknown } } | undefined;
  const [code, detail] = [b?.code ?? b?.error?.type, b?.detail ?? b?.error?.message];
  return typeof code === 'string' ? ` ${code}${typeof detail === 'string' ? `: ${detail.slice(0, 300)}` : ''}` : '';
}

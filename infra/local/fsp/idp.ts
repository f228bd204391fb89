import { createHash } from 'node:crypto';
import { LOCAL_IDP_SECRET } from '../start/defaults';

// The wallet owner's consent given as a consent page gives it, without a browser: through the
// authorization server's IdP interface (docs/open-payments.md). The start URL (keeping its session
// cookie), the choice with x-idp-secret, then the finish URL with the cookie, whose redirect
// carries the app's `hash` and `interact_ref` (or `result`). Used by `npm run op-app-demo --
// --accept` and by the tests.
export type Choice = 'accept' | 'reject';

// The authorization server of an interaction URL (<AS>/interact/<id>/<nonce>?…), its id and nonce.
export function interactionOf(redirectUrl: string): { authServer: string; id: string; nonce: string } {
  const m = /^(.*)\/interact\/([^/?]+)\/([^/?]+)(?:\?.*)?$/.exec(redirectUrl);
  if (!m) throw new Error(`Not an interaction URL: ${redirectUrl}`);
  return { authServer: m[1], id: m[2], nonce: m[3] };
}

export interface IdpConsent {
  start: Response; // the start URL's answer (302 to the consent page)
  decision: Response; // POST /grant/{id}/{nonce}/{choice} (202)
  finishResponse: Response; // GET …/finish with the start's cookie (302 to the finish URI, or 202)
  finish?: URL; // where that sent the browser
  cookie: string; // the cookies the start set ("gnap_session=…")
}

// `idpUrl`: where the IdP interface's /grant routes are, when not on the start URL's server (Rafiki
// serves them on a port of their own).
export async function consentViaIdp(redirectUrl: string, choice: Choice, opts: { idpSecret?: string; idpUrl?: string } = {}): Promise<IdpConsent> {
  const { authServer, id, nonce } = interactionOf(redirectUrl);
  const start = await fetch(redirectUrl, { redirect: 'manual' });
  // Every cookie the start set (Rafiki signs its session cookie with a second one).
  const cookie = start.headers
    .getSetCookie()
    .map((c) => c.split(';')[0])
    .join('; ');
  const decision = await fetch(`${opts.idpUrl ?? authServer}/grant/${id}/${nonce}/${choice}`, {
    method: 'POST',
    headers: { 'x-idp-secret': opts.idpSecret ?? LOCAL_IDP_SECRET },
  });
  const finishResponse = await fetch(`${authServer}/interact/${id}/${nonce}/finish`, { redirect: 'manual', headers: cookie ? { cookie } : {} });
  const location = finishResponse.headers.get('location');
  return { start, decision, finishResponse, cookie, ...(location && { finish: new URL(location) }) };
}

// The hash an app checks on its finish URI before it continues the grant (GNAP, RFC 9635 section
// 4.2.3; Open Payments): SHA-256 over its nonce, the server's nonce (the grant's
// `interact.finish`), the interact_ref and the authorization server as wallet addresses publish
// it, in standard base64, as Rafiki sends it.
export const finishHash = (clientNonce: string, serverNonce: string, interactRef: string, authServer: string) =>
  createHash('sha256').update(`${clientNonce}\n${serverNonce}\n${interactRef}\n${authServer}`).digest('base64');

import { type AuthenticatedClient, createAuthenticatedClient, isFinalizedGrantWithAccessToken, OpenPaymentsClientError } from '@interledger/open-payments';
import { OpenPaymentsError } from '../errors';
import { serviceIdentity, serviceWalletAddress } from './identity';

// This service as an Open Payments client of other nodes (and of itself), with the official
// client and the service's own identity (./identity.ts): to read an incoming payment anywhere, it
// asks the authorization server that the payment names for a grant (incoming-payment read-all),
// then reads the payment with it, which yields its STREAM credentials. A grant's token is kept
// until shortly before it expires, one per authorization server. Responses are not validated
// against the specification here: loading it takes about a second at every cold start.
const EARLY_SECS = 30;

let client: Promise<AuthenticatedClient> | undefined;
const tokens = new Map<string, { value: string; expiresAt: number }>();

function opClient(): Promise<AuthenticatedClient> {
  client ??= serviceIdentity()
    .then(({ privateKey, jwk }) =>
      createAuthenticatedClient({ walletAddressUrl: serviceWalletAddress(), privateKey, keyId: jwk.kid, validateResponses: false }),
    )
    .catch((e) => {
      client = undefined;
      throw e;
    });
  return client;
}

async function readToken(c: AuthenticatedClient, authServer: string): Promise<string> {
  const kept = tokens.get(authServer);
  if (kept && kept.expiresAt > Date.now()) return kept.value;
  const grant = await c.grant.request({ url: authServer }, { access_token: { access: [{ type: 'incoming-payment', actions: ['read-all'] }] } });
  if (!isFinalizedGrantWithAccessToken(grant))
    throw new OpenPaymentsError(502, 'grant_not_issued', `${authServer} did not issue a grant to read incoming payments at once`);
  const expiresIn = grant.access_token.expires_in ?? 60;
  tokens.set(authServer, { value: grant.access_token.value, expiresAt: Date.now() + (expiresIn - EARLY_SECS) * 1000 });
  return grant.access_token.value;
}

// An incoming payment on any node, read with access: amounts, state and its payment methods. A
// token the resource server no longer takes (revoked, or the server forgot it) is asked for anew
// once.
export async function readIncomingPayment(url: string) {
  const c = await opClient();
  const { authServer } = await c.incomingPayment.getPublic({ url });
  if (!authServer) throw new OpenPaymentsError(502, 'no_authorization_server', `${url} names no authorization server`);
  try {
    return await c.incomingPayment.get({ url, accessToken: await readToken(c, authServer) });
  } catch (e) {
    if (!(e instanceof OpenPaymentsClientError) || (e.status !== 401 && e.status !== 403)) throw e;
    tokens.delete(authServer);
    return c.incomingPayment.get({ url, accessToken: await readToken(c, authServer) });
  }
}

import { generateKeyPairSync } from 'node:crypto';
import { generateJwk } from '@interledger/http-signature-utils';
import { type AuthenticatedClient, createAuthenticatedClient, isFinalizedGrantWithAccessToken } from '@interledger/open-payments';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestStack, type TestStack } from '../harness/stack';
import { ok } from '../harness/world';

// Revocation wins every race (issue 28): a grant's cancellation (DELETE <continue uri>) or its
// token's revocation (DELETE <manage uri>) racing the token's rotation (POST <manage uri>). Each
// pair runs RUNS times, BATCH at once, against the real stack and the official client; after every
// revocation answered success, no token of the grant is live, by introspection and by a real
// resource call. (It failed 4 and 6 times in 30 before: the rotated token stayed active.)
const RUNS = 100;
const BATCH = 10;

let s: TestStack;
let app: AuthenticatedClient;
let bob: string;
let introspect: (token: string) => Promise<boolean>; // active?

beforeAll(async () => {
  // Every run asks for a grant: past the per-client limit on grant requests, which is not what this measures.
  s = await startTestStack({ EXCHANGE_RATES_URL: '', GRANT_REQUESTS_PER_MINUTE: '100000' });
  await ok(s.admin('POST', '/assets', { code: 'USD', scale: 2 }));
  const created = await ok(s.admin('POST', '/wallet-addresses', { address: `${s.openPaymentsUrl}/bob`, assetCode: 'USD', publicName: 'Bob' }));
  bob = created.address;
  const { privateKey } = generateKeyPairSync('ed25519');
  await ok(s.admin('POST', `/wallet-addresses/${created.id}/keys`, generateJwk({ privateKey, keyId: 'racer' })));
  app = await createAuthenticatedClient({ walletAddressUrl: bob, privateKey, keyId: 'racer', validateResponses: false });
  // The resource server's own question, signed as it signs it (lib/api/resource-server/introspection.ts).
  const [{ introspectToken }, { node }] = await Promise.all([import('../../lib/api/resource-server/introspection'), import('../../lib/platform/config')]);
  introspect = async (token) => (await introspectToken(node, token, [])).active;
});
afterAll(() => s?.stop());

async function grant() {
  const g = await app.grant.request({ url: s.authServerUrl }, {
    access_token: { access: [{ type: 'incoming-payment', actions: ['create', 'read', 'list'], identifier: bob }] },
  } as never);
  if (!isFinalizedGrantWithAccessToken(g)) throw new Error('expected a grant at once');
  return g;
}

// Whether a token still works anywhere: introspection says active, or the resource server serves it.
async function live(token: string): Promise<string | undefined> {
  if (await introspect(token)) return 'introspection says active';
  const served = await app.incomingPayment.list({ url: s.openPaymentsUrl, walletAddress: bob, accessToken: token }).then(
    () => true,
    (e) => (e.status === 401 ? false : Promise.reject(e)),
  );
  return served ? 'the resource server serves it' : undefined;
}

type Outcome = { revoked: boolean; rotated: boolean; leaks: string[] };

// One race: the revocation and the rotation sent at once; then, if the revocation answered
// success, every token the grant ever had is checked.
async function race(revoke: (g: Awaited<ReturnType<typeof grant>>) => Promise<unknown>): Promise<Outcome> {
  const g = await grant();
  const [revoked, rotated] = await Promise.allSettled([revoke(g), app.token.rotate({ url: g.access_token.manage, accessToken: g.access_token.value })]);
  const tokens = [g.access_token.value, ...(rotated.status === 'fulfilled' ? [rotated.value.access_token.value] : [])];
  const leaks: string[] = [];
  if (revoked.status === 'fulfilled')
    for (const [i, token] of tokens.entries()) {
      const why = await live(token);
      if (why) leaks.push(`${i ? 'the rotated' : 'the first'} token: ${why}`);
    }
  return { revoked: revoked.status === 'fulfilled', rotated: rotated.status === 'fulfilled', leaks };
}

async function runs(revoke: Parameters<typeof race>[0]) {
  const outcomes: Outcome[] = [];
  for (let done = 0; done < RUNS; done += BATCH) outcomes.push(...(await Promise.all(Array.from({ length: BATCH }, () => race(revoke)))));
  const count = (f: (o: Outcome) => boolean) => outcomes.filter(f).length;
  return {
    revoked: count((o) => o.revoked),
    bothSucceeded: count((o) => o.revoked && o.rotated),
    leaks: outcomes.flatMap((o) => o.leaks),
  };
}

describe('revocation racing rotation', () => {
  it(`cancelling the grant (DELETE <continue uri>) against a rotation, ${RUNS} times: no token is live after a 204`, async () => {
    const r = await runs((g) => app.grant.cancel({ url: g.continue.uri, accessToken: g.continue.access_token.value }));
    // Cancellation wins whoever commits first: every one succeeds.
    expect(r).toMatchObject({ revoked: RUNS, leaks: [] });
    console.info(`cancel vs rotate: ${r.revoked} cancelled, ${r.bothSucceeded} of them with the rotation also answered 200`);
  });

  it(`revoking the token (DELETE <manage uri>) against a rotation, ${RUNS} times: no token is live after a 204`, async () => {
    const r = await runs((g) => app.token.revoke({ url: g.access_token.manage, accessToken: g.access_token.value }));
    expect(r.leaks).toEqual([]);
    expect(r.revoked).toBeGreaterThan(0);
    console.info(`revoke vs rotate: ${r.revoked} revoked, ${r.bothSucceeded} of them with the rotation also answered 200`);
  });
});

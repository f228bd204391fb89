import { generateKeyPairSync } from 'node:crypto';
import { createAuthenticatedClient } from '@interledger/open-payments';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestStack, type TestStack } from '../harness/stack';
import { ok } from '../harness/world';
import { type HostileServer, startHostileServer } from '../servers/hostile-server';

// D6: the client key fetch also reached internal addresses (127.0.0.1). A node deployed with
// ALLOW_PRIVATE_FETCH off (its default; npm start and the other test stacks turn it on) refuses
// URLs that clients and other nodes choose when they name or resolve to such an address, and never
// connects to them.
let stack: TestStack;
let inside: HostileServer; // stands for anything on the node's own network
let alice: string;

beforeAll(async () => {
  inside = await startHostileServer((_req, res) => res.writeHead(200, { 'content-type': 'application/json' }).end('{"keys":[]}'));
  stack = await startTestStack({ EXCHANGE_RATES_URL: '', ALLOW_PRIVATE_FETCH: 'false' });
  await ok(stack.admin('POST', '/assets', { code: 'USD', scale: 2 }));
  alice = (await ok(stack.admin('POST', '/wallet-addresses', { address: `${stack.openPaymentsUrl}/alice`, assetCode: 'USD' }))).address;
});
afterAll(async () => {
  await stack?.stop();
  await inside?.stop();
});

describe('with ALLOW_PRIVATE_FETCH off', () => {
  it('refuses a grant whose client is on a loopback address, by literal or by name, without fetching', async () => {
    const { privateKey } = generateKeyPairSync('ed25519');
    for (const host of [`127.0.0.1:${inside.port}`, `localhost:${inside.port}`, `[::ffff:127.0.0.1]:${inside.port}`]) {
      const api = await createAuthenticatedClient({ walletAddressUrl: `http://${host}/me`, privateKey, keyId: 'k1', validateResponses: false });
      const answer = await api.grant
        .request({ url: stack.authServerUrl }, { access_token: { access: [{ type: 'incoming-payment', actions: ['create'] }] } })
        .then(
          () => ({ status: 200 }),
          (e) => ({ status: e.status, code: e.code, description: String(e.description) }),
        );
      expect(answer, host).toMatchObject({ status: 401, code: 'invalid_client', description: expect.stringContaining('loopback') });
    }
    expect(inside.tally.requests).toBe(0);
  });

  it('answers 502 receiver_unreachable for a remote receiver on a private address, without fetching', async () => {
    const res = await stack.admin('POST', '/quotes', {
      walletAddress: alice,
      receiver: `${inside.url}/incoming-payments/3f1c2b9e-8a47-4c51-9d0e-2b7a6f5e4d3c`,
    });
    expect(res.status).toBe(502);
    expect(res.body).toMatchObject({ code: 'receiver_unreachable', detail: expect.stringContaining('loopback') });
    expect(inside.tally.requests).toBe(0);
  });
});

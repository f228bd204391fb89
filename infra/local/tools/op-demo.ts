import { generateKeyPairSync } from 'node:crypto';
import { generateJwk } from '@interledger/http-signature-utils';
import { createAuthenticatedClient, isFinalizedGrantWithAccessToken } from '@interledger/open-payments';
import { DEFAULT_PORTS, LOCAL_ADMIN_API_SECRET } from '../start/defaults';
import { adminClient } from './admin-client';

// `npm run op-demo`, with `npm start` running: what an external Open Payments client does, step by
// step, with the official client (@interledger/open-payments): its key registered on a wallet
// address, a grant from the authorization server, then an incoming payment created, read, listed
// and completed on the resource server. Every response is validated against the specification.
const resourceServer = process.env.WALLET_ADDRESS_URL ?? `http://localhost:${process.env.OPEN_PAYMENTS_PORT ?? DEFAULT_PORTS.openPayments}`;
const admin = adminClient(
  process.env.ADMIN_API_URL ?? `http://localhost:${process.env.ADMIN_PORT ?? DEFAULT_PORTS.admin}`,
  process.env.ADMIN_API_SECRET || LOCAL_ADMIN_API_SECRET,
);

const step = (title: string, detail: unknown) => console.log(`\n${title}\n${JSON.stringify(detail, null, 2)}`);

async function walletAddress(name: string) {
  const address = `${resourceServer}/${name}`;
  const created = await admin.request('POST', '/wallet-addresses', { body: { address, assetCode: 'USD', publicName: name } });
  if (created.status === 201) return created.body;
  if (created.status !== 409) throw new Error(`POST /wallet-addresses -> ${created.status} ${created.body?.detail ?? ''}`);
  return admin.ok('GET', `/wallet-addresses?address=${encodeURIComponent(address)}`);
}

try {
  await admin.request('POST', '/assets', { body: { code: 'USD', scale: 2 } }); // 409 if it exists: fine
  const [app, shop] = [await walletAddress('demo-app'), await walletAddress('demo-shop')];

  const { privateKey } = generateKeyPairSync('ed25519');
  const keyId = `demo-key-${Date.now()}`;
  await admin.ok('POST', `/wallet-addresses/${app.id}/keys`, { body: generateJwk({ privateKey, keyId }) });
  step(`1. The client's key is registered on its wallet address (Admin API), and published at ${app.address}/jwks.json`, { keyId });

  const client = await createAuthenticatedClient({ walletAddressUrl: app.address, privateKey, keyId, validateResponses: true });
  const receiver = await client.walletAddress.get({ url: shop.address });
  step('2. The receiving wallet address names its servers', receiver);

  const grant = await client.grant.request(
    { url: receiver.authServer },
    { access_token: { access: [{ type: 'incoming-payment', actions: ['create', 'read', 'list', 'complete'], identifier: receiver.id }] } },
  );
  if (!isFinalizedGrantWithAccessToken(grant)) throw new Error('The grant was not issued at once');
  const accessToken = grant.access_token.value;
  step('3. A signed grant request: an access token at once (incoming payments need no interaction)', grant.access_token);

  const created = await client.incomingPayment.create(
    { url: receiver.resourceServer, accessToken },
    { walletAddress: receiver.id, incomingAmount: { value: '2500', assetCode: 'USD', assetScale: 2 }, metadata: { description: 'op-demo' } },
  );
  step("4. An incoming payment created (it is the Admin API's payment intent too), with its STREAM credentials", created);
  step('5. Read back', await client.incomingPayment.get({ url: created.id, accessToken }));
  const listed = await client.incomingPayment.list({ url: receiver.resourceServer, walletAddress: receiver.id, accessToken }, { first: 3 } as never);
  step('6. Listed, newest first', { pagination: listed.pagination, ids: listed.result.map((p) => p.id) });
  step('7. Completed', await client.incomingPayment.complete({ url: created.id, accessToken }));
  console.log(`\nThe same record on the Admin API: npm run admin -- GET /payment-intents/${created.id.split('/').pop()}`);
} catch (e) {
  console.error(`\nop-demo failed (is npm start running?): ${(e as Error).message}`, (e as { description?: string }).description ?? '');
  process.exitCode = 1;
}

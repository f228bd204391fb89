import { generateKeyPairSync, randomBytes } from 'node:crypto';
import { createServer } from 'node:http';
import { generateJwk } from '@interledger/http-signature-utils';
import { createAuthenticatedClient, isFinalizedGrantWithAccessToken, isPendingGrant } from '@interledger/open-payments';
import { consentViaIdp, finishHash } from '../fsp/idp';
import { LOCAL_ADMIN_API_SECRET, NODES } from '../start/defaults';
import { adminClient } from './admin-client';

// `npm run op-app-demo`, with `npm start` (Node A) and `npm run start:node-b` (Node B) running: an
// app pays from Alice's wallet on A to a shop on B, with Alice's consent, as the Open Payments
// specification's "send a payment" flow goes, with the official client validating every answer:
//   1. a grant and an incoming payment on B;  2. a grant and a quote on A;
//   3. an interactive outgoing-payment grant on A: the demo prints the consent URL and waits for
//      the browser to come back (or, with --accept, consents through the IdP interface itself);
//   4. the grant continued;  5. the outgoing payment created; A's FSP simulator funds it; it completes.
// The setup it needs (assets, wallet addresses, peers, liquidity) it makes if missing.
const accept = process.argv.includes('--accept');
const CALLBACK_PORT = Number(process.env.OP_APP_DEMO_PORT ?? 3010);
const A = NODES.a.ports;
const B = NODES.b.ports;
const url = (port: number) => `http://localhost:${port}`;
const secret = process.env.ADMIN_API_SECRET || LOCAL_ADMIN_API_SECRET;
const admin = { a: adminClient(url(A.admin), secret), b: adminClient(url(B.admin), secret) };
const usd = (value: string) => ({ value, assetCode: 'USD', assetScale: 2 });
const step = (title: string, detail?: unknown) => console.log(`\n${title}${detail === undefined ? '' : `\n${JSON.stringify(detail, null, 2)}`}`);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function walletAddress(node: 'a' | 'b', name: string) {
  const address = `${url(node === 'a' ? A.openPayments : B.openPayments)}/${name}`;
  const created = await admin[node].request('POST', '/wallet-addresses', { body: { address, assetCode: 'USD', publicName: name } });
  if (created.status === 201) return created.body;
  if (created.status !== 409) throw new Error(`POST /wallet-addresses -> ${created.status} ${created.body?.detail ?? ''}`);
  return admin[node].ok('GET', `/wallet-addresses?address=${encodeURIComponent(address)}`);
}

// Each node peers with the other (the README's tokens) and extends it credit, once.
async function peer(node: 'a' | 'b') {
  const other = node === 'a' ? NODES.b : NODES.a;
  const found = (await admin[node].ok('GET', '/peers?limit=100')).items.find((p: { staticIlpAddress: string }) => p.staticIlpAddress === other.ilpAddress);
  if (found) return;
  const [me, them] = node === 'a' ? ['node-a', 'node-b'] : ['node-b', 'node-a'];
  const created = await admin[node].ok('POST', '/peers', {
    body: {
      name: `Node ${them.slice(-1).toUpperCase()}`,
      staticIlpAddress: other.ilpAddress,
      assetCode: 'USD',
      http: {
        incoming: { authTokens: [`${them}-to-${me}-local-token`] },
        outgoing: { authToken: `${me}-to-${them}-local-token`, endpoint: `${url(other.ports.connector)}/ilp` },
      },
    },
  });
  await admin[node].ok('POST', `/peers/${created.id}/liquidity`, { body: { amount: '1000000' } });
}

// The app's finish URI: the browser comes back here after the consent page.
function awaitCallback(): Promise<URL> {
  return new Promise((resolve) => {
    const server = createServer((req, res) => {
      res.writeHead(200, { 'content-type': 'text/html' }).end('<!doctype html><title>Demo app</title><p>Back at the demo app. You can close this tab.</p>');
      server.close();
      resolve(new URL(req.url ?? '/', url(CALLBACK_PORT)));
    }).listen(CALLBACK_PORT);
  });
}

try {
  for (const node of ['a', 'b'] as const) await admin[node].request('POST', '/assets', { body: { code: 'USD', scale: 2 } }); // 409 if it exists: fine
  const [app, alice, shop] = [await walletAddress('a', 'demo-app'), await walletAddress('a', 'alice'), await walletAddress('b', 'shop')];
  await peer('a');
  await peer('b');
  const { privateKey } = generateKeyPairSync('ed25519');
  const keyId = `demo-app-key-${Date.now()}`;
  await admin.a.ok('POST', `/wallet-addresses/${app.id}/keys`, { body: generateJwk({ privateKey, keyId }) });
  const client = await createAuthenticatedClient({ walletAddressUrl: app.address, privateKey, keyId, validateResponses: true });
  const [sender, receiver] = [await client.walletAddress.get({ url: alice.address }), await client.walletAddress.get({ url: shop.address })];
  step(`0. The app ${app.address} (its key registered), paying from ${sender.id} on A to ${receiver.id} on B`);

  const incomingGrant = await client.grant.request(
    { url: receiver.authServer },
    { access_token: { access: [{ type: 'incoming-payment', actions: ['create', 'read'], identifier: receiver.id }] } },
  );
  if (!isFinalizedGrantWithAccessToken(incomingGrant)) throw new Error('The incoming-payment grant was not issued at once');
  const incoming = await client.incomingPayment.create(
    { url: receiver.resourceServer, accessToken: incomingGrant.access_token.value },
    { walletAddress: receiver.id, incomingAmount: usd('2500'), metadata: { description: 'op-app-demo order' } },
  );
  step('1. On B: a grant and an incoming payment of 25.00 USD', { id: incoming.id, incomingAmount: incoming.incomingAmount });

  const quoteGrant = await client.grant.request({ url: sender.authServer }, { access_token: { access: [{ type: 'quote', actions: ['create', 'read'] }] } });
  if (!isFinalizedGrantWithAccessToken(quoteGrant)) throw new Error('The quote grant was not issued at once');
  const quote = await client.quote.create(
    { url: sender.resourceServer, accessToken: quoteGrant.access_token.value },
    { walletAddress: sender.id, receiver: incoming.id, method: 'ilp' },
  );
  step('2. On A: a grant and a quote (A read the incoming payment on B and probed the route)', quote);

  const nonce = randomBytes(16).toString('base64url');
  const finishUri = `${url(CALLBACK_PORT)}/callback`;
  const pending = await client.grant.request(
    { url: sender.authServer },
    {
      access_token: {
        access: [
          {
            type: 'outgoing-payment',
            actions: ['create', 'read', 'list'],
            identifier: sender.id,
            limits: { debitAmount: quote.debitAmount, receiver: incoming.id },
          },
        ],
      },
      interact: { start: ['redirect'], finish: { method: 'redirect', uri: finishUri, nonce } },
    },
  );
  if (!isPendingGrant(pending)) throw new Error('The outgoing-payment grant should wait for consent');
  let back: URL;
  if (accept) {
    const consent = await consentViaIdp(pending.interact.redirect, 'accept');
    if (!consent.finish) throw new Error(`Consenting through the IdP interface failed: ${consent.decision.status} ${await consent.decision.text()}`);
    back = consent.finish;
    step('3. Alice consented (--accept: through the IdP interface, as the consent page does)');
  } else {
    const callback = awaitCallback();
    step(
      `3. Alice's consent is needed. Open this in a browser, then Accept (or Reject) on A's consent page:\n\n   ${pending.interact.redirect}\n\n   Waiting for the browser to come back to ${finishUri} …`,
    );
    back = await callback;
  }
  const interactRef = back.searchParams.get('interact_ref');
  if (!interactRef) throw new Error(`No consent: the app was sent back with ${back.search}`);
  if (back.searchParams.get('hash') !== finishHash(nonce, pending.interact.finish, interactRef, sender.authServer))
    throw new Error('The finish hash does not verify: this is not the authorization server the app asked');
  const granted = await client.grant.continue({ url: pending.continue.uri, accessToken: pending.continue.access_token.value }, { interact_ref: interactRef });
  if (!isFinalizedGrantWithAccessToken(granted)) throw new Error('Continuing the grant gave no access token');
  step('4. The hash verified; the grant continued with the interact_ref: an access token', granted.access_token);

  const accessToken = granted.access_token.value;
  const payment = await client.outgoingPayment.create(
    { url: sender.resourceServer, accessToken },
    { walletAddress: sender.id, quoteId: quote.id, metadata: { description: 'op-app-demo order' } },
  );
  step("5. The outgoing payment, created on A (A's FSP simulator funds it on payment.created)", payment);
  let sent = payment;
  for (let i = 0; i < 100 && !sent.failed && sent.sentAmount.value !== sent.debitAmount.value; i++) {
    await sleep(200);
    sent = await client.outgoingPayment.get({ url: payment.id, accessToken });
  }
  step(sent.failed ? '6. It failed' : '6. It was sent', { sentAmount: sent.sentAmount, failed: sent.failed });
  const received = await client.incomingPayment.get({ url: incoming.id, accessToken: incomingGrant.access_token.value });
  step('7. On B, the incoming payment', { completed: received.completed, receivedAmount: received.receivedAmount });
  if (sent.failed || !received.completed) process.exitCode = 1;
} catch (e) {
  console.error(
    `\nop-app-demo failed (are npm start and npm run start:node-b running?): ${(e as Error).message}`,
    (e as { description?: string }).description ?? '',
  );
  process.exitCode = 1;
}

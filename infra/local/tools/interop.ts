import '../start/quiet';
import { generateKeyPairSync, randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { generateJwk } from '@interledger/http-signature-utils';
import { createAuthenticatedClient, isFinalizedGrantWithAccessToken, isPendingGrant, OpenPaymentsClientError } from '@interledger/open-payments';
import { freePort } from '../emulators/emulators';
import { startFsp } from '../fsp/fsp';
import { consentViaIdp, finishHash } from '../fsp/idp';
import { LOCAL_ADMIN_API_SECRET, LOCAL_IDP_SECRET, LOCAL_WEBHOOK_SECRET } from '../start/defaults';
import { ROOT } from '../start/serverless-config';
import { startStack } from '../start/stack';
import { adminClient } from './admin-client';
import { gql, idempotencyKey, RAFIKI, type RafikiAdmin } from './rafiki';

// `npm run interop`: this service and a running Rafiki node pay each other, over Interledger
// (ILP over HTTP, STREAM) and Open Payments, in one currency and across two, and the two nodes'
// books of each other are compared to the unit after each payment. It starts a Node A of its own
// (the stack `npm start` runs, on free ports and fresh data, with its FSP simulator), beside a
// Rafiki it finds at the RAFIKI_* URLs (defaults: the ports ../shared/rafiki/start.sh uses). It
// builds and starts nothing of Rafiki's: see docs/interledger.md, "Peering with Rafiki".
//   (i)   Rafiki pays our incoming payment (its createQuote reads it over Open Payments, with the
//         read-all grant Rafiki asks for, and probes the route), USD to USD and USD to EUR;
//   (ii)  we pay Rafiki's incoming payment (POST /quotes and /payments on the Admin API), likewise;
//   (iii) an app with the official Open Payments client pays from our wallet address to Rafiki's,
//         and back, each with the owner's consent given through the IdP interface;
//   (iv)  failures end clearly: a receiver that expired, a wrong token, Rafiki paused mid-payment;
//   (v)   we pay a Rafiki payment pointer ($host/path) over SPSP: Rafiki's wallet address takes it
//         into its own liquidity (Rafiki's SPSP receiver: its Web Monetization account).
const env = process.env;
const rafiki: RafikiAdmin = {
  url: env.RAFIKI_ADMIN_URL ?? 'http://localhost:5001/graphql',
  secret: env.RAFIKI_ADMIN_SECRET ?? 'rafiki-admin-secret-for-local-tests',
  tenantId: env.RAFIKI_TENANT_ID ?? '438fa74a-fa7d-4317-9ced-dde32ece1787',
};
const RAFIKI_CONNECTOR = env.RAFIKI_CONNECTOR_URL ?? 'http://localhost:5002';
const RAFIKI_ILP_ADDRESS = env.RAFIKI_ILP_ADDRESS ?? 'test.rafiki';
const RAFIKI_IDP_URL = env.RAFIKI_IDP_URL ?? 'http://localhost:5009';
const RAFIKI_IDP_SECRET = env.RAFIKI_IDP_SECRET ?? 'idp-secret-for-local-tests';
// Rafiki's backend process, paused (SIGSTOP) for a moment in (iv); without it, that case is skipped.
const RAFIKI_PID_FILE = env.RAFIKI_PID_FILE ?? '/tmp/raf-run/pids/backend';
const WAIT_MS = Number(env.INTEROP_WAIT_SECS ?? 90) * 1000;
const sfx = randomBytes(3).toString('hex');
// USD to EUR, as Rafiki's rates service says (../shared/rafiki/ase.mjs: 0.92) and ours for that peer.
const RATE = Number(env.INTEROP_USD_EUR ?? 0.92);
// Rafiki keeps one peer per ILP address and asset: each run is a peer of its own.
const OUR_ILP_ADDRESS = `test.node-a-${sfx}`;

const results: { name: string; ok: boolean; detail: string }[] = [];
const line = (s = '') => console.log(s);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const fail = (why: string): never => {
  throw new Error(why);
};

// Waits until `check` answers a value, or fails after WAIT_MS saying what it waited for.
async function until<T>(what: string, check: () => Promise<T | undefined>): Promise<T> {
  const by = Date.now() + WAIT_MS;
  for (;;) {
    const got = await check();
    if (got !== undefined) return got;
    if (Date.now() > by) return fail(`${what}: not within ${WAIT_MS / 1000} s`);
    await sleep(300);
  }
}

async function reachRafiki() {
  try {
    await gql(rafiki, RAFIKI.assets);
  } catch (e) {
    console.error(
      `error: no Rafiki answers at ${rafiki.url} (${(e as Error).message}).\n` +
        'Start one first (docs/interledger.md, "Peering with Rafiki"; ../shared/rafiki/start.sh runs one on these ports), or point RAFIKI_ADMIN_URL and the other RAFIKI_* settings at yours.',
    );
    process.exit(1);
  }
}

// ---- Node A, as npm start runs it, on free ports and fresh data --------------------------------
async function startNodeA() {
  const ports = { admin: await freePort(), openPayments: await freePort(), authServer: await freePort(), connector: await freePort() };
  const fspPort = await freePort();
  const adminUrl = `http://localhost:${ports.admin}`;
  const fsp = await startFsp({
    port: fspPort,
    ratesFile: join(ROOT, 'infra/local/fsp/fsp-rates.json'),
    webhookSecret: LOCAL_WEBHOOK_SECRET,
    adminUrl,
    adminSecret: LOCAL_ADMIN_API_SECRET,
    autoFund: true,
    authServerUrl: `http://localhost:${ports.authServer}`,
    idpSecret: LOCAL_IDP_SECRET,
  });
  const stack = await startStack({
    ports,
    dataDir: mkdtempSync(join(tmpdir(), 'interop-node-a-')),
    schedules: true,
    metrics: false,
    traces: false,
    settings: {
      ADMIN_API_SECRET: LOCAL_ADMIN_API_SECRET,
      ILP_ADDRESS: OUR_ILP_ADDRESS,
      EXCHANGE_RATES_URL: `${fsp.url}/rates`,
      WEBHOOK_URL: `${fsp.url}/webhooks`,
      IDP_CONSENT_URL: `${fsp.url}/consent`,
    },
  });
  return { stack, fsp, admin: adminClient(stack.adminUrl, LOCAL_ADMIN_API_SECRET) };
}

type Ours = Awaited<ReturnType<typeof startNodeA>>;
const money = (value: string, assetCode: string) => ({ value, assetCode, assetScale: 2 });

// ---- the two nodes' books of each other --------------------------------------------------------
// Each extends the other a credit line (its peer liquidity): a packet from the peer debits it, a
// packet to the peer credits it. What one node's line moved by, the other's moved back by.
interface Books {
  ours: bigint; // our line to Rafiki
  theirs: bigint; // Rafiki's line to us
}
async function books(ours: Ours, ourPeer: string, rafikiPeer: string): Promise<Books> {
  const [o, r] = await Promise.all([ours.admin.ok('GET', `/peers/${ourPeer}`), gql(rafiki, RAFIKI.peer, { id: rafikiPeer })]);
  return { ours: BigInt(o.liquidity.value), theirs: BigInt(r.peer.liquidity) };
}
const showBooks = (b: Books) => `ours(${RAFIKI_ILP_ADDRESS}) ${b.ours}, Rafiki's(${OUR_ILP_ADDRESS}) ${b.theirs} (USD cents)`;
function booksAgree(before: Books, after: Books): string {
  const moved = { ours: after.ours - before.ours, theirs: after.theirs - before.theirs };
  if (moved.ours + moved.theirs !== 0n) return fail(`the books differ: our line moved ${moved.ours}, Rafiki's ${moved.theirs} (${showBooks(after)})`);
  return `books agree: our line moved ${moved.ours}, Rafiki's ${moved.theirs}`;
}

// What went wrong, with what the official client keeps of an answer it refused.
function describe(e: unknown): string {
  if (e instanceof OpenPaymentsClientError)
    return `${e.message}: ${e.status ?? 'no answer'} ${e.description ?? ''}${e.validationErrors?.length ? ` (${e.validationErrors.join('; ')})` : ''}`;
  return e instanceof Error ? e.message : String(e);
}

async function record(name: string, work: () => Promise<string>) {
  line(`\n== ${name}`);
  try {
    const detail = await work();
    results.push({ name, ok: true, detail });
    line(`   OK: ${detail}`);
  } catch (e) {
    const detail = describe(e);
    results.push({ name, ok: false, detail });
    line(`   FAILED: ${detail}`);
  }
}

try {
  await reachRafiki();
  line(`Rafiki: ${rafiki.url}, connector ${RAFIKI_CONNECTOR} (${RAFIKI_ILP_ADDRESS})`);
  const ours = await startNodeA();
  const { stack, admin } = ours;
  line(`Node A: Admin API ${stack.adminUrl}, Open Payments ${stack.openPaymentsUrl}, auth ${stack.authServerUrl}, connector ${stack.connectorUrl}`);

  // ---- setup: assets, liquidity, wallet addresses, peering (USD), rates --------------------------
  const rafikiAssets: Record<string, string> = {};
  const existing = (await gql(rafiki, RAFIKI.assets)).assets.edges.map((e: { node: { id: string; code: string; scale: number } }) => e.node);
  for (const code of ['USD', 'EUR']) {
    const found = existing.find((a: { code: string; scale: number }) => a.code === code && a.scale === 2);
    rafikiAssets[code] = found?.id ?? (await gql(rafiki, RAFIKI.createAsset, { input: { code, scale: 2 } })).createAsset.asset.id;
    await gql(rafiki, RAFIKI.depositAssetLiquidity, {
      input: { assetId: rafikiAssets[code], amount: '1000000', id: idempotencyKey(), idempotencyKey: idempotencyKey() },
    });
  }
  const rafikiWallet = async (name: string, code: string) =>
    (
      await gql(rafiki, RAFIKI.createWalletAddress, {
        input: { assetId: rafikiAssets[code], address: `${name}-${sfx}`, publicName: `Rafiki ${name}`, idempotencyKey: idempotencyKey() },
      })
    ).createWalletAddress.walletAddress as { id: string; address: string };
  const [rUsd, rEur] = [await rafikiWallet('carol', 'USD'), await rafikiWallet('dan', 'EUR')];

  for (const code of ['USD', 'EUR']) {
    const asset = await admin.ok('POST', '/assets', { body: { code, scale: 2 } });
    await admin.ok('POST', `/assets/${asset.id}/liquidity`, { body: { amount: '1000000' } });
  }
  const ourWallet = async (name: string, code: string) =>
    admin.ok('POST', '/wallet-addresses', { body: { address: `${stack.openPaymentsUrl}/${name}`, assetCode: code, publicName: name } });
  const [oUsd, oEur, app] = [await ourWallet('alice', 'USD'), await ourWallet('bob', 'EUR'), await ourWallet('shop-app', 'USD')];

  const toUs = `rafiki-to-node-a-${sfx}-${randomBytes(8).toString('hex')}`;
  const toRafiki = `node-a-to-rafiki-${sfx}-${randomBytes(8).toString('hex')}`;
  const rafikiPeer = (
    await gql(rafiki, RAFIKI.createPeer, {
      input: {
        assetId: rafikiAssets.USD,
        staticIlpAddress: OUR_ILP_ADDRESS,
        name: `Node A ${sfx}`,
        maxPacketAmount: '100000',
        initialLiquidity: '100000',
        http: { incoming: { authTokens: [toRafiki] }, outgoing: { authToken: toUs, endpoint: stack.connectorUrl } },
        idempotencyKey: idempotencyKey(),
      },
    })
  ).createPeer.peer.id as string;
  const peerBody = (token: string) => ({
    name: `Rafiki ${sfx}`,
    staticIlpAddress: RAFIKI_ILP_ADDRESS,
    assetCode: 'USD',
    maxPacketAmount: '100000',
    http: { incoming: { authTokens: [toUs] }, outgoing: { authToken: token, endpoint: RAFIKI_CONNECTOR } },
  });
  const ourPeer = (await admin.ok('POST', '/peers', { body: peerBody(toRafiki) })).id as string;
  await admin.ok('POST', `/peers/${ourPeer}/liquidity`, { body: { amount: '100000' } });
  // Packets from Rafiki in USD into an EUR intent convert at the rate this node gives that peer;
  // Rafiki expects what its own rates say (less its slippage), so the two agree here.
  await admin.ok('POST', '/rates', { body: { peerId: ourPeer, sourceAssetCode: 'USD', destinationAssetCode: 'EUR', rate: RATE } });
  // An incoming payment on Rafiki; our payment's end (completed or failed).
  const rafikiIncoming = async (walletAddressId: string, value: string, code: string, more: Record<string, unknown> = {}) =>
    (
      await gql(rafiki, RAFIKI.createIncomingPayment, {
        input: { walletAddressId, incomingAmount: money(value, code), idempotencyKey: idempotencyKey(), ...more },
      })
    ).createIncomingPayment.payment as { id: string; url: string };
  const ourPaymentEnd = (id: string) =>
    until(`our payment ${id} to end`, async () => {
      const p = await admin.ok('GET', `/payments/${id}`);
      return p.state === 'failed' || p.state === 'completed' ? p : undefined;
    });
  line(`Peered in USD: Rafiki's peer ${rafikiPeer}, ours ${ourPeer}; each extends the other 1,000.00`);
  line(`Books: ${showBooks(await books(ours, ourPeer, rafikiPeer))}`);

  // ---- (i) Rafiki pays our incoming payment -------------------------------------------------------
  const rafikiPays = (intentWallet: { address: string }, value: string, code: string) => async () => {
    const before = await books(ours, ourPeer, rafikiPeer);
    const intent = await admin.ok('POST', '/payment-intents', {
      body: { walletAddress: intentWallet.address, incomingAmount: money(value, code), metadata: { order: `interop-${sfx}` } },
    });
    const quote = (await gql(rafiki, RAFIKI.createQuote, { input: { walletAddressId: rUsd.id, receiver: intent.url, idempotencyKey: idempotencyKey() } }))
      .createQuote.quote;
    line(`   Rafiki quoted ${quote.debitAmount.value} ${quote.debitAmount.assetCode} for ${quote.receiveAmount.value} ${quote.receiveAmount.assetCode}`);
    const payment = (
      await gql(rafiki, RAFIKI.createOutgoingPayment, { input: { walletAddressId: rUsd.id, quoteId: quote.id, idempotencyKey: idempotencyKey() } })
    ).createOutgoingPayment.payment;
    const done = await until(`Rafiki's outgoing payment ${payment.id} to complete`, async () => {
      const p = (await gql(rafiki, RAFIKI.outgoingPayment, { id: payment.id })).outgoingPayment;
      if (p.state === 'FAILED') fail(`Rafiki's outgoing payment failed: ${p.error}`);
      return p.state === 'COMPLETED' ? p : undefined;
    });
    const got = await until(`our intent ${intent.id} to complete`, async () => {
      const i = await admin.ok('GET', `/payment-intents/${intent.id}`);
      return i.state === 'completed' ? i : undefined;
    });
    return `Rafiki sent ${done.sentAmount.value} ${done.sentAmount.assetCode}; our intent received ${got.receivedAmount.value} ${code}, completed; ${booksAgree(before, await books(ours, ourPeer, rafikiPeer))}`;
  };
  await record('(i) Rafiki pays our incoming payment, USD to USD', rafikiPays(oUsd, '500', 'USD'));
  await record(`(i) Rafiki pays our incoming payment, USD to EUR (we convert at ${RATE})`, rafikiPays(oEur, '460', 'EUR'));

  // ---- (ii) we pay Rafiki's incoming payment ------------------------------------------------------
  const wePay = (receiverWallet: { id: string }, value: string, code: string) => async () => {
    const before = await books(ours, ourPeer, rafikiPeer);
    const incoming = await rafikiIncoming(receiverWallet.id, value, code, { metadata: { order: `interop-${sfx}` } });
    const quote = await admin.ok('POST', '/quotes', { body: { walletAddress: oUsd.address, receiver: incoming.url } });
    line(`   we quoted ${quote.debitAmount.value} USD for ${quote.receiveAmount.value} ${quote.receiveAmount.assetCode}`);
    const payment = await admin.ok('POST', '/payments', { body: { walletAddress: oUsd.address, quoteId: quote.id } });
    const done = await ourPaymentEnd(payment.id);
    if (done.state === 'failed') fail(`our payment failed: ${done.failureReason}`);
    const got = await until(`Rafiki's incoming payment ${incoming.id} to complete`, async () => {
      const i = (await gql(rafiki, RAFIKI.incomingPayment, { id: incoming.id })).incomingPayment;
      return i.state === 'COMPLETED' ? i : undefined;
    });
    return `we sent ${done.sentAmount.value} USD; Rafiki's incoming payment received ${got.receivedAmount.value} ${code}, completed; ${booksAgree(before, await books(ours, ourPeer, rafikiPeer))}`;
  };
  await record("(ii) we pay Rafiki's incoming payment, USD to USD", wePay(rUsd, '300', 'USD'));
  await record("(ii) we pay Rafiki's incoming payment, USD to EUR (Rafiki converts)", wePay(rEur, '276', 'EUR'));

  // ---- (iii) an Open Payments app pays both ways ---------------------------------------------------
  const { privateKey } = generateKeyPairSync('ed25519');
  const keyId = `interop-app-${sfx}`;
  await admin.ok('POST', `/wallet-addresses/${app.id}/keys`, { body: generateJwk({ privateKey, keyId }) });
  const client = await createAuthenticatedClient({ walletAddressUrl: app.address, privateKey, keyId, validateResponses: true });
  const appPays = (from: string, to: string, value: string, idp: { url?: string; secret: string }) => async () => {
    const before = await books(ours, ourPeer, rafikiPeer);
    const [sender, receiver] = [await client.walletAddress.get({ url: from }), await client.walletAddress.get({ url: to })];
    const incomingGrant = await client.grant.request(
      { url: receiver.authServer },
      { access_token: { access: [{ type: 'incoming-payment', actions: ['create', 'read'], identifier: receiver.id }] } },
    );
    if (!isFinalizedGrantWithAccessToken(incomingGrant))
      throw new Error("the receiver's authorization server did not issue the incoming-payment grant at once");
    const grant = incomingGrant;
    const incoming = await client.incomingPayment.create(
      { url: receiver.resourceServer, accessToken: grant.access_token.value },
      { walletAddress: receiver.id, incomingAmount: money(value, receiver.assetCode), metadata: { order: `interop-app-${sfx}` } },
    );
    const quoteGrant = await client.grant.request({ url: sender.authServer }, { access_token: { access: [{ type: 'quote', actions: ['create', 'read'] }] } });
    if (!isFinalizedGrantWithAccessToken(quoteGrant)) throw new Error("the sender's authorization server did not issue the quote grant at once");
    const quote = await client.quote.create(
      { url: sender.resourceServer, accessToken: quoteGrant.access_token.value },
      { walletAddress: sender.id, receiver: incoming.id, method: 'ilp' },
    );
    const nonce = randomBytes(16).toString('base64url');
    const finishUri = 'http://localhost:1/app-callback'; // never opened: the IdP interface hands back where it would go
    const pending = await client.grant.request(
      { url: sender.authServer },
      {
        access_token: {
          access: [{ type: 'outgoing-payment', actions: ['create', 'read'], identifier: sender.id, limits: { debitAmount: quote.debitAmount } }],
        },
        interact: { start: ['redirect'], finish: { method: 'redirect', uri: finishUri, nonce } },
      },
    );
    if (!isPendingGrant(pending)) return fail('the outgoing-payment grant did not wait for consent');
    const consent = await consentViaIdp(pending.interact.redirect, 'accept', { idpSecret: idp.secret, idpUrl: idp.url });
    const ref = consent.finish?.searchParams.get('interact_ref');
    if (!ref) return fail(`consent through the IdP interface failed: ${consent.decision.status} ${await consent.decision.text()}`);
    if (consent.finish?.searchParams.get('hash') !== finishHash(nonce, pending.interact.finish, ref, sender.authServer))
      fail('the finish hash does not verify');
    await sleep((pending.continue.wait ?? 0) * 1000); // GNAP: no sooner than `wait` (Rafiki holds to it)
    const granted = await client.grant.continue({ url: pending.continue.uri, accessToken: pending.continue.access_token.value }, { interact_ref: ref });
    if (!isFinalizedGrantWithAccessToken(granted)) throw new Error('continuing the grant gave no access token');
    const token = granted.access_token.value;
    const payment = await client.outgoingPayment.create({ url: sender.resourceServer, accessToken: token }, { walletAddress: sender.id, quoteId: quote.id });
    // Done when the receiver has it all (a sender may debit less than its quote's maximum).
    const got = await until(`the incoming payment ${incoming.id} to complete`, async () => {
      const p = await client.outgoingPayment.get({ url: payment.id, accessToken: token });
      if (p.failed) fail(`the outgoing payment failed after sending ${p.sentAmount.value}`);
      const i = await client.incomingPayment.get({ url: incoming.id, accessToken: grant.access_token.value });
      return i.completed ? i : undefined;
    });
    const sent = await client.outgoingPayment.get({ url: payment.id, accessToken: token });
    return `sent ${sent.sentAmount.value} ${sent.sentAmount.assetCode}; received ${got.receivedAmount.value} ${got.receivedAmount.assetCode}, completed; ${booksAgree(before, await books(ours, ourPeer, rafikiPeer))}`;
  };
  await record(
    "(iii) an app (official client) pays from our wallet address to Rafiki's",
    appPays(oUsd.address, rUsd.address, '200', { secret: LOCAL_IDP_SECRET }),
  );
  await record(
    "(iii) an app (official client) pays from Rafiki's wallet address to ours",
    appPays(rUsd.address, oUsd.address, '150', { url: RAFIKI_IDP_URL, secret: RAFIKI_IDP_SECRET }),
  );

  // ---- (iv) failures end clearly ------------------------------------------------------------------
  await record('(iv) a Rafiki incoming payment that expired: our quote says so', async () => {
    const incoming = await rafikiIncoming(rUsd.id, '100', 'USD', { expiresAt: new Date(Date.now() + 2000).toISOString() });
    await sleep(2500); // the incoming payment's own expiry, set above
    const quote = await admin.request('POST', '/quotes', { body: { walletAddress: oUsd.address, receiver: incoming.url } });
    if (quote.status < 400) fail(`POST /quotes answered ${quote.status} for an expired receiver`);
    return `POST /quotes ${quote.status} ${quote.body.code}: ${quote.body.detail}`;
  });
  await record('(iv) a wrong token: our payment fails with peer_refused, nothing moves', async () => {
    const before = await books(ours, ourPeer, rafikiPeer);
    const incoming = await rafikiIncoming(rUsd.id, '100', 'USD');
    const quote = await admin.ok('POST', '/quotes', { body: { walletAddress: oUsd.address, receiver: incoming.url } });
    await admin.ok('PATCH', `/peers/${ourPeer}`, {
      body: { http: { outgoing: { authToken: `wrong-${randomBytes(8).toString('hex')}`, endpoint: RAFIKI_CONNECTOR } } },
    });
    try {
      const payment = await admin.ok('POST', '/payments', { body: { walletAddress: oUsd.address, quoteId: quote.id } });
      const ended = await ourPaymentEnd(payment.id);
      if (ended.state !== 'failed') fail(`the payment ${ended.state} with a wrong token`);
      return `payment failed: ${ended.failureReason}; ${booksAgree(before, await books(ours, ourPeer, rafikiPeer))}`;
    } finally {
      await admin.ok('PATCH', `/peers/${ourPeer}`, { body: { http: { outgoing: { authToken: toRafiki, endpoint: RAFIKI_CONNECTOR } } } });
    }
  });
  await record('(iv) Rafiki paused mid-payment: our payment waits, then completes, books agree', async () => {
    if (!existsSync(RAFIKI_PID_FILE)) return `skipped: no pid file of Rafiki's backend at ${RAFIKI_PID_FILE} (RAFIKI_PID_FILE)`;
    const pid = Number(readFileSync(RAFIKI_PID_FILE, 'utf8'));
    const before = await books(ours, ourPeer, rafikiPeer);
    const incoming = await rafikiIncoming(rUsd.id, '100', 'USD');
    const quote = await admin.ok('POST', '/quotes', { body: { walletAddress: oUsd.address, receiver: incoming.url } });
    process.kill(pid, 'SIGSTOP');
    let payment: { id: string };
    try {
      payment = await admin.ok('POST', '/payments', { body: { walletAddress: oUsd.address, quoteId: quote.id } });
      await until(`our payment ${payment.id} to start sending`, async () => {
        const p = await admin.ok('GET', `/payments/${payment.id}`);
        return p.state === 'sending' ? p : undefined;
      });
      await sleep(3000); // Rafiki stays paused while packets wait on it
    } finally {
      process.kill(pid, 'SIGCONT');
    }
    const ended = await ourPaymentEnd(payment.id);
    const reconciliation = await admin.ok('GET', `/peers/${ourPeer}/reconciliation`);
    return `payment ${ended.state}${ended.failureReason ? ` (${ended.failureReason})` : ''}; reconciliation lists ${reconciliation.items.length} packet(s); ${booksAgree(before, await books(ours, ourPeer, rafikiPeer))}`;
  });

  // ---- (v) we pay a Rafiki payment pointer (SPSP) --------------------------------------------------
  const wePayPointer = (receiverWallet: { id: string; address: string }, value: string, code: string) => async () => {
    const before = await books(ours, ourPeer, rafikiPeer);
    const liquidity = async () => BigInt((await gql(rafiki, RAFIKI.walletAddress, { id: receiverWallet.id })).walletAddress.liquidity ?? 0);
    const had = await liquidity();
    const url = new URL(receiverWallet.address);
    const pointer = `$${url.host}${url.pathname}`;
    const quote = await admin.ok('POST', '/quotes', { body: { walletAddress: oUsd.address, receiver: pointer, receiveAmount: money(value, code) } });
    line(`   ${pointer}: we quoted ${quote.debitAmount.value} USD for ${quote.receiveAmount.value} ${code} (receiver ${quote.receiver})`);
    const payment = await admin.ok('POST', '/payments', { body: { walletAddress: oUsd.address, quoteId: quote.id } });
    const done = await ourPaymentEnd(payment.id);
    if (done.state === 'failed') fail(`our payment failed: ${done.failureReason}`);
    const got = (await liquidity()) - had;
    if (got !== BigInt(quote.receiveAmount.value)) fail(`Rafiki's wallet address got ${got}, not the ${quote.receiveAmount.value} quoted`);
    return `we sent ${done.sentAmount.value} USD; Rafiki's wallet address took ${got} ${code}, as quoted; ${booksAgree(before, await books(ours, ourPeer, rafikiPeer))}`;
  };
  await record('(v) we pay a Rafiki payment pointer over SPSP, USD to USD', wePayPointer(rUsd, '250', 'USD'));
  await record('(v) we pay a Rafiki payment pointer over SPSP, USD to EUR (Rafiki converts)', wePayPointer(rEur, '230', 'EUR'));

  line(`\nBooks at the end: ${showBooks(await books(ours, ourPeer, rafikiPeer))}`);
  const check = await admin.ok('GET', '/ledger/check');
  line(`Our ledger check: balanced ${check.balanced}`);
  line('\nSummary');
  for (const r of results) line(`  ${r.ok ? 'completed' : 'FAILED   '}  ${r.name}`);
  await ours.stack.stop();
  await ours.fsp.stop();
  process.exit(results.every((r) => r.ok) && check.balanced ? 0 : 1);
} catch (e) {
  console.error(`error: ${(e as Error).message}`);
  process.exit(1);
}

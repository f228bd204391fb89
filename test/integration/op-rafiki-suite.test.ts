import { generateKeyPairSync } from 'node:crypto';
import { generateJwk } from '@interledger/http-signature-utils';
import { createAuthenticatedClient, createUnauthenticatedClient, isFinalizedGrantWithAccessToken, isPendingGrant } from '@interledger/open-payments';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../../infra/local/emulators/emulators';
import type { startFsp } from '../../infra/local/fsp/fsp';
import { consentViaIdp } from '../browser/consent';
import { fspSettings, startStackFsp } from '../harness/fsp';
import { startTestStack, type TestStack } from '../harness/stack';
import { ok } from '../harness/world';

// What Rafiki's own integration suite (test/integration of interledger/rafiki) asks of a node over
// Open Payments, as its test environment runs it: ids are https (WALLET_ADDRESS_URL) while every
// server answers plain http (its client's useHttp, and the node's own fetches: LOCAL_FETCH_HTTPS_AS_HTTP);
// the node signs as its own client address with a key the FSP registered (PRIVATE_KEY_FILE and
// KEY_ID there: OPEN_PAYMENTS_CLIENT_SECRET holding the PEM, OPEN_PAYMENTS_CLIENT_KEY_ID here), the
// same key and key id as a wallet address of the other node's (pfry); the consent page posts its
// decision to a port of its own (AUTH_INTERACTION_PORT); and an unknown wallet address is made by
// the FSP within the GET that asked for it (WALLET_ADDRESS_NOT_FOUND_WAIT_MS).
const KEY_ID = 'keyid-97a3a431-8ee1-48fc-ac85-70e2f5eba8e5';
const IDP_SECRET = 'rafiki-suite-idp-secret-0123456789';
const { privateKey } = generateKeyPairSync('ed25519');
const pem = privateKey.export({ format: 'pem', type: 'pkcs8' }).toString();

let s: TestStack;
let fsp: Awaited<ReturnType<typeof startFsp>>;
let base: string; // WALLET_ADDRESS_URL: https, served over http
let interactionPort: number;
const wallet: Record<string, string> = {};
const amount = (value: string) => ({ value, assetCode: 'USD', assetScale: 2 });

beforeAll(async () => {
  const [openPayments, fspPort] = [await freePort(), await freePort()];
  interactionPort = await freePort();
  base = `https://localhost:${openPayments}`;
  s = await startTestStack(
    {
      WALLET_ADDRESS_URL: base,
      LOCAL_FETCH_HTTPS_AS_HTTP: 'true',
      OPEN_PAYMENTS_CLIENT_SECRET: pem,
      OPEN_PAYMENTS_CLIENT_KEY_ID: KEY_ID,
      WALLET_ADDRESS_NOT_FOUND_WAIT_MS: '8000',
      ...fspSettings(fspPort, IDP_SECRET),
      GNAP_WAIT_SECS: '1',
    },
    { ports: { openPayments, authInteraction: interactionPort } },
  );
  fsp = await startStackFsp(s, fspPort, {
    autoFund: false,
    authServerUrl: s.authServerUrl,
    idpSecret: IDP_SECRET,
  });
  await ok(s.admin('POST', '/assets', { code: 'USD', scale: 2 }));
  for (const [name, publicName] of [
    ['pfry', 'Philip Fry'],
    ['gfranklin', 'Grace Franklin'],
  ]) {
    const created = await ok(s.admin('POST', '/wallet-addresses', { address: `${base}/accounts/${name}`, assetCode: 'USD', publicName }));
    wallet[name] = created.address;
    // Rafiki's test environment signs everything with one key: pfry's is the node's own, same key id.
    if (name === 'pfry') await ok(s.admin('POST', `/wallet-addresses/${created.id}/keys`, generateJwk({ privateKey, keyId: KEY_ID })));
  }
});
afterAll(async () => {
  await s?.stop();
  await fsp?.stop();
});

// The node's own client, as Rafiki's suite makes it: its .well-known/pay address and the registered key.
const nodeClient = () =>
  createAuthenticatedClient({ walletAddressUrl: `${base}/.well-known/pay`, privateKey, keyId: KEY_ID, useHttp: true, validateResponses: true });

describe("Rafiki's integration suite's Open Payments calls", () => {
  it('finds the configured client key published under the key id the FSP registered, before the node ever used it', async () => {
    const res = await fetch(`${s.openPaymentsUrl}/.well-known/pay/jwks.json`);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ keys: [generateJwk({ privateKey, keyId: KEY_ID })] });
  });

  it("is issued a grant as the node's own client, whose https key set the node reads over http; creates an incoming payment whose public view shows receivedAmount", async () => {
    const client = await nodeClient();
    const pfry = await client.walletAddress.get({ url: wallet.pfry });
    expect(pfry).toMatchObject({ id: `${base}/accounts/pfry`, resourceServer: base });
    const grant = await client.grant.request(
      { url: pfry.authServer },
      { access_token: { access: [{ type: 'incoming-payment', actions: ['create', 'read', 'list', 'complete'] }] } },
    );
    if (!isFinalizedGrantWithAccessToken(grant)) throw new Error('expected a grant issued at once');
    const created = await client.incomingPayment.create(
      { url: pfry.resourceServer, accessToken: grant.access_token.value },
      { walletAddress: pfry.id, incomingAmount: amount('100'), metadata: { description: 'Free Money!' } },
    );
    expect(created.id.startsWith(`${base}/incoming-payments/`)).toBe(true);
    const shown = await client.incomingPayment.getPublic({ url: created.id });
    expect(shown.receivedAmount).toEqual(amount('0'));
    // As the suite's quote names it (its first https made http), read by the node as a payer reads
    // a receiver on another node: the same incoming payment, its id https.
    const [{ readIncomingPayment }, { node }] = await Promise.all([import('../../lib/open-payments/client'), import('../../lib/platform/config')]);
    const read = await readIncomingPayment(node, created.id.replace('https', 'http'));
    expect(read).toMatchObject({ id: created.id, incomingAmount: amount('100'), receivedAmount: amount('0') });
  });

  it('issues a grant at once to a client that gives its own key (directed identity, client: {jwk}), which creates an incoming payment with it', async () => {
    const own = generateKeyPairSync('ed25519').privateKey;
    const jwk = generateJwk({ privateKey: own, keyId: 'directed-identity-key' });
    const client = await createAuthenticatedClient({
      walletAddressUrl: `${base}/.well-known/pay`,
      privateKey: own,
      keyId: jwk.kid,
      useHttp: true,
      validateResponses: true,
    });
    const grant = await client.grant.request(
      { url: s.authServerUrl },
      { access_token: { access: [{ type: 'incoming-payment', actions: ['create', 'read', 'list', 'complete'] }] } },
      { jwk },
    );
    if (!isFinalizedGrantWithAccessToken(grant)) throw new Error('expected a grant issued at once');
    const created = await client.incomingPayment.create({ url: base, accessToken: grant.access_token.value }, { walletAddress: wallet.pfry });
    expect(created).toMatchObject({ walletAddress: wallet.pfry, receivedAmount: amount('0'), completed: false });
  });

  it('takes the consent on AUTH_INTERACTION_PORT (302 with a cookie, 202, 202), and issues the token to another client that holds the same key and key id', async () => {
    const pfryClient = await createAuthenticatedClient({ walletAddressUrl: wallet.pfry, privateKey, keyId: KEY_ID, useHttp: true, validateResponses: true });
    const grant = await pfryClient.grant.request(
      { url: s.authServerUrl },
      {
        access_token: {
          access: [{ type: 'outgoing-payment', actions: ['create', 'read', 'list'], identifier: wallet.gfranklin, limits: { debitAmount: amount('100') } }],
        },
        interact: { start: ['redirect'] },
      },
    );
    if (!isPendingGrant(grant)) throw new Error('expected a pending grant');
    expect(grant.continue.wait).toBe(1);
    const consent = await consentViaIdp(grant.interact.redirect, 'accept', { idpSecret: IDP_SECRET, idpUrl: `http://localhost:${interactionPort}` });
    expect([consent.start.status, consent.cookie !== '', consent.decision.status, consent.finishResponse.status]).toEqual([302, true, 202, 202]);
    const continued = await (await nodeClient()).grant.continue({ url: grant.continue.uri, accessToken: grant.continue.access_token.value });
    if (!isFinalizedGrantWithAccessToken(continued)) throw new Error('expected the access token');
    const spent = await pfryClient.outgoingPayment.getGrantSpentAmounts({ url: base, accessToken: continued.access_token.value });
    expect(spent).toEqual({ spentDebitAmount: null, spentReceiveAmount: null });
  });

  it('answers a GET of an unknown wallet address with the address the FSP made meanwhile, told of it by its https URL', async () => {
    const url = `${base}/accounts/asmith`;
    const found = await (await createUnauthenticatedClient({ useHttp: true, validateResponses: true })).walletAddress.get({ url });
    expect(found).toMatchObject({ id: url, assetCode: 'USD' });
  });
});

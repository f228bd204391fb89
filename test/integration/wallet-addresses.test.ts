import { generateKeyPairSync } from 'node:crypto';
import { DynamoDBDocumentClient, PutCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { MAX_ADDRESS_SEGMENTS } from '../../lib/shared/wallet-address-url';
import { MAX_ACTIVE_KEYS } from '../../lib/wallet-addresses/schemas';
import { startTestStack, type TestStack } from '../harness/stack';

let s: TestStack;
let base: string;

function ed25519Jwk(kid: string) {
  const { publicKey } = generateKeyPairSync('ed25519');
  const { x } = publicKey.export({ format: 'jwk' });
  return { kid, kty: 'OKP', crv: 'Ed25519', x: x!, alg: 'EdDSA' };
}

const publicGet = async (url: string) => {
  const res = await fetch(url);
  return { status: res.status, type: res.headers.get('content-type'), body: await res.json() };
};

beforeAll(async () => {
  s = await startTestStack();
  base = s.openPaymentsUrl;
  expect((await s.admin('POST', '/assets', { code: 'USD', scale: 2 })).status).toBe(201);
});
afterAll(() => s.stop());

describe('wallet addresses', () => {
  it('creates one under WALLET_ADDRESS_URL and stores it in lower case', async () => {
    const res = await s.admin('POST', '/wallet-addresses', { address: `${base}/Alice`, assetCode: 'USD', publicName: 'Alice' });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      id: expect.any(String),
      address: `${base}/alice`,
      assetCode: 'USD',
      assetScale: 2,
      publicName: 'Alice',
      approvalRequired: false, // the node's INCOMING_APPROVAL_REQUIRED, in effect
      status: 'active', // new ones are
      createdAt: expect.any(String),
    });
    expect((await s.admin('GET', `/wallet-addresses/${res.body.id}`)).body).toEqual(res.body);
  });

  it('finds it by address in any case', async () => {
    const res = await s.admin('GET', `/wallet-addresses?address=${encodeURIComponent(`${base}/ALICE`)}`);
    expect(res.status).toBe(200);
    expect(res.body.address).toBe(`${base}/alice`);
    expect((await s.admin('GET', `/wallet-addresses?address=${encodeURIComponent(`${base}/nobody`)}`)).status).toBe(404);
    // Without an address it lists them (test/integration/lists.test.ts).
    const listed = await s.admin('GET', '/wallet-addresses');
    expect(listed.status).toBe(200);
    expect(listed.body.items.map((w: { address: string }) => w.address)).toContain(`${base}/alice`);
  });

  it('refuses the same address in another case with 409', async () => {
    const res = await s.admin('POST', '/wallet-addresses', { address: `${base}/ALICE`, assetCode: 'USD' });
    expect(res.status).toBe(409);
    expect(res.body.code).toBe('wallet_address_exists');
  });

  it('lets exactly one of a dozen racing creations of one address win', async () => {
    const variants = Array.from({ length: 12 }, (_, i) => `${base}/${i % 2 ? 'RACER' : 'racer'}`);
    const results = await Promise.all(variants.map((address, i) => s.admin('POST', '/wallet-addresses', { address, assetCode: 'USD', publicName: `R${i}` })));
    const statuses = results.map((r) => r.status);
    expect(statuses.filter((x) => x === 201)).toHaveLength(1);
    expect(statuses.filter((x) => x === 409)).toHaveLength(11);
  });

  it('refuses an unknown asset code with 422 and writes nothing', async () => {
    const res = await s.admin('POST', '/wallet-addresses', { address: `${base}/bob`, assetCode: 'EUR' });
    expect(res.status).toBe(422);
    expect(res.body.code).toBe('unknown_asset');
    expect((await s.admin('GET', `/wallet-addresses?address=${encodeURIComponent(`${base}/bob`)}`)).status).toBe(404);
  });

  it('refuses addresses outside the base or of the wrong shape with 400 naming address', async () => {
    for (const address of [
      'https://elsewhere.example/alice',
      `${base}`,
      `${base}/`,
      'not a url',
      `${base}/a?x=1`,
      `${base}/a#frag`,
      `${base}/a b`,
      `${base}/alice/jwks.json`,
      'ftp://localhost/alice',
    ]) {
      const res = await s.admin('POST', '/wallet-addresses', { address, assetCode: 'USD' });
      expect(res.status, address).toBe(400);
      expect(res.body.errors[0].field, address).toBe('address');
    }
    const missing = await s.admin('POST', '/wallet-addresses', { assetCode: 'USD' });
    expect(missing.status).toBe(400);
  });

  it(`takes at most ${MAX_ADDRESS_SEGMENTS} path segments: a deeper address is 400 naming address, and writes nothing`, async () => {
    const deep = (n: number) => `${base}/deep${'/d'.repeat(n - 1)}`;
    for (const n of [MAX_ADDRESS_SEGMENTS + 1, 99, 150]) {
      const res = await s.admin('POST', '/wallet-addresses', { address: deep(n), assetCode: 'USD' });
      expect([res.status, res.body.errors], `${n} segments`).toEqual([
        400,
        [{ field: 'address', message: `must have at most ${MAX_ADDRESS_SEGMENTS} path segments, not ${n}` }],
      ]);
      expect((await s.admin('GET', `/wallet-addresses?address=${encodeURIComponent(deep(n))}`)).status).toBe(404);
    }
    const made = await s.admin('POST', '/wallet-addresses', { address: deep(MAX_ADDRESS_SEGMENTS), assetCode: 'USD' });
    expect([made.status, made.body.address]).toEqual([201, deep(MAX_ADDRESS_SEGMENTS)]);
    expect((await publicGet(deep(MAX_ADDRESS_SEGMENTS))).status).toBe(200);
  });

  it('changes the public name with PATCH, everywhere it is read', async () => {
    const created = await s.admin('POST', '/wallet-addresses', { address: `${base}/carol`, assetCode: 'USD', publicName: 'Carol' });
    const patched = await s.admin('PATCH', `/wallet-addresses/${created.body.id}`, { publicName: 'Carol B.' });
    expect(patched.status).toBe(200);
    expect(patched.body.publicName).toBe('Carol B.');
    expect((await s.admin('GET', `/wallet-addresses/${created.body.id}`)).body.publicName).toBe('Carol B.');
    expect((await publicGet(`${base}/carol`)).body.publicName).toBe('Carol B.');
    expect((await s.admin('PATCH', `/wallet-addresses/${created.body.id}`, { assetCode: 'EUR' })).status).toBe(400);
    expect((await s.admin('PATCH', '/wallet-addresses/3f1c2b9e-8a47-4c51-9d0e-2b7a6f5e4d3c', { publicName: 'x' })).status).toBe(404);
  });

  it('refuses creation with an error naming both bases once WALLET_ADDRESS_URL changed', async () => {
    // Record a different first base, as an earlier deployment with another setting would have.
    const doc = DynamoDBDocumentClient.from(s.dynamo);
    await doc.send(new PutCommand({ TableName: s.env.MAIN_TABLE, Item: { pk: 'CONFIG', sk: 'WALLET_ADDRESS_URL', base: 'https://old.example' } }));
    // A container checks the recorded base once a minute, not on every creation.
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(Date.now() + 61_000);
    try {
      const res = await s.admin('POST', '/wallet-addresses', { address: `${base}/dave`, assetCode: 'USD' });
      expect(res.status).toBe(409);
      expect(res.body.code).toBe('wallet_address_url_changed');
      expect(res.body.detail).toContain('https://old.example');
      expect(res.body.detail).toContain(base);
      const old = await s.admin('POST', '/wallet-addresses', { address: 'https://old.example/dave', assetCode: 'USD' });
      expect(old.status).toBe(409);
      expect(old.body.detail).toContain('https://old.example');
      expect((await s.admin('GET', `/wallet-addresses?address=${encodeURIComponent(`${base}/dave`)}`)).status).toBe(404);
    } finally {
      await doc.send(new PutCommand({ TableName: s.env.MAIN_TABLE, Item: { pk: 'CONFIG', sk: 'WALLET_ADDRESS_URL', base } }));
      vi.useRealTimers();
    }
  });
});

describe('wallet address keys', () => {
  let id: string;
  beforeAll(async () => {
    id = (await s.admin('POST', '/wallet-addresses', { address: `${base}/keyholder`, assetCode: 'USD', publicName: 'K' })).body.id;
  });

  it('registers Ed25519 keys, lists them and publishes the active ones at jwks.json', async () => {
    const k1 = ed25519Jwk('key-1');
    const k2 = ed25519Jwk('key-2');
    const created = await s.admin('POST', `/wallet-addresses/${id}/keys`, k1);
    expect(created.status).toBe(201);
    expect(created.body).toEqual({ walletAddressId: id, kid: 'key-1', jwk: k1, createdAt: expect.any(String), revokedAt: null });
    expect((await s.admin('POST', `/wallet-addresses/${id}/keys`, k2)).status).toBe(201);
    const listed = await s.admin('GET', `/wallet-addresses/${id}/keys`);
    expect(listed.body.items.map((k: { kid: string }) => k.kid).sort()).toEqual(['key-1', 'key-2']);
    const jwks = await publicGet(`${base}/KeyHolder/jwks.json`);
    expect(jwks.status).toBe(200);
    expect(jwks.body.keys).toHaveLength(2);
    expect(jwks.body.keys).toContainEqual(k1);
  });

  it('refuses a duplicate kid with 409', async () => {
    const res = await s.admin('POST', `/wallet-addresses/${id}/keys`, ed25519Jwk('key-1'));
    expect(res.status).toBe(409);
    expect(res.body.code).toBe('key_exists');
  });

  it('revokes a key: it stays listed with revokedAt and leaves jwks.json; revoking again is a no-op', async () => {
    const revoked = await s.admin('POST', `/wallet-addresses/${id}/keys/key-1/revoke`);
    expect(revoked.status).toBe(200);
    expect(revoked.body.revokedAt).toEqual(expect.any(String));
    await new Promise((r) => setTimeout(r, 5));
    const again = await s.admin('POST', `/wallet-addresses/${id}/keys/key-1/revoke`);
    expect(again.body.revokedAt).toBe(revoked.body.revokedAt);
    const jwks = await publicGet(`${base}/keyholder/jwks.json`);
    expect(jwks.body.keys.map((k: { kid: string }) => k.kid)).toEqual(['key-2']);
    expect((await s.admin('POST', `/wallet-addresses/${id}/keys/nope/revoke`)).status).toBe(404);
  });

  it('refuses keys that are not Ed25519 public JWKs', async () => {
    const good = ed25519Jwk('bad');
    for (const jwk of [
      { ...good, kty: 'RSA' },
      { ...good, crv: 'P-256' },
      { ...good, alg: 'ES256' },
      { ...good, x: 'short' },
      { ...good, d: good.x },
      { kty: 'OKP', crv: 'Ed25519', x: good.x, alg: 'EdDSA' },
    ]) {
      const res = await s.admin('POST', `/wallet-addresses/${id}/keys`, jwk);
      expect(res.status, JSON.stringify(jwk)).toBe(400);
    }
    expect((await s.admin('POST', '/wallet-addresses/3f1c2b9e-8a47-4c51-9d0e-2b7a6f5e4d3c/keys', good)).status).toBe(404);
  });

  it(`keeps at most ${MAX_ACTIVE_KEYS} unrevoked keys, even when additions race; revoking one makes room`, async () => {
    const holder = (await s.admin('POST', '/wallet-addresses', { address: `${base}/manykeys`, assetCode: 'USD' })).body.id;
    const add = (kid: string) => s.admin('POST', `/wallet-addresses/${holder}/keys`, ed25519Jwk(kid));
    const results = await Promise.all(Array.from({ length: MAX_ACTIVE_KEYS + 6 }, (_, i) => add(`race-${i}`)));
    expect(results.filter((r) => r.status === 201)).toHaveLength(MAX_ACTIVE_KEYS);
    const refused = results.filter((r) => r.status !== 201);
    expect(refused.map((r) => [r.status, r.body.code])).toEqual(refused.map(() => [409, 'too_many_keys']));
    expect((await publicGet(`${base}/manykeys/jwks.json`)).body.keys).toHaveLength(MAX_ACTIVE_KEYS);
    const kept = results.find((r) => r.status === 201)!.body.kid;
    expect((await s.admin('POST', `/wallet-addresses/${holder}/keys/${kept}/revoke`)).status).toBe(200);
    expect((await s.admin('POST', `/wallet-addresses/${holder}/keys/${kept}/revoke`)).status).toBe(200); // again: no change, no room made
    expect((await add('after-revoke')).status).toBe(201);
    expect((await add('one-too-many')).status).toBe(409);
  });
});

describe('Open Payments resource server', () => {
  it('publishes a wallet address, looked up in any case', async () => {
    const res = await publicGet(`${base}/ALICE`);
    expect(res.status).toBe(200);
    expect(res.type).toBe('application/json');
    expect(res.body).toEqual({
      id: `${base}/alice`,
      publicName: 'Alice',
      assetCode: 'USD',
      assetScale: 2,
      authServer: s.authServerUrl,
      resourceServer: base,
    });
  });

  it('answers 404 for unknown addresses and their jwks', async () => {
    expect((await publicGet(`${base}/nobody`)).status).toBe(404);
    expect((await publicGet(`${base}/nobody/jwks.json`)).status).toBe(404);
  });

  it('needs no signature', async () => {
    const res = await fetch(`${base}/alice`, { headers: { signature: 'garbage' } });
    expect(res.status).toBe(200);
  });
});

import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { SignatureV4 } from '@smithy/signature-v4';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LOCAL_CREDENTIALS, LOCAL_REGION } from '../../infra/local/emulators/emulators';
import { type Bucket, getObject, listObjects, putNewObject } from '../../lib/platform/s3';
import { Sha256 } from '../../lib/platform/sigv4';
import { startTestStack, type TestStack } from '../harness/stack';
import { waitFor } from '../harness/wait';
import { ok } from '../harness/world';

// Issue 47: a change signed with an Admin API secret (the FSP's systems, the CLI) is audited with its
// signer and what changed, from the main table's stream into the write-once store, which refuses
// every delete and every put over an object.
let s: TestStack;
let bucket: Bucket;
beforeAll(async () => {
  s = await startTestStack({ EXCHANGE_RATES_URL: '' });
  bucket = { name: s.env.AUDIT_BUCKET, region: LOCAL_REGION, endpoint: s.endpoints.auditstore };
});
afterAll(async () => {
  await s?.stop();
});

const trail = async (query: string) => (await ok(s.admin('GET', `/audit-events?${query}`), 200)).items as any[];
const stored = async () => {
  const { keys } = await listObjects(bucket, { prefix: 'events/operator/' });
  return (await Promise.all(keys.map((k) => getObject(bucket, k)))).flatMap((body) =>
    body!
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l)),
  );
};

describe('a change signed with the Admin API secret', () => {
  it('an API-signed PATCH of fees and a CLI withdrawal each leave a record with the signer and the change, in the write-once store', async () => {
    const asset = await ok(s.admin('POST', '/assets', { code: 'USD', scale: 2 }));
    await ok(s.admin('POST', `/assets/${asset.id}/liquidity`, { amount: '10000' }), 200);
    await ok(s.admin('PATCH', `/assets/${asset.id}`, { sendingFee: { fixed: '25', basisPoints: 30 } }), 200);
    const cli = await promisify(execFile)(
      process.execPath,
      ['--import', 'tsx', 'infra/local/tools/admin.ts', '--json', 'POST', `/assets/${asset.id}/liquidity-withdrawals`, '{"amount":"700","twoPhase":true}'],
      { env: { ...process.env, ADMIN_API_URL: s.adminUrl, ADMIN_API_SECRET: s.env.ADMIN_API_SECRET } },
    );
    const withdrawal = JSON.parse(cli.stdout);

    const patched = await waitFor('the PATCH in the trail', async () => (await trail(`resourceId=${asset.id}`)).find((e) => e.action === 'PATCH /assets/{id}'));
    expect(patched).toMatchObject({
      actor: { kind: 'key', name: 'operator' },
      operationId: 'updateAsset',
      resource: { type: 'asset', id: asset.id },
      tenant: 'operator',
      outcome: 'succeeded',
      status: 200,
      requestId: expect.any(String),
      changes: { sendingFee: { after: { fixed: '25', basisPoints: '30' } } },
    });
    expect(patched.actor.role).toBeUndefined();

    const withdrawn = await waitFor('the withdrawal in the trail', async () => (await trail(`resourceId=${withdrawal.id}`))[0]);
    expect(withdrawn).toMatchObject({
      actor: { kind: 'key', name: 'operator' },
      action: 'POST /assets/{id}/liquidity-withdrawals',
      resource: { type: 'liquidity-withdrawal', id: withdrawal.id },
      changes: { state: { after: 'pending' }, assetId: { after: asset.id } },
    });
    expect(withdrawn.changes.state.before).toBeUndefined();

    // Both are in the store itself, as the API read them.
    const ids = (await stored()).map((e) => e.id);
    expect(ids).toEqual(expect.arrayContaining([patched.id, withdrawn.id]));
  });

  it('no call can delete an object or put over one: the store refuses both, and keeps it as written', async () => {
    const { keys } = await waitFor('an object', async () => {
      const listing = await listObjects(bucket, { prefix: 'events/' });
      return listing.keys.length ? listing : undefined;
    });
    const key = keys[0];
    const before = await getObject(bucket, key);
    const signer = new SignatureV4({ service: 's3', region: LOCAL_REGION, credentials: LOCAL_CREDENTIALS, sha256: Sha256, uriEscapePath: false });
    const send = async (method: string, headers: Record<string, string> = {}, body?: string) => {
      const url = new URL(`${bucket.endpoint}/${bucket.name}/${key}`);
      const signed = await signer.sign({
        method,
        protocol: url.protocol,
        hostname: url.hostname,
        port: Number(url.port),
        path: url.pathname,
        headers: { host: url.host, ...headers },
        body,
      });
      const { host, ...sent } = signed.headers;
      return (await fetch(url, { method, headers: sent, body })).status;
    };
    expect(await send('DELETE')).toBe(403);
    expect(await send('PUT', {}, 'rewritten')).toBe(403); // unconditional: denied, as the bucket's policy denies it
    expect(await putNewObject(bucket, key, 'rewritten')).toBe('exists'); // conditional: 412
    expect(await getObject(bucket, key)).toBe(before);
  });
});

import { join } from 'node:path';
import { QueryCommand, UpdateItemCommand } from '@aws-sdk/client-dynamodb';
import { createUnauthenticatedClient } from '@interledger/open-payments';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { freePort } from '../../infra/local/emulators/emulators';
import { startFsp } from '../../infra/local/fsp/fsp';
import { ROOT } from '../../infra/local/start/serverless-config';
import { MAX_ADDRESS_SEGMENTS } from '../../lib/shared/wallet-address-url';
import { NOT_FOUND_EVENTS_PER_MINUTE } from '../../lib/wallet-addresses';
import { startTestStack, type TestStack } from '../harness/stack';
import { ok, waitFor } from '../harness/world';
import { TEST_WEBHOOK_SECRET } from '../servers/webhook-receiver';

// Wallet addresses on demand: a client's GET of an unknown wallet address under the node's prefix
// tells the FSP (wallet_address.not_found, once per address in a window) and answers 404; the FSP
// simulator creates the address, and the client's retried GET finds it.
let s: TestStack;
let fsp: Awaited<ReturnType<typeof startFsp>>;
let fspPort: number;
const ADMIN_SECRET = 'on-demand-test-admin-secret-123456';
let client: Awaited<ReturnType<typeof createUnauthenticatedClient>>;
const simulator = () =>
  startFsp({
    port: fspPort,
    ratesFile: join(ROOT, 'infra/local/fsp/fsp-rates.json'),
    webhookSecret: TEST_WEBHOOK_SECRET,
    adminUrl: s.adminUrl,
    adminSecret: ADMIN_SECRET,
    autoFund: false,
  });

beforeAll(async () => {
  fspPort = await freePort();
  s = await startTestStack({
    ADMIN_API_SECRET: ADMIN_SECRET,
    EXCHANGE_RATES_URL: '',
    WEBHOOK_URL: `http://localhost:${fspPort}/webhooks`,
    WEBHOOK_SECRET: TEST_WEBHOOK_SECRET,
  });
  fsp = await simulator();
  client = await createUnauthenticatedClient({ validateResponses: true });
  await ok(s.admin('POST', '/assets', { code: 'USD', scale: 2 }));
});
afterAll(async () => {
  await s?.stop();
  await fsp?.stop();
});

// The wallet_address.not_found events written for `address` (the outbox items beside its marker):
// all of them are written by the time the GETs that wrote them have answered.
const toldOf = async (address: string) => {
  const { Items = [] } = await s.dynamo.send(
    new QueryCommand({
      TableName: s.env.MAIN_TABLE,
      KeyConditionExpression: 'pk = :pk AND begins_with(sk, :out)',
      ExpressionAttributeValues: { ':pk': { S: `WANOTFOUND#${address}` }, ':out': { S: 'OUT#' } },
    }),
  );
  return Items.flatMap((i) => JSON.parse(i.out.S!)).filter((o) => o.event?.type === 'wallet_address.not_found');
};
const notFound = async (url: string) => {
  const e = await client.walletAddress.get({ url }).then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(e, url).toMatchObject({ status: 404 });
};

describe('a GET of an unknown wallet address', () => {
  it('tells the FSP once however often it is asked, the simulator creates it, and the retried GET finds it', async () => {
    const url = `${s.openPaymentsUrl}/on-demand-${Date.now()}`;
    await Promise.all([1, 2, 3].map(() => notFound(url)));
    await notFound(url.replace('/on-demand-', '/On-Demand-')); // the same address, in other letters
    const told = await toldOf(url);
    expect(told.map((o) => o.event.data)).toEqual([{ walletAddressUrl: url }]);

    const found = await waitFor('the simulator to create it, and the retried GET to find it', () => client.walletAddress.get({ url }).catch(() => undefined));
    expect(found).toMatchObject({ id: url, assetCode: 'USD', assetScale: 2 });
    const created = await ok(s.admin('GET', `/wallet-addresses?address=${encodeURIComponent(url)}`), 200);
    expect(created).toMatchObject({ address: url, status: 'active' });
    const received = (await (await fetch(`${fsp.url}/webhooks`)).json()) as Array<{ type: string; answered: number; data: unknown }>;
    expect(received.filter((e) => e.type === 'wallet_address.not_found')).toContainEqual(
      expect.objectContaining({ answered: 204, data: { walletAddressUrl: url } }),
    );
  });

  it('tells the FSP again once the window has passed', async () => {
    const url = `${s.openPaymentsUrl}/nobody-${Date.now()}`;
    await fsp.stop(); // nobody creates it meanwhile
    try {
      await notFound(url);
      await notFound(url);
      expect(await toldOf(url)).toHaveLength(1);
      // The window's end, as DynamoDB may not have deleted the marker yet.
      await s.dynamo.send(
        new UpdateItemCommand({
          TableName: s.env.MAIN_TABLE,
          Key: { pk: { S: `WANOTFOUND#${url}` }, sk: { S: 'NOTFOUND' } },
          UpdateExpression: 'SET #ttl = :past',
          ExpressionAttributeNames: { '#ttl': 'ttl' },
          ExpressionAttributeValues: { ':past': { N: String(Math.floor(Date.now() / 1000) - 1) } },
        }),
      );
      await notFound(url);
      expect(await toldOf(url)).toHaveLength(2);
    } finally {
      fsp = await simulator();
    }
  });

  it(`tells a tenant of ${NOT_FOUND_EVENTS_PER_MINUTE} addresses a minute, however many are tried at once; one more is told when looked up the next minute`, async () => {
    const now = Date.now();
    try {
      vi.useFakeTimers({ toFake: ['Date'] });
      // 5 s into a minute of its own, a day ahead: the real clock never reaches it while this file
      // runs, so the later tests' look-ups are never counted in its full minute.
      vi.setSystemTime(now - (now % 60_000) + 24 * 3600_000 + 5_000);
      await fsp.stop(); // nobody creates them meanwhile
      const urls = Array.from({ length: NOT_FOUND_EVENTS_PER_MINUTE + 1 }, (_, i) => `${s.openPaymentsUrl}/scan-${now}-${i}`);
      for (let i = 0; i < urls.length; i += 10) await Promise.all(urls.slice(i, i + 10).map(notFound));
      const told = await Promise.all(urls.map(async (url) => (await toldOf(url)).length));
      expect(told.filter((n) => n === 1)).toHaveLength(NOT_FOUND_EVENTS_PER_MINUTE);
      const untold = urls.filter((_, i) => told[i] === 0);
      expect(untold).toHaveLength(1);
      await notFound(untold[0]); // the same minute: still not told
      expect(await toldOf(untold[0])).toHaveLength(0);

      vi.setSystemTime(Date.now() + 60_000);
      await notFound(untold[0]);
      expect(await toldOf(untold[0])).toHaveLength(1);
      const another = urls.find((url) => url !== untold[0])!;
      await notFound(another); // told last minute, in its window still
      expect(await toldOf(another)).toHaveLength(1);
    } finally {
      vi.useRealTimers();
      fsp = await simulator();
    }
  });

  it('tells nothing of a URL no wallet address could have, nor of an unknown key set', async () => {
    for (const path of ['/quotes/x', '/-starts-badly', '/has%20space']) {
      const url = `${s.openPaymentsUrl}${path}`;
      expect((await fetch(url)).status, url).toBe(404);
      expect(await toldOf(url.toLowerCase()), url).toEqual([]);
    }
    const unknown = `${s.openPaymentsUrl}/keyless-${Date.now()}`;
    expect((await fetch(`${unknown}/jwks.json`)).status).toBe(404);
    expect(await toldOf(unknown)).toEqual([]);
  });

  it(`tells nothing of an address deeper than ${MAX_ADDRESS_SEGMENTS} path segments, which could never be made; one of ${MAX_ADDRESS_SEGMENTS} is told and made`, async () => {
    const deep = (n: number) => `${s.openPaymentsUrl}/deep-${Date.now()}${'/d'.repeat(n - 1)}`;
    for (const n of [MAX_ADDRESS_SEGMENTS + 1, 99, 150]) {
      const url = deep(n);
      await notFound(url);
      expect(await toldOf(url), `${n} segments`).toEqual([]);
    }
    const url = deep(MAX_ADDRESS_SEGMENTS);
    await notFound(url);
    expect((await toldOf(url)).map((o) => o.event.data)).toEqual([{ walletAddressUrl: url }]);
    const found = await waitFor('the simulator to create it, and the retried GET to find it', () => client.walletAddress.get({ url }).catch(() => undefined));
    expect(found).toMatchObject({ id: url });
  });
});

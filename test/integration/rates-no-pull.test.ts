import { afterAll, beforeAll, expect, it } from 'vitest';
import { startTestStack, type TestStack } from '../harness/stack';

let s: TestStack;
beforeAll(async () => {
  s = await startTestStack({ EXCHANGE_RATES_URL: '' });
});
afterAll(() => s.stop());

it('without EXCHANGE_RATES_URL, a missing pushed rate is rate_unavailable and says pull is not configured', async () => {
  const res = await s.admin('GET', '/rates?sourceAssetCode=USD&destinationAssetCode=EUR');
  expect(res.status).toBe(422);
  expect(res.body.code).toBe('rate_unavailable');
  expect(res.body.detail).toMatch(/No pushed rate for USD→EUR \(FSP-wide\).*EXCHANGE_RATES_URL is not set/);
  await s.admin('POST', '/rates', { sourceAssetCode: 'USD', destinationAssetCode: 'EUR', rate: 0.9 });
  expect((await s.admin('GET', '/rates?sourceAssetCode=USD&destinationAssetCode=EUR')).body).toMatchObject({ rate: 0.9, origin: 'pushed' });
});

import { describe, expect, it } from 'vitest';
import { loadService } from '../../infra/local/start/serverless-config';
import { nodeOf, readConfig as read, readRuntime } from '../../lib/platform/config-schema';
import { mayPeerPrivately, nodeFor } from '../../lib/shared/node';

const valid = {
  MAIN_TABLE: 'main',
  RATES_TABLE: 'rates',
  IDEMPOTENCY_TABLE: 'idem',
  EVENT_BUS_NAME: 'bus',
  AUDIT_BUCKET: 'audit',
  PAYMENTS_QUEUE_URL: 'http://localhost:9324/000000000000/payments',
  WEBHOOK_EVENTS_TABLE: 'hooks',
  WEBHOOK_QUEUE_URL: 'http://localhost:9324/000000000000/hooks',
  WEBHOOK_PARKING_QUEUE_URL: 'http://localhost:9324/000000000000/hooks-dlq',
  WALLET_ADDRESS_URL: 'https://wallet.example.com/',
  AUTH_SERVER_URL: 'https://auth.example.com',
  AUTH_TABLE: 'auth',
  ILP_ADDRESS: 'g.example.wallet',
};

describe('configuration', () => {
  it('applies the documented defaults', () => {
    const c = read(valid);
    expect(c.WALLET_ADDRESS_URL).toBe('https://wallet.example.com');
    expect(c.EXCHANGE_RATES_URL).toBeUndefined();
    expect([c.EXCHANGE_RATES_LIFETIME_SECS, c.EXCHANGE_RATES_TIMEOUT_SECS, c.EXCHANGE_RATES_REFRESH_BEFORE_SECS]).toEqual([3600, 10, 120]);
    expect(c.QUOTE_LIFETIME_SECS).toBe(300);
    expect(c.WEBHOOK_TIMEOUT_SECS).toBe(10);
    expect(c.WEBHOOK_RETRY_SCHEDULE_SECS).toEqual([5, 30, 300, 1800, 7200, 18000, 36000, 50400, 72000, 86400]);
    expect(c.ACCESS_TOKEN_EXPIRY_SECS).toBe(600);
    expect(c.GRANT_REQUESTS_PER_MINUTE).toBe(120);
    expect(c.SECRETS_PREFIX).toBe('');
    expect(c.ALLOW_PRIVATE_FETCH).toBe(false);
  });

  it('reads ALLOW_PRIVATE_FETCH as true or false, and nothing else', () => {
    for (const [v, want] of [
      ['true', true],
      ['1', true],
      ['false', false],
      ['0', false],
      ['', false],
    ] as const)
      expect(read({ ...valid, ALLOW_PRIVATE_FETCH: v }).ALLOW_PRIVATE_FETCH, v).toBe(want);
    expect(() => read({ ...valid, ALLOW_PRIVATE_FETCH: 'yes' })).toThrow(/ALLOW_PRIVATE_FETCH: must be true or false/);
  });

  // An FSP funds a payment before it answers payment.created (docs/webhooks.md). A funding cut off in
  // the middle (a crash, a timeout) holds its Idempotency-Key in progress for the rest of its
  // function's time, its timeout at most; every retry that comes meanwhile fails again (409, so the
  // FSP answers 503). From the failure of the attempt that took the lock (the first, or the first
  // retry), a retry must come past the lock, and long before the quote expires.
  it('retries a payment.created past the lock of a funding cut off in the middle, well before the quote expires', () => {
    const fund = loadService().functions.find((f) => f.name === 'paymentsFund')!;
    const c = read(valid);
    const schedule = c.WEBHOOK_RETRY_SCHEDULE_SECS;
    for (const from of [0, 1]) {
      const after = schedule.slice(from).map((_, i) => schedule.slice(from, from + i + 1).reduce((a, b) => a + b, 0));
      const past = after.find((t) => t >= fund.timeout + 5);
      expect(past, `retries ${after.join(', ')} s after the failure; the lock lasts up to ${fund.timeout} s`).toBeLessThanOrEqual(c.QUOTE_LIFETIME_SECS / 4);
    }
  });

  it("reads ALLOW_PRIVATE_PEERS as tenant ids or operator, and allows a tenant's peers inside only when it is named", () => {
    const tenant = '3f1c2b9e-8a47-4c51-9d0e-2b7a6f5e4d3c';
    const other = { id: '9a0b1c2d-3e4f-4a5b-8c6d-7e8f9a0b1c2d', walletAddressPrefix: 'https://w.example/o', ilpAddressSuffix: 'o' };
    const nodes = (setting?: string) => {
      const deployment = nodeOf(read({ ...valid, ALLOW_PRIVATE_PEERS: setting }));
      const of = (id: string) => mayPeerPrivately(nodeFor(deployment, { ...other, id }));
      return [mayPeerPrivately(deployment), of(tenant), of(other.id)];
    };
    expect(nodes()).toEqual([false, false, false]);
    expect(nodes('')).toEqual([false, false, false]);
    expect(nodes('operator')).toEqual([true, false, false]);
    expect(nodes(` ${tenant.toUpperCase()} ,`)).toEqual([false, true, false]);
    expect(nodes(`operator,${tenant}`)).toEqual([true, true, false]);
    for (const bad of ['all', '*', 'operator,acme'])
      expect(() => read({ ...valid, ALLOW_PRIVATE_PEERS: bad }), bad).toThrow(/ALLOW_PRIVATE_PEERS: must be tenant ids/);
  });

  it('fails naming each bad or missing variable', () => {
    const bad = { ...valid, EXCHANGE_RATES_TIMEOUT_SECS: 'soon', SLIPPAGE: '2', WEBHOOK_RETRY_SCHEDULE_SECS: '5,x' } as Record<string, string>;
    delete bad.MAIN_TABLE;
    expect(() => read(bad)).toThrow(/MAIN_TABLE[\s\S]*EXCHANGE_RATES_TIMEOUT_SECS[\s\S]*SLIPPAGE[\s\S]*WEBHOOK_RETRY_SCHEDULE_SECS/);
    expect(() => read({ ...valid, WALLET_ADDRESS_URL: 'ftp://x' })).toThrow(/WALLET_ADDRESS_URL/);
    expect(() => read({ ...valid, ILP_ADDRESS: 'node-a' })).toThrow(/ILP_ADDRESS: must be an ILP address/);
    expect(() => read({ ...valid, WEBHOOK_TIMEOUT_SECS: '30' })).toThrow(/WEBHOOK_TIMEOUT_SECS: must be at most 25/);
    for (const limit of ['0', '-5', '2.5', 'many', '1000001'])
      expect(() => read({ ...valid, GRANT_REQUESTS_PER_MINUTE: limit }), limit).toThrow(/GRANT_REQUESTS_PER_MINUTE/);
    expect(read({ ...valid, GRANT_REQUESTS_PER_MINUTE: '30' }).GRANT_REQUESTS_PER_MINUTE).toBe(30);
  });

  it('reads QUOTE_PRICING as ours (the default) or rafiki, onto the node, and nothing else', () => {
    expect(nodeOf(read(valid)).quotePricing).toBe('ours');
    expect(nodeOf(read({ ...valid, QUOTE_PRICING: '' })).quotePricing).toBe('ours');
    expect(nodeOf(read({ ...valid, QUOTE_PRICING: 'rafiki' })).quotePricing).toBe('rafiki');
    expect(() => read({ ...valid, QUOTE_PRICING: 'Rafiki' })).toThrow(/QUOTE_PRICING/);
  });

  it("reads the process's switches: TRACES_ENABLED is on unless false or 0, and any other value fails by name", () => {
    expect(readRuntime({}).TRACES_ENABLED).toBe(true);
    expect(readRuntime({ TRACES_ENABLED: '0' }).TRACES_ENABLED).toBe(false);
    expect(readRuntime({ AWS_LAMBDA_FUNCTION_NAME: 'f' })._HANDLER).toBe('handler');
    expect(() => readRuntime({ TRACES_ENABLED: 'maybe' })).toThrow(/TRACES_ENABLED: must be true or false/);
  });
});

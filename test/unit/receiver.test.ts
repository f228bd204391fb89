import { describe, expect, it } from 'vitest';
import { receiverFrom } from '../../lib/ilp/receiver';

// Another node's answer, as the Open Payments client hands it over (it does not validate it).
const url = 'https://other.example/incoming-payments/1';
const good = {
  id: url,
  completed: false,
  incomingAmount: { value: '500', assetCode: 'USD', assetScale: 2 },
  receivedAmount: { value: '100', assetCode: 'USD', assetScale: 2 },
  methods: [{ type: 'ilp', ilpAddress: 'test.other.abc', sharedSecret: Buffer.alloc(32, 1).toString('base64url') }],
};

describe('reading a remote incoming payment', () => {
  it('takes what it needs from a valid one', () => {
    expect(receiverFrom(url, good)).toMatchObject({
      state: 'open',
      asset: { code: 'USD', scale: 2 },
      incoming: 500n,
      received: 100n,
      ilpAddress: 'test.other.abc',
    });
    expect(receiverFrom(url, { ...good, methods: [] }).state).toBe('closed');
    expect(receiverFrom(url, { ...good, completed: true }).state).toBe('completed');
  });

  it('answers a malformed one with 502 receiver_invalid, not a TypeError', () => {
    for (const bad of [
      null,
      {},
      { ...good, receivedAmount: undefined },
      { ...good, receivedAmount: { value: '1.5', assetCode: 'USD', assetScale: 2 } },
      { ...good, incomingAmount: { value: 'x' } },
      { ...good, methods: 'ilp' },
      { ...good, completed: 'no' },
    ]) {
      expect(() => receiverFrom(url, bad), JSON.stringify(bad)).toThrow(expect.objectContaining({ status: 502, code: 'receiver_invalid' }));
    }
  });
});

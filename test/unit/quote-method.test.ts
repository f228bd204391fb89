import { describe, expect, it } from 'vitest';
import { methodFieldsOf, readAheadOf, withMethodFields } from '../../lib/quotes/method';

// How a quote or payment's payment method and its fields are read from what is stored, today's
// items and those from before `method` was stored.
const ilp = { peerId: 'p1', lowRate: ['9', '10'], highRate: ['9', '10'], minRate: ['89', '100'], maxPacketAmount: '1000' } as const;
const local = { intentId: 'i1', destinationAssetId: 'a1' };

describe('a stored payment method', () => {
  it('is read as stored: its name, and its fields under it', () => {
    expect(withMethodFields({ id: 'q', method: 'local', local })).toEqual({ id: 'q', method: 'local', local });
    expect(withMethodFields({ id: 'q', method: 'ilp', ilp })).toEqual({ id: 'q', method: 'ilp', ilp });
  });

  it('is read from the shape of an item stored before `method`: `ilp` is Interledger, an intent at the top is local', () => {
    expect(withMethodFields({ id: 'q', ilp })).toEqual({ id: 'q', method: 'ilp', ilp });
    expect(withMethodFields({ id: 'q', ...local })).toEqual({ id: 'q', method: 'local', local });
  });

  it('rides on the payment: its fields, and on its queue message what the worker reads ahead (a local payment: its intent)', () => {
    expect(methodFieldsOf({ method: 'local', local, id: 'q' } as never)).toEqual({ method: 'local', local });
    expect(readAheadOf({ method: 'local', local })).toEqual({ intentId: 'i1' });
    expect(readAheadOf({ method: 'ilp', ilp: ilp as never })).toEqual({});
  });
});

import { describe, expect, it } from 'vitest';
import { recordPage } from '../../console/kinds';

// The page the console links a record to, from its kind and id (an audit event's resource, a search's match).
describe("a record's page in the console", () => {
  it("is its kind's page with its id, or the list without one; a wallet address's key is on its wallet address's page", () => {
    const id = '3f5f0d2c-0000-4000-8000-000000000000';
    expect(recordPage('payment', id)).toBe(`#/payments/${id}`);
    expect(recordPage('asset', null)).toBe('#/assets');
    expect(recordPage('wallet-address-key', `${id}/keys/signing-1`)).toBe(`#/wallet-addresses/${id}`);
    expect(recordPage('tenant', id)).toBeUndefined();
    expect(recordPage('wallet-address-key', 'no-key-path')).toBeUndefined();
  });
});

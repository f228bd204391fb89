import { describe, expect, it } from 'vitest';
import { matches } from '../../infra/local/emulators/event-pattern';

const event = { source: 'payment-service', 'detail-type': 'payment.created', detail: { state: 'funding', tags: ['a', 'b'] } };

describe('event pattern matching (local EventBridge and event filters)', () => {
  it('matches exact values, prefixes, anything-but, exists and nested fields', () => {
    expect(matches({ source: ['payment-service'] }, event)).toBe(true);
    expect(matches({ source: ['other'] }, event)).toBe(false);
    expect(matches({ 'detail-type': [{ prefix: 'payment.' }] }, event)).toBe(true);
    expect(matches({ 'detail-type': [{ 'anything-but': ['payment.created'] }] }, event)).toBe(false);
    expect(matches({ detail: { state: ['funding', 'sending'] } }, event)).toBe(true);
    expect(matches({ detail: { missing: [{ exists: false }] } }, event)).toBe(true);
    expect(matches({ detail: { state: [{ exists: false }] } }, event)).toBe(false);
    expect(matches({ detail: { tags: ['b'] } }, event)).toBe(true);
    expect(matches({ source: ['payment-service'], detail: { state: ['completed'] } }, event)).toBe(false);
  });
});

import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { startTestStack, type TestStack } from '../harness/stack';

// Issue 28, item 7: grant requests were unthrottled (300 anonymous grants in 9 s). The template's
// WAF limits them per client address per 5 minutes (GRANT_RATE_LIMIT_PER_5MIN, a rate-based rule on
// the authorization server's POST at its root); the local gateway stands in for that rule.
const LIMIT = 10;
let s: TestStack;
beforeAll(async () => {
  s = await startTestStack({ GRANT_RATE_LIMIT_PER_5MIN: String(LIMIT) });
});
afterAll(() => s.stop());
afterEach(() => vi.useRealTimers());

// A grant request as an anonymous client sends one (its content does not matter to WAF).
const grant = () =>
  fetch(`${s.authServerUrl}/`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ access_token: { access: [{ type: 'incoming-payment', actions: ['create'] }] }, client: 'https://client.example/app' }),
  });

describe('grant requests from one address', () => {
  it(`are refused with 429 problem+json past ${LIMIT} in 5 minutes, and taken again once the window has moved on`, async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    for (let i = 0; i < LIMIT; i++) expect((await grant()).status, `request ${i + 1}`).not.toBe(429);
    const refused = await grant();
    expect(refused.status).toBe(429);
    expect(refused.headers.get('content-type')).toBe('application/problem+json');
    expect(await refused.json()).toMatchObject({ status: 429, code: 'too_many_requests' });
    // Only grant requests: the authorization server's other routes and the resource server go on.
    expect((await fetch(`${s.authServerUrl}/introspect`, { method: 'POST' })).status).toBe(404);
    expect((await fetch(`${s.openPaymentsUrl}/nobody`)).status).toBe(404);

    // Refused requests count too, as WAF counts them: still refused a minute on.
    vi.setSystemTime(Date.now() + 60_000);
    expect((await grant()).status).toBe(429);
    // Once the last 5 minutes hold no more than the limit, taken again.
    vi.setSystemTime(Date.now() + 5 * 60_000);
    expect((await grant()).status).not.toBe(429);
  });
});

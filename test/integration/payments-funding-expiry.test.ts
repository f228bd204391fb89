import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestStack } from '../harness/stack';
import { expectBalanced } from '../harness/withdrawals';
import { createFlow, ledger, ok, paymentIn, startPaymentsStack, type World, waitFor } from '../harness/world';
import type { WebhookReceiver } from '../servers/webhook-receiver';

// Payments left in funding past their quote's expiry (QUOTE_LIFETIME_SECS, 5 s on this stack), which
// can never be funded: the sweeper (the scheduled function, which the tests run) cancels them. The
// stack's webhook receiver answers payment.created without funding, as an FSP that left it. The
// sweeper's rule (cancelled once, quote_expired, a payment funded in time untouched) is
// test/unit/services/payments-funding-expiry.test.ts's, in memory; here a fund races it on DynamoDB.
const LIFETIME_SECS = 5;
let s: TestStack;
let w: World;
let events: WebhookReceiver;
let stop: () => Promise<void>;

beforeAll(async () => {
  ({ s, w, events, stop } = await startPaymentsStack({ settings: { QUOTE_LIFETIME_SECS: String(LIFETIME_SECS) } }));
});
afterAll(() => stop());

const sweep = () => s.invoke('paymentsExpire') as Promise<number>;
const until = (what: string, at: number) => waitFor(what, async () => (Date.now() >= at ? true : undefined), (LIFETIME_SECS + 10) * 1000, 1);
const paymentAccount = async (id: string) => (await ledger(s)).get(`payment:${id}`) ?? 0n;

describe('payments left in funding past their quote', () => {
  // The fund is sent a little before the quote expires (from 400 ms to none, about what a fund takes
  // to read the payment on a loaded machine), two sweeps just after: a fund that read the quote valid
  // races sweeps that read it expired (and each other), and the transition's condition on `funding`
  // lets one through. Which one wins a round varies; every round must end one way.
  it('a fund racing the sweeper at the expiry: exactly one wins, and the money moves once or not at all', async () => {
    for (const early of [400, 200, 100, 50, 0]) {
      const { quote, payment } = await createFlow(s, w.alice, w.bob, { value: '50', assetCode: 'USD' });
      const expiry = Date.parse(quote.expiresAt);
      await until('just before the expiry', expiry - early);
      const funding = s.admin('POST', `/payments/${payment.id}/fund`);
      await until('the expiry', expiry + 1);
      const [fund, ...swept] = await Promise.all([funding, sweep(), sweep()]);
      const cancels = swept.reduce((a, b) => a + b, 0);
      if (fund.status === 200) {
        expect(cancels).toBe(0);
        expect(await paymentIn(s, payment.id, ['completed'])).not.toHaveProperty('cancelReason');
        await events.waitForEvent('payment.funded', (d) => d.id === payment.id);
      } else {
        // Refused at its read of the quote (422) or at its commit (409): the sweeps cancel it once.
        expect(['422 quote_expired', '409 invalid_state']).toContain(`${fund.status} ${fund.body.code}`);
        expect(cancels).toBe(1);
        expect(await ok(s.admin('GET', `/payments/${payment.id}`), 200)).toMatchObject({ state: 'cancelled', cancelReason: 'quote_expired' });
        expect(await paymentAccount(payment.id)).toBe(0n);
        await events.waitForEvent('payment.cancelled', (d) => d.id === payment.id);
      }
      expect(events.seen.filter((e) => e.data.id === payment.id && ['payment.funded', 'payment.cancelled'].includes(e.type))).toHaveLength(1);
      await expectBalanced(s);
    }
  });
});

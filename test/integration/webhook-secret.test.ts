import { describe, expect, it } from 'vitest';
import { startTestStack } from '../harness/stack';
import { ok, waitFor } from '../harness/world';
import { startWebhookReceiver, TEST_WEBHOOK_SECRET } from '../servers/webhook-receiver';

// Secrets Manager generates WEBHOOK_SECRET as plain text, not in Standard Webhooks' whsec_ form:
// such a value is the key's bytes, so the FSP verifies with whsec_ + base64 of it (docs/webhooks.md).
describe('a WEBHOOK_SECRET not in whsec_ form', () => {
  it('signs with whsec_ + base64 of the value, which the FSP verifies', async () => {
    const receiver = await startWebhookReceiver(); // verifies with TEST_WEBHOOK_SECRET
    const raw = Buffer.from(TEST_WEBHOOK_SECRET.slice('whsec_'.length), 'base64').toString('utf8');
    const s = await startTestStack({ EXCHANGE_RATES_URL: '', WEBHOOK_URL: receiver.url, WEBHOOK_SECRET: raw });
    try {
      await ok(s.admin('POST', '/assets', { code: 'RAW', scale: 2 }));
      const wallet = (await ok(s.admin('POST', '/wallet-addresses', { address: `${s.openPaymentsUrl}/raw`, assetCode: 'RAW' }))).address;
      const intent = await ok(s.admin('POST', '/payment-intents', { walletAddress: wallet }));
      const delivery = await waitFor('the delivery', async () => receiver.deliveries.find((d) => d.event.data.id === intent.id));
      expect(delivery.verified).toBe(true);
    } finally {
      await s.stop();
      await receiver.stop();
    }
  });
});

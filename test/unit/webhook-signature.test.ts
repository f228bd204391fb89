import { Webhook } from 'standardwebhooks';
import { describe, expect, it } from 'vitest';
import { signerOf } from '../../lib/webhooks/deliver';

// The webhook sender signs on Node's crypto (lib/webhooks/deliver.ts): what it signs must be what
// the Standard Webhooks library signs, and verifies, for both forms a WEBHOOK_SECRET value takes.
describe("a webhook's signature", () => {
  it("is the Standard Webhooks library's, for a whsec_ value and for a value that is the key itself", () => {
    const at = new Date('2026-11-30T04:00:00.123Z');
    const body = JSON.stringify({ id: 'evt', type: 'payment.created', data: { amount: '1.00 €' } });
    const raw = 'a generated secret, any bytes: é ✓';
    for (const [value, library] of [
      ['whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw', 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw'],
      [raw, `whsec_${Buffer.from(raw).toString('base64')}`],
    ]) {
      const signature = signerOf(value)('msg_1', at, body);
      expect(signature).toBe(new Webhook(library).sign('msg_1', at, body));
      const headers = {
        'webhook-id': 'msg_1',
        'webhook-timestamp': String(Math.floor(Date.now() / 1000)),
        'webhook-signature': signerOf(value)('msg_1', new Date(), body),
      };
      expect(new Webhook(library).verify(body, headers)).toEqual(JSON.parse(body));
    }
  });
});

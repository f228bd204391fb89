import { CreateSecretCommand, DescribeSecretCommand, GetSecretValueCommand, RotateSecretCommand } from '@aws-sdk/client-secrets-manager';
import { Webhook } from 'standardwebhooks';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { type RotationEvent, rotationStep } from '../../../lib/platform/rotation';
import { acceptedSecrets, createTenantSecrets, PREVIOUS_ACCEPTED_SECS, type RotatedSecret, secret } from '../../../lib/platform/secrets';
import { nodeFor } from '../../../lib/shared/node';
import { standardRequest } from '../../../lib/webhooks/deliver';
import type { WebhookEvent } from '../../../lib/webhooks/schemas';
import { testNode } from '../../harness/in-memory';
import { inMemorySecrets } from '../../harness/in-memory-secrets';

// A rotation of each secret another party holds (lib/platform/rotation.ts), the deployment's and a
// tenant's, run by Secrets Manager's RotateSecret (the emulator's rules, in memory) through the
// rotation function's four steps, while the parties keep using it on a clock that moves 5 s a
// round: the one that switches at once (it reads AWSCURRENT for every request) and the one that
// has not switched yet are both accepted at every moment, by a function whose cached values are
// as stale as they can be (read just before the rotation began). A day after, only the new value
// is. The Admin API's and the consent page's secrets are checked as their checkers do (any value
// of acceptedSecrets); a webhook is signed as the sender does, and verified by each party.
// test/integration/secret-rotation.test.ts rotates on the wire, under requests to the running stack.
const ROUND_MS = 5000;
let finishWaited: number[] = [];
// The finish step's wait, on the test's clock: over when the rounds have moved the clock past it.
const clockWait = (ms: number) => {
  finishWaited.push(ms);
  const until = Date.now() + ms;
  return (async () => {
    while (Date.now() < until) await new Promise((resolve) => setImmediate(resolve));
  })();
};
// (`onlyStep`: the one step run, as AWS's test of a rotation's configuration runs testSecret alone.)
let onlyStep: RotationEvent['Step'] | undefined;
let stepErrors: string[] = [];
const secrets = inMemorySecrets(async (_arn, event) => {
  const e = event as RotationEvent;
  if (onlyStep && e.Step !== onlyStep) return;
  await rotationStep(e, clockWait).catch((error: Error) => {
    stepErrors.push(`${e.Step}: ${error.message}`);
    throw error;
  });
});

const deployment = testNode({
  SECRETS_PREFIX: 'payment-service/test/',
  TENANT_SECRETS_KMS_KEY_ARN: 'arn:aws:kms:us-east-1:000000000000:key/00000000-0000-4000-8000-00000000da7a',
  TENANT_SECRETS_ROTATION_ARN: 'arn:aws:lambda:us-east-1:000000000000:function:rotate',
  TENANT_SECRETS_READERS: 'arn:aws:iam::000000000000:role/payment-service/test/*',
});
const tenant = nodeFor(deployment, {
  id: '6f1c1a64-3c5a-4a43-9a1e-6c0d1f1a2b3c',
  walletAddressPrefix: 'https://wallet.example/acme',
  ilpAddressSuffix: 'tacme',
});

beforeEach(() => {
  vi.useFakeTimers({ toFake: ['Date'] });
  finishWaited = [];
  onlyStep = undefined;
  stepErrors = [];
});
afterEach(() => vi.useRealTimers());

const event: WebhookEvent = { id: 'a4a3e0a4-2f55-4a1c-8d1a-0e9c3f4b5a6d', type: 'asset.created', createdAt: '2026-11-29T00:00:00Z', data: {} } as WebhookEvent;

// Whether the service takes `value` from a party now: as its checker would.
async function accepted(node: typeof deployment, name: RotatedSecret, value: string): Promise<boolean> {
  if (name !== 'WEBHOOK_SECRET') return (await acceptedSecrets(node, name)).includes(value);
  const signed = await standardRequest(node, event, new Date());
  if (typeof signed === 'string') throw new Error(signed);
  try {
    new Webhook(value).verify(signed.body, signed.headers);
    return true;
  } catch {
    return false;
  }
}

describe.each([
  ['the deployment', deployment],
  ['a tenant', tenant],
])("%s's", (_, node) => {
  const idOf = (name: RotatedSecret) => (node.tenant.operator ? `${node.secretsPrefix}${name}` : `${node.secretsPrefix}tenants/${node.tenant.id}/${name}`);
  const currentOf = async (name: RotatedSecret) => (await secrets.client.send(new GetSecretValueCommand({ SecretId: idOf(name) }))).SecretString!;

  it.each(['ADMIN_API_SECRET', 'WEBHOOK_SECRET', 'IDP_SECRET'] as const)(
    '%s rotates with no refusal of either party, and the old value ends a day after',
    async (name) => {
      if (node.tenant.operator) {
        const first = name === 'WEBHOOK_SECRET' ? `whsec_${Buffer.alloc(32, 1).toString('base64')}` : 'the-first-value-of-this-secret';
        await secrets.client.send(new CreateSecretCommand({ Name: idOf(name), SecretString: first }));
      } else await createTenantSecrets(node, node.tenant.id);
      const old = await currentOf(name);
      expect(await accepted(node, name, old)).toBe(true); // the function's values, cached from now on

      await secrets.client.send(new RotateSecretCommand({ SecretId: idOf(name), RotationLambdaARN: 'arn:aws:lambda:us-east-1:000000000000:function:rotate' }));
      const refused: string[] = [];
      const rotating = async () => (await secrets.client.send(new DescribeSecretCommand({ SecretId: idOf(name) }))).LastRotatedDate === undefined;
      // Ten minutes of requests: the rotation's five, and as long again after it, while the values
      // functions cached before it finished are still in use.
      for (let round = 1; round <= 120; round++) {
        const now = await currentOf(name); // the party that switches at once
        if (!(await accepted(node, name, now))) refused.push(`round ${round}: the new value`);
        if (!(await accepted(node, name, old))) refused.push(`round ${round}: the old value`);
        vi.setSystemTime(Date.now() + ROUND_MS);
        await new Promise((resolve) => setImmediate(resolve)); // the rotation's turn
      }
      expect(await rotating()).toBe(false);
      const rotated = await currentOf(name);
      expect(rotated).not.toBe(old);
      expect(refused).toEqual([]);
      // It waited out the functions' cache (300 s) after making the new value, less the steps before.
      expect(finishWaited).toEqual([expect.toSatisfy((ms: number) => ms > 280_000 && ms <= 301_000)]);
      vi.setSystemTime(Date.now() + 300_000); // the cache's age: the new value is the one used first
      expect(await secret(node, name)).toBe(rotated);
      expect(await accepted(node, name, old)).toBe(true);

      vi.setSystemTime(Date.now() + PREVIOUS_ACCEPTED_SECS * 1000);
      expect(await accepted(node, name, rotated)).toBe(true);
      expect(await accepted(node, name, old)).toBe(false);
    },
  );
});

// RotateSecret without rotating at once (how a tenant's secrets get their schedule, and the
// deployment's with RotateImmediatelyOnUpdate: false) has AWS test the configuration: testSecret
// alone, on a new AWSPENDING version with no value, removed after. That test passes, and changes nothing.
it("takes AWS's test of a rotation's configuration: testSecret on a version with no value", async () => {
  await createTenantSecrets(tenant, tenant.tenant.id);
  const id = `${tenant.secretsPrefix}tenants/${tenant.tenant.id}/ADMIN_API_SECRET`;
  const before = (await secrets.client.send(new GetSecretValueCommand({ SecretId: id }))).SecretString;
  onlyStep = 'testSecret';
  await secrets.client.send(new RotateSecretCommand({ SecretId: id, RotationLambdaARN: 'arn:aws:lambda:us-east-1:000000000000:function:rotate' }));
  await vi.waitFor(async () => expect((await secrets.client.send(new DescribeSecretCommand({ SecretId: id }))).LastRotatedDate).toBeUndefined());
  for (let i = 0; i < 20; i++) await new Promise((resolve) => setImmediate(resolve)); // the steps' turns
  expect(stepErrors).toEqual([]);
  expect((await secrets.client.send(new GetSecretValueCommand({ SecretId: id }))).SecretString).toBe(before);
});

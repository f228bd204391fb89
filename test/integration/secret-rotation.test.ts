import { DescribeSecretCommand, GetSecretValueCommand, RotateSecretCommand, SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { LOCAL_CREDENTIALS, LOCAL_REGION } from '../../infra/local/emulators/emulators';
import { localFunctionArn } from '../../infra/local/emulators/lambda';
import { loadService } from '../../infra/local/start/serverless-config';
import { startTestStack, type TestStack, tenantAdmin } from '../harness/stack';
import { waitFor } from '../harness/wait';
import { ok } from '../harness/world';

// A rotation on the wire, under load: a tenant's Admin API secret rotated by Secrets Manager's
// RotateSecret (the emulator, which calls the rotation function's four steps on the local Lambda
// runtime, as AWS does), while two clients sign requests continuously, one switching to the new
// value the moment it is current, one still on the old: none gets a 401. The functions cache
// secrets 2 s here (LOCAL_SECRETS_CACHE_SECS; 300 on AWS), and the rotation's last step waits as
// long. Each secret's rotation, the webhook's signatures and the end of the old value's day are
// test/unit/services/secret-rotation.test.ts's.
let s: TestStack;
let secrets: SecretsManagerClient;
const CACHE_SECS = 2;

beforeAll(async () => {
  s = await startTestStack({ EXCHANGE_RATES_URL: '', LOCAL_SECRETS_CACHE_SECS: String(CACHE_SECS) });
  secrets = new SecretsManagerClient({ endpoint: s.endpoints.secretsmanager, region: LOCAL_REGION, credentials: LOCAL_CREDENTIALS });
});
afterAll(async () => {
  secrets?.destroy();
  await s?.stop();
});

it("a tenant's Admin API secret rotates under continuous signed requests with no 401", async () => {
  const tenant = await ok(s.admin('POST', '/tenants', { name: 'Rotating', walletAddressPrefix: `${s.openPaymentsUrl}/rotating/` }));
  const SecretId = `tenants/${tenant.id}/ADMIN_API_SECRET`;
  const current = async () => (await secrets.send(new GetSecretValueCommand({ SecretId }))).SecretString!;
  const old = tenant.adminApiSecret as string;

  const statuses: Record<'switching' | 'staying', number[]> = { switching: [], staying: [] };
  let running = true;
  const load = async (client: keyof typeof statuses) => {
    while (running) {
      const secret = client === 'switching' ? await current() : old;
      statuses[client].push((await tenantAdmin(s.adminUrl, tenant.id, secret)('GET', '/assets')).status);
    }
  };
  const clients = [load('switching'), load('staying')];
  try {
    await waitFor('requests before the rotation', async () => statuses.staying.length >= 5 || undefined);
    const rotator = loadService('local').functions.find((f) => f.handler === 'functions/secrets/rotate.handler')!;
    await secrets.send(new RotateSecretCommand({ SecretId, RotationLambdaARN: localFunctionArn(rotator) }));
    const rotatedAt = await waitFor('the rotation to finish', async () => (await secrets.send(new DescribeSecretCommand({ SecretId }))).LastRotatedDate);
    expect(await current()).not.toBe(old);
    // As long again as the functions cache a secret: those read before the rotation finished are replaced.
    const after = statuses.switching.length;
    await waitFor(
      'requests after the rotation',
      async () => (Date.now() > rotatedAt.getTime() + 2 * CACHE_SECS * 1000 + 1000 && statuses.switching.length > after + 5) || undefined,
    );
  } finally {
    running = false;
    await Promise.all(clients);
  }
  expect(statuses.switching.filter((st) => st !== 200)).toEqual([]);
  expect(statuses.staying.filter((st) => st !== 200)).toEqual([]);
  expect(statuses.switching.length + statuses.staying.length).toBeGreaterThan(30);
});

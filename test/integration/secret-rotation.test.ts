import {
  DescribeSecretCommand,
  GetResourcePolicyCommand,
  GetSecretValueCommand,
  RotateSecretCommand,
  SecretsManagerClient,
} from '@aws-sdk/client-secrets-manager';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { LOCAL_CREDENTIALS, LOCAL_REGION } from '../../infra/local/emulators/emulators';
import { localFunctionArn } from '../../infra/local/emulators/lambda';
import { loadService } from '../../infra/local/start/serverless-config';
import { ROTATION_HANDLER } from '../../infra/local/start/stack';
import { ROTATION_SCHEDULE, TENANT_SECRETS } from '../../lib/platform/secrets';
import { startTestStack, type TestStack, tenantAdmin } from '../harness/stack';
import { waitFor } from '../harness/wait';
import { ok } from '../harness/world';

// A tenant's secrets as POST /tenants makes them: on the data key, behind a resource policy, and
// rotated by the rotation function on the deployment's schedule. A rotation on the wire, under
// load: a tenant's Admin API secret rotated by Secrets Manager's RotateSecret with the function its
// creation scheduled (the emulator, which calls the rotation function's four steps on the local Lambda
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

const rotator = () => localFunctionArn(loadService('local').functions.find((f) => f.handler === ROTATION_HANDLER)!);

it("a tenant's secrets are made on the data key, readable by the service's and the break-glass roles only, and rotated on the schedule", async () => {
  const tenant = await ok(s.admin('POST', '/tenants', { name: 'Kept', walletAddressPrefix: `${s.openPaymentsUrl}/kept/` }));
  for (const name of TENANT_SECRETS) {
    const SecretId = `tenants/${tenant.id}/${name}`;
    expect(await secrets.send(new DescribeSecretCommand({ SecretId })), name).toMatchObject({
      KmsKeyId: process.env.TENANT_SECRETS_KMS_KEY_ARN,
      RotationEnabled: true,
      RotationLambdaARN: rotator(),
      RotationRules: { ScheduleExpression: ROTATION_SCHEDULE },
    });
    const policy = JSON.parse((await secrets.send(new GetResourcePolicyCommand({ SecretId }))).ResourcePolicy!);
    expect(policy.Statement, name).toMatchObject([
      {
        Effect: 'Deny',
        Principal: '*',
        Action: expect.arrayContaining(['secretsmanager:GetSecretValue']),
        Condition: { ArnNotLike: { 'aws:PrincipalArn': [expect.stringMatching(/:role\/payment-service\/local\/\*$/)] } },
      },
    ]);
  }
  expect(process.env.TENANT_SECRETS_KMS_KEY_ARN).toMatch(/^arn:aws:kms:/);
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
    // (By the function its creation scheduled.)
    await secrets.send(new RotateSecretCommand({ SecretId }));
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

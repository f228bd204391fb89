import { createHash, randomBytes } from 'node:crypto';
import {
  CreateSecretCommand,
  DeleteSecretCommand,
  GetSecretValueCommand,
  PutResourcePolicyCommand,
  RotateSecretCommand,
  SecretsManagerClient,
} from '@aws-sdk/client-secrets-manager';
import type { Node } from '../shared/node';
import { counted } from './aws';
import { localSecret, secretsCacheSecs } from './runtime';

// Secrets. On AWS they live in Secrets Manager under SECRETS_PREFIX (infra/resources.yml generates
// them at the first deploy, and the rotation function, ./rotation.ts, makes new values on a
// schedule), and are read with their versions' staging labels, cached for five minutes
// (secretsCacheSecs); no value is in the template or a function's environment, and each function's
// role reads only its own. What checks a value the other party sends (the Admin API's signature,
// x-idp-secret) accepts every value of `acceptedSecrets`: the current one, the one a rotation is
// making (AWSPENDING), and for a day after a rotation the one before (AWSPREVIOUS), so that
// neither the party that switched at once nor one still on the old value is refused.
// Locally SECRETS_PREFIX is empty and the same code reads the environment variable of the same
// name, which the local stack sets. A tenant's own secrets (TENANT_SECRETS) are made at run time,
// so they are always in Secrets Manager, under `<SECRETS_PREFIX>tenants/<tenant id>/`, locally
// too (the local stack's emulator), each on the deployment's data key, behind a resource policy
// and rotated as the deployment's are (createTenantSecrets); the others stay the deployment's, for
// every tenant.
// IDP_SECRET: what the FSP's consent page (the identity provider) sends as x-idp-secret.
export type SecretName = 'ADMIN_API_SECRET' | 'WEBHOOK_SECRET' | 'STREAM_SECRET' | 'OPEN_PAYMENTS_CLIENT_SECRET' | 'IDP_SECRET';
export const TENANT_SECRETS = ['ADMIN_API_SECRET', 'WEBHOOK_SECRET', 'IDP_SECRET'] as const satisfies SecretName[];
type TenantSecretName = (typeof TENANT_SECRETS)[number];
// The secrets another party holds, which ./rotation.ts rotates: a tenant's, and the deployment's of the same names.
export type RotatedSecret = TenantSecretName;
export const isRotated = (name: string): name is RotatedSecret => (TENANT_SECRETS as readonly string[]).includes(name);
// How long after a rotation (the current value's making) the previous value is still accepted.
export const PREVIOUS_ACCEPTED_SECS = 24 * 3600;
export const STAGES = { current: 'AWSCURRENT', pending: 'AWSPENDING', previous: 'AWSPREVIOUS' } as const;
// What AWS keeps a secret scheduled for deletion: it can be restored meanwhile.
const RECOVERY_WINDOW_DAYS = 7;

type SecretsNode = Pick<Node, 'secretsPrefix' | 'tenant'>;
const tenantSecretId = (node: Pick<Node, 'secretsPrefix'>, tenantId: string, name: TenantSecretName) => `${node.secretsPrefix}tenants/${tenantId}/${name}`;

// The one Secrets Manager client of this container, created on first use, which every call below
// reaches through secretsManager(), as the stores reach DynamoDB through db(): a test may put an
// in-memory Secrets Manager in its place (`useSecretsManager(memorySecretsManager())`,
// test/harness/in-memory-secrets.ts), which production code never imports.
let client: SecretsManagerClient | undefined;
let chosen: SecretsManagerClient | undefined;
const aws = () => (client ??= counted(new SecretsManagerClient({}), 'SecretsManager'));
export const secretsManager = () => chosen ?? aws();

// A secret's values as last read, by its id: when, and the values (current first).
const cache = new Map<string, { at: number; values: Promise<string[]> }>();

// The Secrets Manager of this process from now on (undefined: AWS's again), read afresh: nothing
// cached from the one before.
export function useSecretsManager(secrets: SecretsManagerClient | undefined): void {
  chosen = secrets;
  cache.clear();
}

// One version of a secret by its staging label; none if no version has it.
export async function secretVersion(id: string, stage: string): Promise<{ id: string; value: string; created: number } | undefined> {
  try {
    const v = await secretsManager().send(new GetSecretValueCommand({ SecretId: id, VersionStage: stage }));
    if (!v.SecretString || !v.VersionId) throw new Error(`Secret ${id} (${stage}) is empty or not text`);
    return { id: v.VersionId, value: v.SecretString, created: v.CreatedDate?.getTime() ?? 0 };
  } catch (e) {
    if ((e as Error).name === 'ResourceNotFoundException' && stage !== STAGES.current) return undefined;
    throw e;
  }
}

// The values to accept, current first: of a rotated secret 2 reads (3 within a day of a rotation);
// of any other (STREAM_SECRET, OPEN_PAYMENTS_CLIENT_SECRET: never rotated) its current value alone.
async function readValues(id: string, rotated: boolean): Promise<string[]> {
  if (!rotated) {
    const current = await secretVersion(id, STAGES.current);
    if (!current) throw new Error(`Secret ${id} has no current value`);
    return [current.value];
  }
  const [current, pending] = await Promise.all([secretVersion(id, STAGES.current), secretVersion(id, STAGES.pending)]);
  if (!current) throw new Error(`Secret ${id} has no current value`);
  const recent = Date.now() - current.created < PREVIOUS_ACCEPTED_SECS * 1000;
  const previous = recent ? await secretVersion(id, STAGES.previous) : undefined;
  return [...new Set([current.value, pending?.value, previous?.value].filter((v): v is string => !!v))];
}

function valuesOf(id: string, rotated: boolean): Promise<string[]> {
  const hit = cache.get(id);
  if (hit && Date.now() - hit.at < secretsCacheSecs() * 1000) return hit.values;
  const entry = { at: Date.now(), values: readValues(id, rotated) };
  cache.set(id, entry);
  entry.values.catch(() => cache.get(id) === entry && cache.delete(id)); // a failed read is not kept
  return entry.values;
}

// A secret of the node: its tenant's own, or the deployment's (under its secretsPrefix), its
// values to accept, current first (locally, from the environment, only that one). Only the code
// that needs one imports this, so that only its functions bundle the Secrets Manager client.
export async function acceptedSecrets(node: SecretsNode, name: SecretName): Promise<string[]> {
  if (!node.tenant.operator && isRotated(name)) return valuesOf(tenantSecretId(node, node.tenant.id, name), true);
  const prefix = node.secretsPrefix;
  if (!prefix) {
    const value = localSecret(name);
    if (!value) throw new Error(`${name} is not set, and SECRETS_PREFIX is empty`);
    return [value];
  }
  return valuesOf(`${prefix}${name}`, isRotated(name));
}

// The value to use (to sign, or to derive a key from): the current one.
export const secret = async (node: SecretsNode, name: SecretName): Promise<string> => (await acceptedSecrets(node, name))[0];

// A secret that may be left unset (locally, where it comes from the environment): undefined then.
// One in Secrets Manager is always set (made at deploy, or with its tenant): a failed read throws.
export async function secretIfSet(node: SecretsNode, name: SecretName): Promise<string | undefined> {
  const local = !node.secretsPrefix && (node.tenant.operator || !isRotated(name));
  return local && !localSecret(name) ? undefined : secret(node, name);
}

// A 32-byte key derived from a secret for one purpose, so that one secret can key several things.
export const derivedKey = async (node: SecretsNode, name: SecretName, purpose: string): Promise<Buffer> =>
  createHash('sha256')
    .update(`${purpose}\n`)
    .update(await secret(node, name))
    .digest();

// A new value: 32 random bytes (base64url; the webhook secret in Standard Webhooks' `whsec_` form).
export const newSecretValue = (name: RotatedSecret): string =>
  name === 'WEBHOOK_SECRET' ? `whsec_${randomBytes(32).toString('base64')}` : randomBytes(32).toString('base64url');
const WHSEC = /^whsec_[A-Za-z0-9+/]+={0,2}$/;
// A value the service takes for the secret: the Admin API's at least 16 characters (lib/api/http/signer.ts),
// a webhook secret in `whsec_` form well formed (lib/webhooks/deliver.ts).
export const validSecretValue = (name: RotatedSecret, value: string): boolean =>
  name === 'ADMIN_API_SECRET' ? value.length >= 16 : name === 'WEBHOOK_SECRET' ? WHSEC.test(value) || !value.startsWith('whsec_') : value.length > 0;

// How often a rotated secret rotates: the deployment's (infra/resources.yml) and a tenant's alike.
export const ROTATION_SCHEDULE = 'rate(30 days)';

// A tenant's secret's resource policy: no principal but those `readers` names (ARN patterns: the
// service's roles, the break-glass ones) reads its value or changes the policy, whatever its IAM
// policies allow.
export const tenantSecretPolicy = (readers: string[]): string =>
  JSON.stringify({
    Version: '2012-10-17',
    Statement: [
      {
        Sid: 'OnlyTheServiceAndBreakGlassRoles',
        Effect: 'Deny',
        Principal: '*',
        Action: ['secretsmanager:GetSecretValue', 'secretsmanager:PutResourcePolicy', 'secretsmanager:DeleteResourcePolicy'],
        Resource: '*',
        Condition: { ArnNotLike: { 'aws:PrincipalArn': readers } },
      },
    ],
  });

// A new tenant's secrets, made in Secrets Manager; answered once, to be shown once. Each as the
// deployment's are (node.tenantSecrets): encrypted with its data key, behind its resource policy,
// rotated by its rotation function on its schedule, from the next one on (now would replace the
// value answered). On AWS (a SECRETS_PREFIX) none is made without all three. A call that fails
// fails the whole: the caller deletes what was made (lib/tenants createTenant).
export async function createTenantSecrets(base: Pick<Node, 'secretsPrefix' | 'tenantSecrets'>, tenantId: string): Promise<Record<TenantSecretName, string>> {
  const { kmsKeyArn, rotationArn, readers } = base.tenantSecrets;
  if (base.secretsPrefix && !(kmsKeyArn && rotationArn && readers.length))
    throw new Error("A tenant's secrets are made with TENANT_SECRETS_KMS_KEY_ARN, TENANT_SECRETS_ROTATION_ARN and TENANT_SECRETS_READERS: one is not set");
  const values = Object.fromEntries(TENANT_SECRETS.map((name) => [name, newSecretValue(name)])) as Record<TenantSecretName, string>;
  const sm = secretsManager();
  await Promise.all(
    TENANT_SECRETS.map(async (name) => {
      const SecretId = tenantSecretId(base, tenantId, name);
      await sm.send(
        new CreateSecretCommand({
          Name: SecretId,
          SecretString: values[name],
          Description: `Tenant ${tenantId}: ${name}`,
          ...(kmsKeyArn && { KmsKeyId: kmsKeyArn }),
        }),
      );
      if (readers.length) await sm.send(new PutResourcePolicyCommand({ SecretId, ResourcePolicy: tenantSecretPolicy(readers), BlockPublicPolicy: true }));
      if (rotationArn)
        await sm.send(
          new RotateSecretCommand({
            SecretId,
            RotationLambdaARN: rotationArn,
            RotationRules: { ScheduleExpression: ROTATION_SCHEDULE },
            RotateImmediately: false,
          }),
        );
    }),
  );
  return values;
}

// A tenant's secrets deleted: after the recovery window, or at once (`now`: never shown to
// anyone, as those of a tenant that could not be made). Secrets already gone or scheduled are left
// as they are, so that a retry is safe.
export async function deleteTenantSecrets(base: Pick<Node, 'secretsPrefix'>, tenantId: string, now = false): Promise<void> {
  const window = now ? { ForceDeleteWithoutRecovery: true } : { RecoveryWindowInDays: RECOVERY_WINDOW_DAYS };
  await Promise.all(
    TENANT_SECRETS.map((name) =>
      secretsManager()
        .send(new DeleteSecretCommand({ SecretId: tenantSecretId(base, tenantId, name), ...window }))
        .catch((e: Error) => {
          if (e.name !== 'ResourceNotFoundException' && e.name !== 'InvalidRequestException') throw e;
        }),
    ),
  );
}

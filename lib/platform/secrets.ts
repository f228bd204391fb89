import { createHash, randomBytes } from 'node:crypto';
import { SecretsProvider } from '@aws-lambda-powertools/parameters/secrets';
import { CreateSecretCommand, DeleteSecretCommand, SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import type { Node } from '../shared/node';
import { counted } from './aws';
import { localSecret } from './runtime';

// Secrets. On AWS they live in Secrets Manager under SECRETS_PREFIX (infra/resources.yml generates
// them at the first deploy; an FSP may put its own values), and are read with Powertools
// Parameters, cached for five minutes (so a changed value is used within five minutes); no value
// is in the template or a function's environment, and each function's role reads only its own.
// Locally SECRETS_PREFIX is empty and the same code reads the environment variable of the same
// name, which the local stack sets. A tenant's own secrets (TENANT_SECRETS) are made at run time,
// so they are always in Secrets Manager, under `<SECRETS_PREFIX>tenants/<tenant id>/`, locally
// too (the local stack's emulator); the others stay the deployment's, for every tenant.
// IDP_SECRET: what the FSP's consent page (the identity provider) sends as x-idp-secret.
export type SecretName = 'ADMIN_API_SECRET' | 'WEBHOOK_SECRET' | 'STREAM_SECRET' | 'OPEN_PAYMENTS_CLIENT_SECRET' | 'IDP_SECRET';
export const TENANT_SECRETS = ['ADMIN_API_SECRET', 'WEBHOOK_SECRET', 'IDP_SECRET'] as const satisfies SecretName[];
type TenantSecretName = (typeof TENANT_SECRETS)[number];
const MAX_AGE_SECS = 300;
// What AWS keeps a secret scheduled for deletion: it can be restored meanwhile.
const RECOVERY_WINDOW_DAYS = 7;

type SecretsNode = Pick<Node, 'secretsPrefix' | 'tenant'>;
const isTenantSecret = (name: SecretName): name is TenantSecretName => (TENANT_SECRETS as readonly string[]).includes(name);
const tenantSecretId = (node: Pick<Node, 'secretsPrefix'>, tenantId: string, name: TenantSecretName) => `${node.secretsPrefix}tenants/${tenantId}/${name}`;

// The one Secrets Manager client of this container, created on first use, which every call below
// reaches through secretsManager(), as the stores reach DynamoDB through db(): a test may put an
// in-memory Secrets Manager in its place (`useSecretsManager(memorySecretsManager())`,
// test/harness/in-memory-secrets.ts), which production code never imports.
let client: SecretsManagerClient | undefined;
let chosen: SecretsManagerClient | undefined;
let provider: SecretsProvider | undefined;
const aws = () => (client ??= counted(new SecretsManagerClient({}), 'SecretsManager'));
const secretsManager = () => chosen ?? aws();

// The Secrets Manager of this process from now on (undefined: AWS's again), read afresh: nothing
// cached from the one before.
export function useSecretsManager(secrets: SecretsManagerClient | undefined): void {
  chosen = secrets;
  provider = undefined;
}

async function fromSecretsManager(id: string): Promise<string> {
  provider ??= new SecretsProvider({ awsSdkV3Client: secretsManager() });
  const value = await provider.get(id, { maxAge: MAX_AGE_SECS });
  if (typeof value !== 'string' || !value) throw new Error(`Secret ${id} is empty or not text`);
  return value;
}

// A secret of the node: its tenant's own, or the deployment's (under its secretsPrefix). Only
// the code that needs one imports this, so that only its functions bundle the Secrets Manager client.
export async function secret(node: SecretsNode, name: SecretName): Promise<string> {
  if (!node.tenant.operator && isTenantSecret(name)) return fromSecretsManager(tenantSecretId(node, node.tenant.id, name));
  const prefix = node.secretsPrefix;
  if (!prefix) {
    const value = localSecret(name);
    if (!value) throw new Error(`${name} is not set, and SECRETS_PREFIX is empty`);
    return value;
  }
  return fromSecretsManager(`${prefix}${name}`);
}

// A secret that may be left unset (locally, where it comes from the environment): undefined then.
// One in Secrets Manager is always set (made at deploy, or with its tenant): a failed read throws.
export async function secretIfSet(node: SecretsNode, name: SecretName): Promise<string | undefined> {
  const local = !node.secretsPrefix && (node.tenant.operator || !isTenantSecret(name));
  return local && !localSecret(name) ? undefined : secret(node, name);
}

// A 32-byte key derived from a secret for one purpose, so that one secret can key several things.
export const derivedKey = async (node: SecretsNode, name: SecretName, purpose: string): Promise<Buffer> =>
  createHash('sha256')
    .update(`${purpose}\n`)
    .update(await secret(node, name))
    .digest();

// A new tenant's secrets, each 32 random bytes (base64url; the webhook secret in Standard
// Webhooks' `whsec_` form), made in Secrets Manager; answered once, to be shown once.
export async function createTenantSecrets(base: Pick<Node, 'secretsPrefix'>, tenantId: string): Promise<Record<TenantSecretName, string>> {
  const values: Record<TenantSecretName, string> = {
    ADMIN_API_SECRET: randomBytes(32).toString('base64url'),
    WEBHOOK_SECRET: `whsec_${randomBytes(32).toString('base64')}`,
    IDP_SECRET: randomBytes(32).toString('base64url'),
  };
  await Promise.all(
    TENANT_SECRETS.map((name) =>
      secretsManager().send(
        new CreateSecretCommand({ Name: tenantSecretId(base, tenantId, name), SecretString: values[name], Description: `Tenant ${tenantId}: ${name}` }),
      ),
    ),
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

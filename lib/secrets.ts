import { createHash } from 'node:crypto';
import { SecretsProvider } from '@aws-lambda-powertools/parameters/secrets';
import { SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { counted } from './aws';
import type { Node } from './node';
import { localSecret } from './runtime';

// Secrets. On AWS they live in Secrets Manager under SECRETS_PREFIX (infra/resources.yml generates
// them at the first deploy; an FSP may put its own values), and are read with Powertools
// Parameters, cached for five minutes (so a changed value is used within five minutes); no value
// is in the template or a function's environment, and each function's role reads only its own. Locally SECRETS_PREFIX is empty and the same code reads the
// environment variable of the same name, which the local stack sets.
// IDP_SECRET: what the FSP's consent page (the identity provider) sends as x-idp-secret.
export type SecretName = 'ADMIN_API_SECRET' | 'WEBHOOK_SECRET' | 'STREAM_SECRET' | 'OPEN_PAYMENTS_CLIENT_SECRET' | 'IDP_SECRET';
const MAX_AGE_SECS = 300;

let provider: SecretsProvider | undefined;

// A secret of the node (under its secretsPrefix). Only the code that needs one imports this, so
// that only its functions bundle the Secrets Manager client.
export async function secret(node: Pick<Node, 'secretsPrefix'>, name: SecretName): Promise<string> {
  const prefix = node.secretsPrefix;
  if (!prefix) {
    const value = localSecret(name);
    if (!value) throw new Error(`${name} is not set, and SECRETS_PREFIX is empty`);
    return value;
  }
  provider ??= new SecretsProvider({ awsSdkV3Client: counted(new SecretsManagerClient({}), 'SecretsManager') });
  const value = await provider.get(`${prefix}${name}`, { maxAge: MAX_AGE_SECS });
  if (typeof value !== 'string' || !value) throw new Error(`Secret ${prefix}${name} is empty or not text`);
  return value;
}

// A 32-byte key derived from a secret for one purpose, so that one secret can key several things.
export const derivedKey = async (node: Pick<Node, 'secretsPrefix'>, name: SecretName, purpose: string): Promise<Buffer> =>
  createHash('sha256')
    .update(`${purpose}\n`)
    .update(await secret(node, name))
    .digest();

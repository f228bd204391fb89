import { createHash } from 'node:crypto';
import { SecretsProvider } from '@aws-lambda-powertools/parameters/secrets';
import { SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { counted } from './aws';

// Secrets. On AWS they live in Secrets Manager under SECRETS_PREFIX (infra/resources.yml generates
// them at the first deploy; an FSP may put its own values), and are read with Powertools
// Parameters, cached for five minutes (so a changed value is used within five minutes); no value
// is in the template or a function's environment, and each function's role reads only its own. Locally SECRETS_PREFIX is empty and the same code reads the
// environment variable of the same name, which the local stack sets.
export type SecretName = 'ADMIN_API_SECRET' | 'WEBHOOK_SECRET' | 'STREAM_SECRET' | 'OPEN_PAYMENTS_CLIENT_SECRET';
const MAX_AGE_SECS = 300;

let provider: SecretsProvider | undefined;

// The accessor of the secrets under `prefix` (the node's; lib/node.ts).
export const secretsUnder =
  (prefix: string) =>
  async (name: SecretName): Promise<string> => {
    if (!prefix) {
      const value = process.env[name];
      if (!value) throw new Error(`${name} is not set, and SECRETS_PREFIX is empty`);
      return value;
    }
    provider ??= new SecretsProvider({ awsSdkV3Client: counted(new SecretsManagerClient({}), 'SecretsManager') });
    const value = await provider.get(`${prefix}${name}`, { maxAge: MAX_AGE_SECS });
    if (typeof value !== 'string' || !value) throw new Error(`Secret ${prefix}${name} is empty or not text`);
    return value;
  };

// A 32-byte key derived from a secret for one purpose, so that one secret can key several things.
export const derivedKey = async (secret: (name: SecretName) => Promise<string>, name: SecretName, purpose: string): Promise<Buffer> =>
  createHash('sha256')
    .update(`${purpose}\n`)
    .update(await secret(name))
    .digest();

import { randomBytes } from 'node:crypto';
import { acceptedSecrets, validSecretValue } from '../../platform/secrets';
import type { Node } from '../../shared/node';
import { deployment } from '../context';
import { httpErrors } from './errors';
import type { Verification } from './signature';

// Who signed an Admin API request, whichever signature form its API takes (the REST routes' v3,
// ./signature.ts; /graphql's Rafiki form, ./rafiki-signature.ts): its tenant with the tenant's
// secret (the tenant-id header; none is the operator's), or the operator with its own, which may act
// for any active tenant (the console shows a tenant's data so). An unknown or deleted tenant's is
// checked against a secret nobody has, so that it is refused as a wrong signature is (missing,
// malformed and stale ones alike), and the answer says nothing of whether the tenant exists.
// During a rotation a secret has more than one value to accept (lib/platform/secrets.ts): any one
// signs; the refusal is the current value's.

async function adminSecrets(tenant: Node): Promise<string[]> {
  const values = await acceptedSecrets(tenant, 'ADMIN_API_SECRET');
  if (!validSecretValue('ADMIN_API_SECRET', values[0])) throw new Error('ADMIN_API_SECRET must be at least 16 characters');
  return values;
}

const NOBODYS_SECRET = randomBytes(32).toString('hex');

function verifiedByAny(secrets: string[], verify: (secret: string) => Verification): Verification {
  const first = verify(secrets[0]);
  return first.ok
    ? first
    : (secrets
        .slice(1)
        .map(verify)
        .find((r) => r.ok) ?? first);
}

// `verify` checks the request's signature with a secret; a refusal is 401 with its reason.
// `signer`: the tenant whose secret it was (the operator's id for the operator's), for the audit trail.
export async function signedFor(tenant: Node | undefined, verify: (secret: string) => Verification): Promise<{ t: number; mac: string; signer: string }> {
  let result = verifiedByAny(tenant ? await adminSecrets(tenant) : [NOBODYS_SECRET], verify);
  let signer = tenant?.tenant.id;
  if (!result.ok && tenant && !tenant.tenant.operator) {
    const byOperator = verifiedByAny(await adminSecrets(deployment), verify);
    if (byOperator.ok) [result, signer] = [byOperator, deployment.tenant.id];
  }
  if (!result.ok) throw httpErrors.unauthorized(result.reason);
  if (!tenant || !signer) throw new Error('A signature matched a secret nobody has');
  return { ...result, signer };
}

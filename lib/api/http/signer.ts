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

// The current value must be good (a deploy's fault, not the caller's, if not); a malformed pending or
// previous one (put by hand) is left out.
async function adminSecrets(tenant: Node): Promise<string[]> {
  const [current, ...others] = await acceptedSecrets(tenant, 'ADMIN_API_SECRET');
  if (!validSecretValue('ADMIN_API_SECRET', current)) throw new Error('ADMIN_API_SECRET must be at least 16 characters');
  return [current, ...others.filter((v) => validSecretValue('ADMIN_API_SECRET', v))];
}

const NOBODYS_SECRET = randomBytes(32).toString('hex');

const verifiedByAny = (secrets: string[], verify: (secret: string) => Verification): Verification => {
  const results = secrets.map(verify);
  return results.find((r) => r.ok) ?? results[0];
};

// `verify` checks the request's signature with a secret; a refusal is 401 with its reason.
// `signer`: the tenant whose secret it was (the operator's id for the operator's), for the audit trail.
export async function signedFor(tenant: Node | undefined, verify: (secret: string) => Verification): Promise<{ t: number; mac: string; signer: string }> {
  if (!tenant) {
    const refused = verify(NOBODYS_SECRET);
    throw httpErrors.unauthorized(refused.ok ? 'The signature does not match' : refused.reason);
  }
  let result = verifiedByAny(await adminSecrets(tenant), verify);
  let signer = tenant.tenant.id;
  if (!result.ok && !tenant.tenant.operator) {
    const byOperator = verifiedByAny(await adminSecrets(deployment), verify);
    if (byOperator.ok) [result, signer] = [byOperator, deployment.tenant.id];
  }
  if (!result.ok) throw httpErrors.unauthorized(result.reason);
  return { ...result, signer };
}

import { createHash, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { SignatureV4 } from '@smithy/signature-v4';
import { Sha256 } from '../../../lib/platform/sigv4';
import { LOCAL_CREDENTIALS, LOCAL_REGION } from './emulators';

// IAM's check of a request, as the local gateway makes it for an AWS_IAM route and the local
// Secrets Manager for every call: the request must be signed with SigV4 for the service (execute-api
// by default) in the local region by the credentials the node's functions hold
// (LOCAL_CREDENTIALS, as IAM knows a role's keys), within 5 minutes of now, over its method, path,
// query, signed headers (host and x-amz-date among them) and body. So a local test catches a caller
// that does not sign, or signs wrong. (Which principal may call which route, the policy half of
// IAM, has nothing to tell apart locally: every function holds the same credentials.)
const AUTHORIZATION =
  /^AWS4-HMAC-SHA256 Credential=([^/\s]+)\/(\d{8})\/([^/\s]+)\/([^/\s]+)\/aws4_request, ?SignedHeaders=([a-z0-9;-]+), ?Signature=([0-9a-f]{64})$/;
const AMZ_DATE = /^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})Z$/;
const MAX_SKEW_MS = 5 * 60 * 1000;

const verifiers = new Map<string, SignatureV4>();
const verifierOf = (service: string) => {
  let verifier = verifiers.get(service);
  if (!verifier) {
    verifier = new SignatureV4({ service, region: LOCAL_REGION, credentials: LOCAL_CREDENTIALS, sha256: Sha256, applyChecksum: false });
    verifiers.set(service, verifier);
  }
  return verifier;
};

// Undefined when the request is signed as IAM requires; otherwise why not (for a test to read: the
// gateway answers every refusal alike, as API Gateway does).
export async function sigV4Refusal(
  req: IncomingMessage,
  rawPath: string,
  query: URLSearchParams,
  body: Buffer,
  { service: expectedService = 'execute-api', now = Date.now() } = {},
): Promise<string | undefined> {
  const m = AUTHORIZATION.exec(req.headers.authorization ?? '');
  if (!m) return 'no AWS4-HMAC-SHA256 Authorization header of the right form';
  const [, accessKeyId, day, region, service, signedHeaders, signature] = m;
  if (accessKeyId !== LOCAL_CREDENTIALS.accessKeyId) return 'unknown access key';
  if (region !== LOCAL_REGION || service !== expectedService) return `signed for ${service} in ${region}, not ${expectedService} in ${LOCAL_REGION}`;
  const signed = signedHeaders.split(';');
  if (!signed.includes('host') || !signed.includes('x-amz-date')) return 'host and x-amz-date must be signed';
  const date = AMZ_DATE.exec(String(req.headers['x-amz-date'] ?? ''));
  if (!date?.[0].startsWith(day)) return 'x-amz-date is missing, malformed, or not the credential scope date';
  const signingDate = new Date(Date.UTC(+date[1], +date[2] - 1, +date[3], +date[4], +date[5], +date[6]));
  if (Math.abs(now - signingDate.getTime()) > MAX_SKEW_MS) return 'signature expired (or dated in the future)';
  const declared = req.headers['x-amz-content-sha256'];
  if (declared !== undefined && declared !== createHash('sha256').update(body).digest('hex')) return 'x-amz-content-sha256 is not the hash of the body';

  const headers: Record<string, string> = {};
  for (const name of signed) {
    const value = req.headers[name];
    if (value === undefined) return `signed header ${name} is missing`;
    headers[name] = Array.isArray(value) ? value.join(',') : value;
  }
  const queryObject: Record<string, string | string[]> = {};
  for (const key of new Set(query.keys())) {
    const values = query.getAll(key);
    queryObject[key] = values.length === 1 ? values[0] : values;
  }
  const expected = await verifierOf(expectedService).sign(
    { method: req.method ?? 'GET', protocol: 'http:', hostname: 'localhost', path: rawPath, query: queryObject, headers, body },
    { signingDate, signableHeaders: new Set(signed) },
  );
  const expectedSignature = /Signature=([0-9a-f]{64})$/.exec(String(expected.headers.authorization))?.[1] ?? '';
  const same = expectedSignature.length === signature.length && timingSafeEqual(Buffer.from(expectedSignature), Buffer.from(signature));
  return same ? undefined : 'the signature does not match';
}

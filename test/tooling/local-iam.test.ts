import { createHash } from 'node:crypto';
import { SignatureV4 } from '@smithy/signature-v4';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LOCAL_CREDENTIALS, LOCAL_REGION } from '../../infra/local/emulators/emulators';
import { Sha256 } from '../../lib/platform/sigv4';
import { startTestStack, type TestStack } from '../harness/stack';

// Issue 28, item 7: the local gateway let any `AWS4-HMAC-SHA256 Credential=` header through to an
// AWS_IAM route (a forged one got 200 from /introspect), so no local test could catch a caller
// that signs wrong. It now verifies SigV4 as IAM would, with the credentials the functions hold.
let s: TestStack;
beforeAll(async () => {
  s = await startTestStack();
});
afterAll(() => s.stop());

const BODY = JSON.stringify({ access_token: 'no-such-token', access: [] });
const signer = (credentials = LOCAL_CREDENTIALS, service = 'execute-api') => new SignatureV4({ service, region: LOCAL_REGION, credentials, sha256: Sha256 });

// POST /introspect, signed as the resource server signs it (lib/api/resource-server/introspection.ts),
// with what a test changes: who signs, when, for which service, over which body.
async function introspect(opts: { signWith?: SignatureV4; signingDate?: Date; signedBody?: string; headers?: Record<string, string> } = {}) {
  const url = new URL(`${s.authServerUrl}/introspect`);
  const signed = await (opts.signWith ?? signer()).sign(
    {
      method: 'POST',
      protocol: url.protocol,
      hostname: url.hostname,
      port: Number(url.port),
      path: url.pathname,
      headers: { host: url.host, 'content-type': 'application/json' },
      body: opts.signedBody ?? BODY,
    },
    { signingDate: opts.signingDate },
  );
  const { host: _, ...headers } = signed.headers;
  const res = await fetch(url, { method: 'POST', headers: { ...headers, ...opts.headers }, body: BODY });
  return { status: res.status, body: await res.json() };
}

describe('an AWS_IAM route of the local gateway (POST /introspect)', () => {
  it('takes a request signed with SigV4 by the local credentials', async () => {
    expect(await introspect()).toEqual({ status: 200, body: { active: false } });
  });

  it('refuses a forged, a stale, a tampered and a stranger’s signature with 403, as API Gateway does', async () => {
    const refused = { status: 403, body: expect.objectContaining({ status: 403, code: 'request_refused' }) };
    const day = new Date().toISOString().slice(0, 10).replaceAll('-', '');
    const forged = `AWS4-HMAC-SHA256 Credential=local/${day}/${LOCAL_REGION}/execute-api/aws4_request, SignedHeaders=host;x-amz-date, Signature=${'0'.repeat(64)}`;
    expect(await introspect({ headers: { authorization: forged } }), 'forged').toEqual(refused);
    expect(await introspect({ headers: { authorization: 'AWS4-HMAC-SHA256 Credential=anything' } }), 'the old check').toEqual(refused);
    expect(await introspect({ signingDate: new Date(Date.now() - 6 * 60_000) }), 'stale').toEqual(refused);
    expect(await introspect({ signingDate: new Date(Date.now() + 6 * 60_000) }), 'from the future').toEqual(refused);
    expect(await introspect({ signedBody: '{"access_token":"another"}' }), 'another body').toEqual(refused);
    const sha = createHash('sha256').update('{}').digest('hex');
    expect(await introspect({ signedBody: '{}', headers: { 'x-amz-content-sha256': sha } }), 'a content hash of another body').toEqual(refused);
    expect(await introspect({ signWith: signer({ accessKeyId: 'someone-else', secretAccessKey: 'local' }) }), 'unknown key').toEqual(refused);
    expect(await introspect({ signWith: signer({ ...LOCAL_CREDENTIALS, secretAccessKey: 'wrong' }) }), 'wrong secret').toEqual(refused);
    expect(await introspect({ signWith: signer(LOCAL_CREDENTIALS, 's3') }), 'another service').toEqual(refused);
    // Within the 5 minutes IAM allows for clocks apart.
    expect(await introspect({ signingDate: new Date(Date.now() - 4 * 60_000) })).toEqual({ status: 200, body: { active: false } });
  });

  it('answers a request with no Authorization at all as a route it lacks, as the deployed APIs do', async () => {
    const res = await fetch(`${s.authServerUrl}/introspect`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: BODY });
    expect(res.status).toBe(404);
    expect(await res.json()).toMatchObject({ code: 'route_not_found' });
  });
});

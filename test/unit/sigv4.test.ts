import { createHash } from 'node:crypto';
import { SignatureV4 } from '@smithy/signature-v4';
import { describe, expect, it } from 'vitest';
import { postSigner, Sha256, s3Signer } from '../../lib/platform/sigv4';

// DynamoDB Local checks no signature: what the lean client's signer makes is checked here against
// the SDK's own signer, header for header, so that a request AWS would refuse fails a test.
describe('postSigner', () => {
  const body = '{"TableName":"main","Key":{"pk":{"S":"PAYMENT#1"},"sk":{"S":"PAYMENT"}}}';
  const headers = { 'content-type': 'application/x-amz-json-1.0', 'x-amz-target': 'DynamoDB_20120810.GetItem' };
  const cases = [
    {
      endpoint: 'https://dynamodb.eu-west-1.amazonaws.com',
      credentials: { accessKeyId: 'AKIDEXAMPLE', secretAccessKey: 'wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY' },
    },
    {
      endpoint: 'http://127.0.0.1:8000/some/../db path/?b=2&a=1&a=0',
      credentials: { accessKeyId: 'ASIAEXAMPLE', secretAccessKey: 'secret', sessionToken: 'a session  token' },
    },
  ];
  const oneOrAll = (values: string[]) => (values.length > 1 ? values : values[0]);
  for (const { endpoint, credentials } of cases) {
    it(`signs a POST to ${endpoint} as @smithy/signature-v4 does${'sessionToken' in credentials ? ', with a session token' : ''}`, async () => {
      const url = new URL(endpoint);
      const sign = postSigner({ service: 'dynamodb', region: 'eu-west-1', url, credentials: async () => credentials });
      const sdk = new SignatureV4({ service: 'dynamodb', region: 'eu-west-1', credentials, sha256: Sha256, applyChecksum: false });
      for (const at of [new Date('2026-11-29T21:07:08.123Z'), new Date('2026-11-30T00:00:01Z'), new Date('2026-11-29T23:59:59Z')]) {
        const expected = await sdk.sign(
          {
            method: 'POST',
            protocol: url.protocol,
            hostname: url.hostname,
            port: url.port ? Number(url.port) : undefined,
            path: url.pathname,
            query: Object.fromEntries([...new Set(url.searchParams.keys())].map((k) => [k, oneOrAll(url.searchParams.getAll(k))])),
            headers: { host: url.host, ...headers },
            body,
          },
          { signingDate: at },
        );
        const { host: _, ...sent } = expected.headers;
        expect(await sign(headers, body, at)).toEqual(sent);
      }
    });
  }
});

// The audit trail's S3 calls (lib/platform/s3.ts), as the SDK's signer signs them for S3.
describe('s3Signer', () => {
  const credentials = { accessKeyId: 'ASIAEXAMPLE', secretAccessKey: 'secret', sessionToken: 'a session  token' };
  const cases: Array<{ method: string; url: string; headers: Record<string, string>; body?: string }> = [
    {
      method: 'PUT',
      url: 'https://audit-bucket.s3.eu-west-1.amazonaws.com/events/t1/8236447170875-ab12.jsonl',
      headers: { 'if-none-match': '*', 'content-type': 'application/json', 'x-amz-checksum-sha256': 'abc=' },
      body: '{"id":"1"}\n',
    },
    { method: 'GET', url: 'http://127.0.0.1:4566/audit-bucket/?list-type=2&prefix=events%2Ft1%2F&start-after=a%20b', headers: {}, body: undefined },
  ];
  for (const { method, url: address, headers, body } of cases) {
    it(`signs a ${method} of ${address} as @smithy/signature-v4 does for S3`, async () => {
      const url = new URL(address);
      const sign = s3Signer({ region: 'eu-west-1', credentials: async () => credentials });
      const sdk = new SignatureV4({ service: 's3', region: 'eu-west-1', credentials, sha256: Sha256, uriEscapePath: false });
      const at = new Date('2026-11-29T21:07:08.123Z');
      const expected = await sdk.sign(
        {
          method,
          protocol: url.protocol,
          hostname: url.hostname,
          port: url.port ? Number(url.port) : undefined,
          path: url.pathname,
          query: Object.fromEntries(url.searchParams),
          headers: { host: url.host, ...headers },
          body,
        },
        { signingDate: at },
      );
      const { host: _, ...sent } = expected.headers;
      expect(await sign(method, url, headers, body, undefined, at)).toEqual(sent);
      if (body) {
        const hash = createHash('sha256').update(body).digest('hex');
        expect(await sign(method, url, headers, body, hash, at)).toEqual(sent);
      }
    });
  }
});

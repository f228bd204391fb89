import { request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestStack, type TestStack } from '../harness/stack';
import { ok } from '../harness/world';

let s: TestStack;
beforeAll(async () => {
  s = await startTestStack();
});
afterAll(() => s.stop());

async function codes() {
  return (await s.admin('GET', '/assets?limit=100')).body.items.map((a: { code: string }) => a.code);
}

const signedPost = async (path: string, body: string, contentType?: string) =>
  s.send('POST', path, { body, headers: { ...(contentType && { 'content-type': contentType }), signature: s.sign('POST', path, body) } });

describe('bad input', () => {
  it('answers malformed JSON with 400 malformed_json', async () => {
    const res = await signedPost('/assets', '{"code": "BAD1", ', 'application/json');
    expect(res.status).toBe(400);
    expect(res.headers.get('content-type')).toBe('application/problem+json');
    expect(res.body.code).toBe('malformed_json');
  });

  it('answers a wrong content type with 415', async () => {
    const res = await signedPost('/assets', JSON.stringify({ code: 'BAD2', scale: 2 }), 'text/plain');
    expect(res.status).toBe(415);
    expect(res.body).toMatchObject({ code: 'unsupported_media_type', title: 'Unsupported media type' });
    expect((await signedPost('/assets', JSON.stringify({ code: 'BAD2', scale: 2 }))).status).toBe(415);
    expect(await codes()).not.toContain('BAD2');
  });

  it('answers a charset other than UTF-8 with 415, and bytes that are not UTF-8 with 400', async () => {
    const body = JSON.stringify({ code: 'UTF16', scale: 2 });
    for (const type of ['application/json; charset=utf-16', 'application/json;charset="UTF-16LE"', 'application/json; charset=latin1']) {
      const res = await signedPost('/assets', body, type);
      expect(res.status, type).toBe(415);
      expect(res.body.detail, type).toContain('UTF-8');
    }
    const latin1 = Buffer.from('{"code":"LATIN","scale":2,"x":"\xe9"}', 'latin1');
    const sent = await s.send('POST', '/assets', {
      body: latin1 as unknown as string,
      headers: { 'content-type': 'application/json', signature: s.sign('POST', '/assets', latin1 as unknown as string) },
    });
    expect(sent.status).toBe(400);
    expect(sent.body).toMatchObject({ code: 'malformed_json', detail: expect.stringContaining('UTF-8') });
    expect(await codes()).not.toContain('UTF16');
    expect(await codes()).not.toContain('LATIN');
  });

  it('refuses an unpaired UTF-16 surrogate in any text field with 400, and publishes nothing', async () => {
    await s.admin('POST', '/assets', { code: 'SURR', scale: 2 });
    const address = `${s.openPaymentsUrl}/surrogate`;
    for (const publicName of ['Bob \\ud800', '\\udc00', 'x\\ud83d']) {
      const body = `{"address":"${address}","assetCode":"SURR","publicName":"${publicName}"}`;
      const res = await signedPost('/wallet-addresses', body, 'application/json');
      expect(res.status, publicName).toBe(400);
      expect(res.body.detail).toContain('surrogate');
    }
    const pair = await signedPost('/wallet-addresses', `{"address":"${address}","assetCode":"SURR","publicName":"Bob \\ud83d\\ude00"}`, 'application/json');
    expect(pair.status).toBe(201); // a well-formed pair is an emoji, and welcome
    expect(pair.body.publicName).toBe('Bob 😀');
    const key = await signedPost(
      `/wallet-addresses/${pair.body.id}/keys`,
      '{"jwk":{"kid":"k\\udfff","kty":"OKP","crv":"Ed25519","x":"11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo","alg":"EdDSA"}}',
      'application/json',
    );
    expect(key.status).toBe(400);
    expect(key.body.detail).toContain('surrogate');
  });

  it('accepts a charset parameter on application/json', async () => {
    expect((await signedPost('/assets', JSON.stringify({ code: 'CHARSET', scale: 2 }), 'application/json; charset=utf-8')).status).toBe(201);
  });

  it('answers a body over 64 KiB with 413', async () => {
    const body = JSON.stringify({ code: 'BIG', scale: 2, pad: 'x'.repeat(64 * 1024) });
    const res = await signedPost('/assets', body, 'application/json');
    expect(res.status).toBe(413);
    expect(res.body.code).toBe('payload_too_large');
  });

  it('names every missing, mistyped and unknown field', async () => {
    const res = await s.admin('POST', '/assets', { scale: 'two', extra: 1, more: 2 });
    expect(res.status).toBe(400);
    const fields = res.body.errors.map((e: { field: string }) => e.field).sort();
    expect(fields).toEqual(['code', 'extra', 'more', 'scale']);
    expect(res.body.errors.find((e: { field: string }) => e.field === 'code').message).toBe('is required');
  });

  it('answers non-object bodies with 400', async () => {
    for (const body of ['[]', '"USD"', '42', 'null']) {
      const res = await signedPost('/assets', body, 'application/json');
      expect(res.status, body).toBe(400);
    }
  });

  it('answers an empty body on a route that needs one with 400', async () => {
    const res = await s.admin('POST', '/assets');
    expect(res.status).toBe(400);
  });

  it('changed nothing for any of the above', async () => {
    const listed = await codes();
    for (const code of ['BAD1', 'BAD2', 'BIG']) expect(listed).not.toContain(code);
  });

  it('answers an unknown route with 404', async () => {
    expect((await s.admin('GET', '/nothing-here')).status).toBe(404);
  });
});

// What a hostile client tried (issue 11): each a clean 4xx that names the field, never a 500.
describe('hostile input', () => {
  let wallet: { id: string; address: string };
  beforeAll(async () => {
    await s.admin('POST', '/assets', { code: 'HOST', scale: 2 });
    wallet = (await s.admin('POST', '/wallet-addresses', { address: `${s.openPaymentsUrl}/hostile`, assetCode: 'HOST', publicName: 'Zoë 🙂' })).body;
  });
  const problemAt = (res: { status: number; body: any }, field: string) => {
    expect(res.status, JSON.stringify(res.body)).toBe(400);
    expect(res.body.errors.map((e: { field: string }) => e.field)).toContain(field);
  };

  it('takes limit only as plain decimal digits from 1 to 100', async () => {
    for (const limit of ['0x10', '1e1', '+5', ' 5', '5.0', '0', '101', '-1', '']) {
      problemAt(await s.admin('GET', `/assets?limit=${encodeURIComponent(limit)}`), 'query.limit');
      problemAt(await s.admin('GET', `/webhook-events?status=pending&limit=${encodeURIComponent(limit)}`), 'query.limit');
      for (const list of ['/wallet-addresses', '/payments', '/payment-intents'])
        problemAt(await s.admin('GET', `${list}?limit=${encodeURIComponent(limit)}`), 'query.limit');
    }
    expect((await s.admin('GET', '/assets?limit=7')).status).toBe(200);
    expect((await s.admin('GET', '/assets?limit=100')).status).toBe(200);
  });

  it('filters lists only by a wallet address URL and a known state, and pages them only with a cursor a list returned', async () => {
    const walletAddresses = [
      '',
      'not a url',
      'javascript:alert(1)',
      'http://evil.example/hostile',
      `${s.openPaymentsUrl}/%00`,
      `${wallet.address}?x=1`,
      'x'.repeat(600),
    ];
    const cursors = ['%%%', 'not-a-cursor', Buffer.from(JSON.stringify({ after: 'x' })).toString('base64url'), 'A'.repeat(300)];
    for (const list of ['/payments', '/payment-intents']) {
      for (const walletAddress of walletAddresses)
        problemAt(await s.admin('GET', `${list}?walletAddress=${encodeURIComponent(walletAddress)}`), 'query.walletAddress');
      for (const state of ['nope', 'PENDING', 'Completed', '', 'sending ', '__proto__'])
        problemAt(await s.admin('GET', `${list}?state=${encodeURIComponent(state)}`), 'query.state');
      for (const cursor of cursors) {
        problemAt(await s.admin('GET', `${list}?walletAddress=${encodeURIComponent(wallet.address)}&cursor=${encodeURIComponent(cursor)}`), 'query.cursor');
      }
      problemAt(await s.admin('GET', `${list}?status=pending`), 'query.status');
    }
    for (const cursor of cursors) problemAt(await s.admin('GET', `/wallet-addresses?cursor=${encodeURIComponent(cursor)}`), 'query.cursor');
    // A look-up by address is not a list: it takes neither a limit nor a cursor.
    problemAt(await s.admin('GET', `/wallet-addresses?address=${encodeURIComponent(wallet.address)}&limit=5`), 'query.limit');
    expect((await s.admin('GET', `/wallet-addresses?address=${encodeURIComponent(wallet.address)}`)).body.id).toBe(wallet.id);
  });

  it('refuses names and key ids with control or bidi-override characters, or nothing visible, and keeps the old name', async () => {
    for (const publicName of ['Bob\u0000', 'Bob\u202Eevil', '\u200B\u200B', '\u2066x\u2069', 'tab\there']) {
      problemAt(await s.admin('PATCH', `/wallet-addresses/${wallet.id}`, { publicName }), 'publicName');
    }
    expect((await s.admin('GET', `/wallet-addresses/${wallet.id}`)).body.publicName).toBe('Zoë 🙂');
    const { publicKey } = await import('node:crypto').then((c) => c.generateKeyPairSync('ed25519'));
    const x = (publicKey.export({ format: 'jwk' }) as { x: string }).x;
    for (const kid of ['k\u0007', '\u202Ekid', '\u200D']) {
      problemAt(await s.admin('POST', `/wallet-addresses/${wallet.id}/keys`, { kid, kty: 'OKP', crv: 'Ed25519', x, alg: 'EdDSA' }), 'kid');
    }
    expect((await s.admin('GET', `/wallet-addresses/${wallet.id}/keys`)).body.items).toEqual([]);
  });

  it('checks metadata depth and size in bytes without recursion, and refuses "__proto__"', async () => {
    const nested = (depth: number) => `${'{"a":'.repeat(depth - 1)}{}${'}'.repeat(depth - 1)}`;
    const post = (metadataJson: string) =>
      signedPost('/payment-intents', `{"walletAddress":"${wallet.address}","metadata":${metadataJson}}`, 'application/json');
    for (const bad of [nested(4200), nested(65), JSON.stringify({ note: 'é'.repeat(2100) }), '{"__proto__":{"admin":true}}', '{"a":{"__proto__":1}}']) {
      const res = await post(bad);
      problemAt(res, 'metadata');
    }
    expect((await post(nested(64))).status).toBe(201);
    expect((await post(JSON.stringify({ note: 'é'.repeat(2000) }))).status).toBe(201); // 4,000 bytes and more
  });

  it('refuses a deposit that would take a balance past 38 digits with 422, changing nothing', async () => {
    // At the ledger's own scale (20) an amount may have 38 digits, and two of them make 39.
    const asset = (await ok(s.admin('POST', '/assets', { code: 'HUGE', scale: 20 }))).id;
    const most = '9'.repeat(38);
    expect((await s.admin('POST', `/assets/${asset}/liquidity`, { amount: most })).status).toBe(200);
    const again = await s.admin('POST', `/assets/${asset}/liquidity`, { amount: most });
    expect([again.status, again.body.code]).toEqual([422, 'balance_too_large']);
    expect((await s.admin('GET', `/assets/${asset}`)).body.liquidity.value).toBe(most);
    const one = await s.admin('POST', `/assets/${asset}/liquidity`, { amount: '1' }); // exactly 10^38: 39 digits, still one significant
    expect([one.status, one.body.code]).toEqual([422, 'balance_too_large']);
    expect((await s.admin('GET', `/assets/${asset}`)).status).toBe(200);
  });

  it('answers an over-long path on the public resource server with 404, not a DynamoDB error', async () => {
    const res = await fetch(`${s.openPaymentsUrl}/${'a'.repeat(2100)}`);
    expect(res.status).toBe(404);
    expect(res.headers.get('content-type')).toBe('application/problem+json');
    expect((await fetch(`${s.openPaymentsUrl}/${'a'.repeat(2100)}/jwks.json`)).status).toBe(404);
  });
});

// Issue 42: times any ISO 8601 parser takes but no store holds (their instant in UTC past the year
// 9999, or before 0001), and windows whose bounds compare one way as instants, the other as text,
// on every list with a time window.
describe('time windows', () => {
  let lists: string[];
  beforeAll(async () => {
    await s.admin('POST', '/assets', { code: 'WIN', scale: 2 });
    const http = {
      incoming: { authTokens: ['window-incoming-token-0001'] },
      outgoing: { authToken: 'window-outgoing-token-01', endpoint: 'http://127.0.0.1:9/ilp' },
    };
    const peer = await ok(s.admin('POST', '/peers', { staticIlpAddress: 'test.window-peer', assetCode: 'WIN', http }));
    lists = ['/audit-events', `/peers/${peer.id}/reconciliation`];
  });

  it('refuses a time outside the years 0001 to 9999 in UTC with 400 naming it', async () => {
    const cases = [
      ['to=9999-12-31T23:59:59-00:01', 'to'],
      ['from=9999-12-31T23:59:59-00:01', 'from'],
      ['to=0000-01-01T00:00:00%2B14:00', 'to'],
      ['from=0001-01-01T00:00:00%2B00:01', 'from'],
      ['from=2026-01-01T00:00:00Z&to=9999-12-31T23:59:59-14:00', 'to'],
      ['from=9999-12-31T23:59:59Z&to=9999-12-31T23:59:59-14:00', 'to'], // after from as instants, before it as text
    ];
    for (const list of lists)
      for (const [query, field] of cases) {
        const res = await s.admin('GET', `${list}?${query}`);
        expect([res.status, res.body.errors], `${list}?${query}`).toEqual([
          400,
          [{ field: `query.${field}`, message: 'must be in the years 0001 to 9999 in UTC' }],
        ]);
      }
  });

  it('compares from and to as the instants they name, not as the text sent', async () => {
    for (const list of lists) {
      // 2026-01-01T10:00Z: before from, though after it as text.
      const before = await s.admin('GET', `${list}?from=2026-01-01T12:00:00Z&to=2026-01-02T00:00:00%2B14:00`);
      expect([before.status, before.body.errors], list).toEqual([400, [{ field: 'query.to', message: 'must be after from' }]]);
      const after = await ok(s.admin('GET', `${list}?from=2026-01-02T00:00:00%2B14:00&to=2026-01-01T12:00:00Z`), 200);
      expect(after.items, list).toEqual([]);
    }
    const window = await ok(s.admin('GET', `${lists[1]}?from=2026-01-02T00:00:00%2B14:00&to=2026-01-01T12:00:00Z`), 200);
    expect([window.from, window.to]).toEqual(['2026-01-01T10:00:00.000Z', '2026-01-01T12:00:00.000Z']);
    // The years' edges are times like any other.
    await ok(s.admin('GET', '/audit-events?from=0001-01-01T00:00:00Z&to=9999-12-31T23:59:59.999Z'), 200);
    expect((await ok(s.admin('GET', `${lists[1]}?to=9999-12-31T23:59:59.999Z`), 200)).from).toBe('9999-12-30T23:59:59.999Z');
  });
});

describe('the local gateway', () => {
  // node:http, not fetch: fetch would resolve the dot segments before sending.
  const raw = (base: string, method: string, path: string, headers: Record<string, string> = {}) =>
    new Promise<{ status: number; headers: Record<string, string | string[] | undefined>; body: string }>((ok, fail) => {
      const req = request(new URL(base), { method, path, headers }, (res) => {
        let body = '';
        res.on('data', (c) => (body += c));
        res.on('end', () => ok({ status: res.statusCode!, headers: res.headers, body }));
      });
      req.on('error', fail);
      req.end();
    });

  it('answers unknown routes with 404 and other methods with 405, as problem+json', async () => {
    const unknown = await raw(s.adminUrl, 'GET', '/nowhere', { signature: s.sign('GET', '/nowhere') });
    expect([unknown.status, unknown.headers['content-type'], JSON.parse(unknown.body).code]).toEqual([404, 'application/problem+json', 'route_not_found']);
    // Issue 48: a typo was told "(or the route needs AWS SigV4 credentials…)"; locally it names the route near.
    expect(JSON.parse((await raw(s.adminUrl, 'GET', '/asset')).body).detail).toBe('No route GET /asset; the nearest: GET /assets');
    const wrong = await raw(s.adminUrl, 'DELETE', '/assets');
    expect([wrong.status, wrong.headers['content-type'], wrong.headers.allow, JSON.parse(wrong.body).code]).toEqual([
      405,
      'application/problem+json',
      'GET, POST',
      'method_not_allowed',
    ]);
  });

  it('answers what API Gateway answers by itself as problem+json on every API, as deployed (infra/gateway-responses.json)', async () => {
    // (The resource and authorization servers take every path: {proxy+}; their functions answer.)
    const introspection = await raw(s.authServerUrl, 'POST', '/introspect'); // needs SigV4
    for (const res of [await raw(s.connectorUrl.replace(/\/ilp$/, ''), 'GET', '/nowhere'), introspection]) {
      expect([res.status, res.headers['content-type']]).toEqual([404, 'application/problem+json']);
      expect(JSON.parse(res.body)).toMatchObject({ status: 404, code: 'route_not_found', requestId: expect.any(String) });
    }
    expect(JSON.parse(introspection.body).detail).toContain('SigV4'); // a route that needs it, called unsigned
  });

  it('routes and signs the path as sent, dot segments included', async () => {
    const path = '/wallet-addresses/../assets';
    const res = await raw(s.adminUrl, 'GET', path, { signature: s.sign('GET', path) });
    expect(res.status).toBe(404); // not GET /assets, which a resolved path would have reached
  });

  it('answers HEAD and CORS preflights on the public wallet addresses', async () => {
    await s.admin('POST', '/wallet-addresses', { address: `${s.openPaymentsUrl}/corsy`, assetCode: 'HOST' });
    const head = await raw(s.openPaymentsUrl, 'HEAD', '/corsy');
    expect([head.status, head.headers['content-type'], head.headers['access-control-allow-origin'], head.body]).toEqual([200, 'application/json', '*', '']);
    const preflight = await raw(s.openPaymentsUrl, 'OPTIONS', '/corsy/jwks.json', { origin: 'https://app.example', 'access-control-request-method': 'GET' });
    expect(preflight.status).toBe(204);
    expect(preflight.headers['access-control-allow-origin']).toBe('*');
    expect(preflight.headers['access-control-allow-methods']).toContain('GET');
  });
});

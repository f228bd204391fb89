import { execFile } from 'node:child_process';
import { createHmac, randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { rm, writeFile } from 'node:fs/promises';
import { request } from 'node:http';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { GetItemCommand, UpdateItemCommand } from '@aws-sdk/client-dynamodb';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ROOT } from '../../infra/local/start/serverless-config';
import { signatureHeader } from '../../lib/api/http/signature';
import { paymentIdOf } from '../../lib/payments';
import { startTestStack, type TestStack } from '../harness/stack';
import { clientDir, README_CLIENT } from '../readers/typed-client';

let s: TestStack;
const now = () => Math.floor(Date.now() / 1000);
const json = (body: unknown) => JSON.stringify(body);

async function assetCodes() {
  const res = await s.admin('GET', '/assets?limit=100');
  return res.body.items.map((a: { code: string }) => a.code);
}

beforeAll(async () => {
  s = await startTestStack();
});
afterAll(() => s.stop());

describe('Admin API signatures', () => {
  const post = (body: string, signature?: string) =>
    s.send('POST', '/assets', { body, headers: { 'content-type': 'application/json', ...(signature && { signature }) } });

  it('refuses an unsigned request with 401 problem+json and writes nothing', async () => {
    const res = await post(json({ code: 'NOSIG', scale: 2 }));
    expect(res.status).toBe(401);
    expect(res.headers.get('content-type')).toBe('application/problem+json');
    expect(res.body).toMatchObject({ status: 401, code: 'unauthorized', detail: expect.stringContaining('missing') });
    expect(await assetCodes()).not.toContain('NOSIG');
  });

  it('refuses a signature made with another secret', async () => {
    const body = json({ code: 'WRONG', scale: 2 });
    const res = await post(body, signatureHeader('another-secret-0123456789', { method: 'POST', pathWithQuery: '/assets', body }));
    expect(res.status).toBe(401);
    expect(await assetCodes()).not.toContain('WRONG');
  });

  it('refuses a signature over another body, method or path', async () => {
    const body = json({ code: 'TAMPR', scale: 2 });
    expect((await post(body, s.sign('POST', '/assets', json({ code: 'OTHER', scale: 2 })))).status).toBe(401);
    expect((await post(body, s.sign('PUT', '/assets', body))).status).toBe(401);
    expect((await post(body, s.sign('POST', '/assets?x=1', body))).status).toBe(401);
    expect(await assetCodes()).not.toContain('TAMPR');
  });

  it('signs the query string too', async () => {
    const res = await s.send('GET', '/assets?limit=5', { headers: { signature: s.sign('GET', '/assets?limit=6') } });
    expect(res.status).toBe(401);
    expect((await s.send('GET', '/assets?limit=5', { headers: { signature: s.sign('GET', '/assets?limit=5') } })).status).toBe(200);
  });

  it('matches a query however a client encoded it (the REST API hands it over decoded), in the order sent', async () => {
    await s.admin('POST', '/assets', { code: 'QRY', scale: 2 });
    const created = await s.admin('POST', '/wallet-addresses', { address: `${s.openPaymentsUrl}/query-${Date.now()}`, assetCode: 'QRY' });
    expect(created.status).toBe(201);
    const url: string = created.body.address;
    for (const query of [`address=${url}`, `address=${encodeURIComponent(url)}`, new URLSearchParams({ address: url }).toString()]) {
      const res = await s.send('GET', `/wallet-addresses?${query}`, { headers: { signature: s.sign('GET', `/wallet-addresses?${query}`) } });
      expect(res.status, query).toBe(200);
      expect(res.body.id).toBe(created.body.id);
    }
    const sent = `/assets?limit=5&cursor=${Buffer.from(JSON.stringify({ after: 'x' })).toString('base64url')}`;
    const reordered = `/assets?cursor=${Buffer.from(JSON.stringify({ after: 'x' })).toString('base64url')}&limit=5`;
    expect((await s.send('GET', sent, { headers: { signature: s.sign('GET', reordered) } })).status).toBe(401);
  });

  it('refuses a query parameter given twice with 400, before anything else', async () => {
    const res = await s.send('GET', '/assets?limit=5&limit=50', { headers: { signature: s.sign('GET', '/assets?limit=5&limit=50') } });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ code: 'invalid_request', detail: expect.stringContaining('limit') });
  });

  it('refuses a signature or Idempotency-Key header given twice with 400, acting on neither', async () => {
    const body = json({ code: 'TWICE', scale: 2 });
    const send = (headers: Array<[string, string]>) =>
      new Promise<number>((resolve, reject) => {
        // node:http sends each pair as its own header line (fetch would join them).
        const req = request(`${s.adminUrl}/assets`, { method: 'POST', headers: headers.flat() }, (res) => {
          res.resume();
          res.on('end', () => resolve(res.statusCode!));
        });
        req.on('error', reject);
        req.end(body);
      });
    const signed = s.sign('POST', '/assets', body, undefined, 'twice-1');
    expect(
      await send([
        ['content-type', 'application/json'],
        ['Idempotency-Key', 'twice-1'],
        ['idempotency-key', 'twice-2'],
        ['signature', signed],
      ]),
    ).toBe(400);
    expect(
      await send([
        ['content-type', 'application/json'],
        ['signature', signed],
        ['Signature', signed],
      ]),
    ).toBe(400);
    expect(await assetCodes()).not.toContain('TWICE');
  });

  it('reads header names in any letter case, as a REST API passes them on', async () => {
    const body = json({ code: 'CASE', scale: 2 });
    const headers = { 'Content-Type': 'application/json', 'Idempotency-Key': `case-${Date.now()}`, SIGNATURE: '' };
    headers.SIGNATURE = s.sign('POST', '/assets', body, undefined, headers['Idempotency-Key']);
    const send = () =>
      new Promise<{ status: number; text: string }>((resolve, reject) => {
        // node:http keeps header names as given (fetch would lower-case them).
        const req = request(`${s.adminUrl}/assets`, { method: 'POST', headers }, (res) => {
          let text = '';
          res.on('data', (c) => (text += c));
          res.on('end', () => resolve({ status: res.statusCode!, text }));
        });
        req.on('error', reject);
        req.end(body);
      });
    const first = await send();
    expect(first.status).toBe(201);
    headers.SIGNATURE = s.sign('POST', '/assets', body, undefined, headers['Idempotency-Key']);
    const again = await send(); // the Idempotency-Key was read: the same asset, not a 409
    expect(again.status).toBe(201);
    expect(JSON.parse(again.text).id).toBe(JSON.parse(first.text).id);
  });

  it('refuses stale and future timestamps beyond 300 s, accepts within', async () => {
    const body = json({ code: 'STALE', scale: 2 });
    // The time a request spends on the way (long on a loaded machine) makes a past timestamp older
    // and a future one nearer: 301 s past stays beyond the tolerance; a future one and one within it
    // keep a minute's margin, so that a slow request cannot cross the line.
    expect((await post(body, s.sign('POST', '/assets', body, now() - 301))).status).toBe(401);
    expect((await post(body, s.sign('POST', '/assets', body, now() + 360))).status).toBe(401);
    expect(await assetCodes()).not.toContain('STALE');
    expect((await post(body, s.sign('POST', '/assets', body, now() - 240))).status).toBe(201);
  });

  it('accepts a non-GET signature once: a replay is 401 and changes nothing', async () => {
    const body = json({ code: 'ONCE', scale: 2 });
    const signature = s.sign('POST', '/assets', body);
    expect((await post(body, signature)).status).toBe(201);
    const replay = await post(body, signature);
    expect(replay.status).toBe(401);
    expect(replay.body.detail).toMatch(/already used/);
  });

  it('refuses a replay on a route whose guard rides in its transaction, and writes nothing twice', async () => {
    await s.admin('POST', '/assets', { code: 'TXG', scale: 2 });
    const wallet = (await s.admin('POST', '/wallet-addresses', { address: `${s.openPaymentsUrl}/txg`, assetCode: 'TXG' })).body.address;
    const body = json({ walletAddress: wallet, metadata: { replay: 'test' } });
    const signature = s.sign('POST', '/payment-intents', body);
    const send = () => s.send('POST', '/payment-intents', { body, headers: { 'content-type': 'application/json', signature } });
    const first = await send();
    expect(first.status).toBe(201);
    const replay = await send();
    expect(replay.status).toBe(401);
    expect(replay.body.detail).toMatch(/already used/);
    // A transactional route that fails before writing still uses up its signature.
    const badBody = json({ walletAddress: `${s.openPaymentsUrl}/nobody` });
    const badSig = s.sign('POST', '/payment-intents', badBody);
    const bad = () => s.send('POST', '/payment-intents', { body: badBody, headers: { 'content-type': 'application/json', signature: badSig } });
    expect((await bad()).status).toBe(422);
    expect((await bad()).status).toBe(401);
  });

  it('signs the Idempotency-Key: one stripped, added or changed on the way is 401 and acts on nothing', async () => {
    const body = json({ code: 'IDEMK', scale: 2 });
    const signature = s.sign('POST', '/assets', body, undefined, 'idem-key-1');
    const withKey = (key?: string) => ({ 'content-type': 'application/json', signature, ...(key && { 'idempotency-key': key }) });
    expect((await s.send('POST', '/assets', { body, headers: withKey() })).status).toBe(401);
    expect((await s.send('POST', '/assets', { body, headers: withKey('idem-key-2') })).status).toBe(401);
    expect(await assetCodes()).not.toContain('IDEMK');
    expect((await s.send('POST', '/assets', { body, headers: withKey('idem-key-1') })).status).toBe(201);
    // Signed without a key, sent with one: refused too.
    const plain = s.sign('POST', '/payment-intents', '{}');
    const res = await s.send('POST', '/payment-intents', {
      body: '{}',
      headers: { 'content-type': 'application/json', signature: plain, 'idempotency-key': 'added' },
    });
    expect(res.status).toBe(401);
  });

  it('takes two equal requests in one second as two (t in milliseconds), and a whole-second t still works', async () => {
    await s.admin('POST', '/assets', { code: 'TWIN', scale: 2 });
    const wallet = (await s.admin('POST', '/wallet-addresses', { address: `${s.openPaymentsUrl}/twin`, assetCode: 'TWIN' })).body.address;
    const body = json({ walletAddress: wallet });
    const second = Math.floor(Date.now() / 1000);
    const send = (t: string) =>
      s.send('POST', '/payment-intents', { body, headers: { 'content-type': 'application/json', signature: s.sign('POST', '/payment-intents', body, t) } });
    const [a, b, c] = await Promise.all([send(`${second}.101`), send(`${second}.102`), send(String(second))]);
    expect([a.status, b.status, c.status]).toEqual([201, 201, 201]);
    expect(new Set([a.body.id, b.body.id, c.body.id]).size).toBe(3);
    expect((await send(`${second}.101`)).status).toBe(401); // the same signature again is a replay
  });

  it('accepts the documented shell example as it is written (OpenSSL 3 here)', async () => {
    const readme = readFileSync(join(ROOT, 'docs/api.md'), 'utf8');
    const script = readme.slice(readme.indexOf('In a shell')).match(/```sh\n([\s\S]*?)```/)![1];
    // (not execFileSync: the service under test runs on this thread)
    const { stdout } = await promisify(execFile)('bash', ['-c', script.replaceAll('localhost:3001', new URL(s.adminUrl).host)], {
      env: { ...process.env, SECRET: s.env.ADMIN_API_SECRET },
    });
    expect(JSON.parse(stdout)).toMatchObject({ code: 'USD', scale: 2 });
  });

  it("signs for the README's shell function a (npm run admin): amounts for a person, --json prints only the body as the API gives it, and the exit status follows the answer", async () => {
    const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
    const fn = readme.match(/^a\(\) \{ npm run -s admin -- "\$@"; \}$/m)![0];
    const run = (line: string) =>
      promisify(execFile)('bash', ['-c', `${fn}\n${line}`], {
        cwd: ROOT,
        env: { ...process.env, ADMIN_API_URL: s.adminUrl, ADMIN_API_SECRET: s.env.ADMIN_API_SECRET },
      });
    const created = await run(`a --json POST /assets '{"code":"CLI","scale":2}'`);
    expect(JSON.parse(created.stdout)).toMatchObject({ code: 'CLI', scale: 2 });
    // For a person, each amount written as the README writes it; with --json, as the API gives it.
    const cli = JSON.parse(created.stdout).id;
    await run(`a POST /assets/${cli}/liquidity '{"amount":"1005000"}'`);
    expect((await run(`a GET /assets/${cli}`)).stdout).toContain('"liquidity": "10,050.00 CLI"');
    expect(JSON.parse((await run(`a --json GET /assets/${cli}`)).stdout).liquidity).toEqual({ value: '1005000', assetCode: 'CLI', assetScale: 2 });
    const listed = await run('a --json GET /assets?limit=100');
    expect(JSON.parse(listed.stdout).items.map((x: { code: string }) => x.code)).toContain('CLI');
    await expect(run(`a --json POST /assets '{"code":"CLI","scale":2}'`)).rejects.toMatchObject({ code: 1, stdout: expect.stringContaining('"status": 409') });
    expect((await run('a --help')).stdout).toContain('--json');
  });

  it("runs the README's typed openapi-fetch client: it signs, creates an asset and lists with limit: 5", async () => {
    const dir = await clientDir(await (await fetch(`${s.adminUrl}/openapi.json`)).json());
    try {
      await writeFile(join(dir, 'admin.mts'), README_CLIENT);
      const tsx = join(ROOT, 'node_modules/.bin/tsx');
      const env = { ...process.env, ADMIN_API_URL: s.adminUrl, ADMIN_API_SECRET: s.env.ADMIN_API_SECRET };
      const { stdout } = await promisify(execFile)(tsx, ['admin.mts'], { cwd: dir, env });
      const [created, listed] = stdout.trim().split('\n');
      expect(created).toMatch(/^201 [0-9a-f-]{36}$/);
      expect(JSON.parse(listed.replaceAll("'", '"'))).toContain('TYP');
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('lets a GET signature be reused within its window', async () => {
    const signature = s.sign('GET', '/assets');
    expect((await s.send('GET', '/assets', { headers: { signature } })).status).toBe(200);
    expect((await s.send('GET', '/assets', { headers: { signature } })).status).toBe(200);
  });

  it('refuses malformed signature headers', async () => {
    const body = json({ code: 'MALF', scale: 2 });
    for (const header of ['v3=abc', 't=abc, v3=00', `t=${now()}`, 'garbage', `t=${now()}, v3=${'0'.repeat(64)}`, `t=${now()}.5.5, v3=${'0'.repeat(64)}`]) {
      expect((await post(body, header)).status, header).toBe(401);
    }
  });

  it('refuses a v1 or v2 signature (made as they were) with a 401 that names v3', async () => {
    const body = json({ code: 'VONE', scale: 2 });
    const t = (Date.now() / 1000).toFixed(3);
    const hmac = (text: string) => createHmac('sha256', s.env.ADMIN_API_SECRET).update(text).digest('hex');
    for (const header of [`t=${t}, v1=${hmac(`${t}.POST./assets..${body}`)}`, `t=${t}, v2=${hmac(`${t}\nPOST\n/assets\n\n${body}`)}`]) {
      const res = await post(body, header);
      expect(res.status).toBe(401);
      expect(res.body.detail).toContain('sign with v3');
    }
    expect(await assetCodes()).not.toContain('VONE');
  });

  // D1: v1 joined its fields with "." and a "." could move between the path, the key and the
  // body, so one signature verified another request. Each forgery here worked on v1.
  it("does not let a signature's dot move between the query, the Idempotency-Key and the body", async () => {
    await s.admin('POST', '/assets', { code: 'DOT', scale: 2 });
    const carol = `${s.openPaymentsUrl}/carol`;
    await s.admin('POST', '/wallet-addresses', { address: carol, assetCode: 'DOT', publicName: 'Carol' });
    await s.admin('POST', '/wallet-addresses', { address: `${carol}.smith`, assetCode: 'DOT', publicName: 'Carol Smith' });
    const lookup = `/wallet-addresses?address=${encodeURIComponent(`${carol}.smith`)}`;
    const signature = s.sign('GET', lookup);
    expect((await s.send('GET', lookup, { headers: { signature } })).body.publicName).toBe('Carol Smith');
    const other = `/wallet-addresses?address=${encodeURIComponent(carol)}`;
    const forged = await s.send('GET', other, { headers: { signature, 'idempotency-key': 'smith.' } });
    expect(forged.status).toBe(401);
    expect(JSON.stringify(forged.body)).not.toContain('Carol');

    const keyed = s.sign('POST', '/assets', '', undefined, 'retry.{}');
    const moved = await s.send('POST', '/assets', {
      body: '{}.',
      headers: { 'content-type': 'application/json', signature: keyed, 'idempotency-key': 'retry' },
    });
    expect(moved.status).toBe(401);
  });
});

// Issue 46: a create's record is its signature's replay guard (its id comes from the signature's
// MAC: lib/platform/ids.ts), so that a create writes no guard item of its own (SIG#<mac>).
describe("the replay guard in a create's record", () => {
  let from: string;
  let to: string;
  beforeAll(async () => {
    await s.admin('POST', '/assets', { code: 'RPG', scale: 2 });
    from = (await s.admin('POST', '/wallet-addresses', { address: `${s.openPaymentsUrl}/rpg-from`, assetCode: 'RPG' })).body.address;
    to = (await s.admin('POST', '/wallet-addresses', { address: `${s.openPaymentsUrl}/rpg-to`, assetCode: 'RPG' })).body.address;
  });
  // A signed POST, to send as often as asked: the same bytes, the same signature.
  const signed = (path: string, body: unknown, t?: string) => {
    const text = json(body);
    const signature = s.sign('POST', path, text, t);
    return { signature, send: () => s.send('POST', path, { body: text, headers: { 'content-type': 'application/json', signature } }) };
  };
  const guardItem = async (signature: string) => {
    const Key = { pk: { S: `SIG#${signature.slice(signature.indexOf('v3=') + 3)}` }, sk: { S: 'SIG' } };
    return (await s.dynamo.send(new GetItemCommand({ TableName: s.env.MAIN_TABLE, Key, ConsistentRead: true }))).Item;
  };
  const count = async (path: string, wallet: string) => (await s.admin('GET', `${path}?walletAddress=${encodeURIComponent(wallet)}`)).body.items.length;

  it('writes no guard item for an intent, a quote or a payment, and refuses each one replayed byte for byte (401), creating nothing', async () => {
    const intent = signed('/payment-intents', { walletAddress: to, incomingAmount: { value: '500', assetCode: 'RPG', assetScale: 2 } });
    const madeIntent = await intent.send();
    expect(madeIntent.status).toBe(201);
    const quote = signed('/quotes', { walletAddress: from, receiver: madeIntent.body.id });
    const madeQuote = await quote.send();
    expect(madeQuote.status).toBe(201);
    const payment = signed('/payments', { walletAddress: from, quoteId: madeQuote.body.id });
    expect((await payment.send()).status).toBe(201);
    for (const [name, create] of Object.entries({ intent, quote, payment })) {
      expect(await guardItem(create.signature), name).toBeUndefined();
      const replay = await create.send();
      expect(replay.status, name).toBe(401);
      expect(replay.body.detail, name).toMatch(/already used/);
    }
    expect(await count('/payment-intents', to)).toBe(1);
    expect(await count('/payments', from)).toBe(1);
    expect((await s.admin('GET', `/quotes/${madeQuote.body.id}`)).body).toEqual(madeQuote.body);
  });

  it('leaves a refused create’s signature used: its replay is 401 even once the create would succeed', async () => {
    const later = `${s.openPaymentsUrl}/rpg-later`;
    const intent = signed('/payment-intents', { walletAddress: later });
    expect((await intent.send()).status).toBe(422); // no such wallet address yet
    expect((await s.admin('POST', '/wallet-addresses', { address: later, assetCode: 'RPG' })).status).toBe(201);
    const replay = await intent.send();
    expect(replay.status).toBe(401);
    expect(await count('/payment-intents', later)).toBe(0);
    expect(await guardItem(intent.signature)).toBeUndefined(); // the guard is in the intent's place
  });

  // Issue 46: a payment's id is named by its quote (lib/payments paymentIdOf), so that its own put
  // takes the quote once and the quote is not written; it keeps the id its signature drew (guardId),
  // by which a replay of its request is told from another request for the same quote.
  const record = async (kind: string, id: string) =>
    (await s.dynamo.send(new GetItemCommand({ TableName: s.env.MAIN_TABLE, Key: { pk: { S: `${kind}#${id}` }, sk: { S: kind } }, ConsistentRead: true }))).Item;
  const setOnQuote = (id: string, field: string, value: string) =>
    s.dynamo.send(
      new UpdateItemCommand({
        TableName: s.env.MAIN_TABLE,
        Key: { pk: { S: `QUOTE#${id}` }, sk: { S: 'QUOTE' } },
        UpdateExpression: 'SET #f = :v',
        ExpressionAttributeNames: { '#f': field },
        ExpressionAttributeValues: { ':v': { S: value } },
      }),
    );
  const newQuote = async () => {
    const intent = await s.admin('POST', '/payment-intents', { walletAddress: to, incomingAmount: { value: '100', assetCode: 'RPG', assetScale: 2 } });
    return (await s.admin('POST', '/quotes', { walletAddress: from, receiver: intent.body.id })).body as { id: string };
  };
  const answer = (r: { status: number; body: { code?: string } }) => `${r.status}${r.body?.code ? ` ${r.body.code}` : ''}`;

  it('takes a quote by the payment’s own id, leaving the quote as it was: a replay is 401; another request for the quote 409 quote_used, its replay 401', async () => {
    const q = await newQuote();
    const quoteBefore = await record('QUOTE', q.id);
    const made = await signed('/payments', { walletAddress: from, quoteId: q.id });
    const payment = await made.send();
    expect(payment.status).toBe(201);
    expect(payment.body.id).toBe(paymentIdOf(q.id));
    expect(await record('QUOTE', q.id)).toEqual(quoteBefore);
    const other = signed('/payments', { walletAddress: from, quoteId: q.id, metadata: { another: true } });
    expect(answer(await other.send())).toBe('409 quote_used');
    expect(answer(await made.send())).toBe('401 unauthorized');
    expect(answer(await other.send())).toBe('401 unauthorized'); // its signature was used by its refusal
    expect((await s.admin('GET', `/payments/${payment.body.id}`)).body).toEqual(payment.body);
    expect(await guardItem(made.signature)).toBeUndefined(); // the payment holds its guard
  });

  it('answers an Idempotency-Key replay of a payment with the same signature 401, with a fresh one its first answer', async () => {
    const q = await newQuote();
    const body = json({ walletAddress: from, quoteId: q.id });
    const key = randomUUID();
    const send = (signature: string) =>
      s.send('POST', '/payments', { body, headers: { 'content-type': 'application/json', 'idempotency-key': key, signature } });
    const first = s.sign('POST', '/payments', body, undefined, key);
    const made = await send(first);
    expect(made.status).toBe(201);
    expect(answer(await send(first))).toBe('401 unauthorized');
    const again = await send(s.sign('POST', '/payments', body, undefined, key));
    expect([again.status, again.body]).toEqual([201, made.body]);
  });

  it('makes one payment of a quote when requests race: the same signed one twice at once 201 and 401, two others 201 and 409', async () => {
    for (let round = 0; round < 3; round++) {
      const q = await newQuote();
      const one = signed('/payments', { walletAddress: from, quoteId: q.id, metadata: { round } });
      expect((await Promise.all([one.send(), one.send()])).map(answer).sort()).toEqual(['201', '401 unauthorized']);
      const q2 = await newQuote();
      const [a, b] = [1, 2].map((n) => signed('/payments', { walletAddress: from, quoteId: q2.id, metadata: { round, n } }));
      expect((await Promise.all([a.send(), b.send()])).map(answer).sort()).toEqual(['201', '409 quote_used']);
      for (const id of [q.id, q2.id]) expect(await record('PAYMENT', paymentIdOf(id))).toBeDefined();
    }
  });

  it('leaves a refused payment’s signature used: its replay is 401 even once the payment would succeed', async () => {
    const payer = (await s.admin('POST', '/wallet-addresses', { address: `${s.openPaymentsUrl}/rpg-frozen`, assetCode: 'RPG' })).body;
    const intent = await s.admin('POST', '/payment-intents', { walletAddress: to, incomingAmount: { value: '100', assetCode: 'RPG', assetScale: 2 } });
    const q = (await s.admin('POST', '/quotes', { walletAddress: payer.address, receiver: intent.body.id })).body;
    const status = (status: string) => s.admin('PATCH', `/wallet-addresses/${payer.id}`, { status });
    expect((await status('inactive')).status).toBe(200);
    const payment = signed('/payments', { walletAddress: payer.address, quoteId: q.id });
    expect(answer(await payment.send())).toBe('422 wallet_address_inactive');
    expect((await status('active')).status).toBe(200);
    expect(answer(await payment.send())).toBe('401 unauthorized');
    expect(await record('PAYMENT', paymentIdOf(q.id))).toBeUndefined();
    expect(answer(await signed('/payments', { walletAddress: payer.address, quoteId: q.id }).send())).toBe('201'); // signed afresh
  });

  it('refuses a payment of an expired quote (422 quote_expired), writing none', async () => {
    const q = await newQuote();
    await setOnQuote(q.id, 'expiresAt', new Date(Date.now() - 1000).toISOString()); // as if its 300 s had passed
    expect(answer(await signed('/payments', { walletAddress: from, quoteId: q.id }).send())).toBe('422 quote_expired');
    expect(await record('PAYMENT', paymentIdOf(q.id))).toBeUndefined();
  });

  it('refuses a second payment of a quote an earlier version took (its paymentId set, its payment under another id): 409 quote_used', async () => {
    const q = await newQuote();
    await setOnQuote(q.id, 'paymentId', randomUUID());
    expect(answer(await signed('/payments', { walletAddress: from, quoteId: q.id }).send())).toBe('409 quote_used');
    expect(await record('PAYMENT', paymentIdOf(q.id))).toBeUndefined();
  });

  it('gives two creates signed in the same millisecond two ids, each its own guard', async () => {
    const t = (Date.now() / 1000).toFixed(3);
    const [a, b] = [1, 2].map((n) => signed('/payment-intents', { walletAddress: to, metadata: { n } }, t));
    const [madeA, madeB] = await Promise.all([a.send(), b.send()]);
    expect([madeA.status, madeB.status]).toEqual([201, 201]);
    expect(madeA.body.id).not.toBe(madeB.body.id);
    expect([await guardItem(a.signature), await guardItem(b.signature)]).toEqual([undefined, undefined]);
    expect([(await a.send()).status, (await b.send()).status]).toEqual([401, 401]);
  });
});

// Issue 46: a funding's transfer, named by its payment (fund:<payment id>), keeps the id its signed
// request drew (guardId), so that its put is the signature's replay guard and the funding writes no
// guard item of its own (SIG#<mac>); a refused funding leaves its guard where that id points.
describe("the replay guard in a funding's transfer", () => {
  let from: string;
  let to: string;
  let frozen: { id: string; address: string };
  beforeAll(async () => {
    await s.admin('POST', '/assets', { code: 'FRG', scale: 2 });
    const wallet = async (name: string) => (await s.admin('POST', '/wallet-addresses', { address: `${s.openPaymentsUrl}/${name}`, assetCode: 'FRG' })).body;
    [from, to] = [(await wallet('frg-from')).address, (await wallet('frg-to')).address];
    frozen = await wallet('frg-frozen');
  });
  afterEach(() => {
    delete process.env.PAYMENT_FAULTS;
  });
  const newPayment = async (payer = from) => {
    const intent = await s.admin('POST', '/payment-intents', { walletAddress: to, incomingAmount: { value: '100', assetCode: 'FRG', assetScale: 2 } });
    const quote = await s.admin('POST', '/quotes', { walletAddress: payer, receiver: intent.body.id });
    return (await s.admin('POST', '/payments', { walletAddress: payer, quoteId: quote.body.id })).body as { id: string };
  };
  // A signed fund request, to send as often as asked: the same bytes, the same signature.
  const funding = (id: string, key?: string) => {
    const path = `/payments/${id}/fund`;
    const signature = s.sign('POST', path, '', undefined, key);
    return { signature, send: () => s.send('POST', path, { body: '', headers: { signature, ...(key && { 'idempotency-key': key }) } }) };
  };
  const answer = (r: { status: number; body: { code?: string } }) => `${r.status}${r.body?.code ? ` ${r.body.code}` : ''}`;
  const item = async (pk: string, sk: string) =>
    (await s.dynamo.send(new GetItemCommand({ TableName: s.env.MAIN_TABLE, Key: { pk: { S: pk }, sk: { S: sk } }, ConsistentRead: true }))).Item;
  const sigItem = (signature: string) => item(`SIG#${signature.slice(signature.indexOf('v3=') + 3)}`, 'SIG');
  // The payment's fundings in the ledger: exactly the one transfer, fund:<payment id>.
  const fundings = async (id: string) =>
    (await s.admin('GET', `/ledger/transfers?account=${encodeURIComponent(`payment:${id}`)}&limit=100`)).body.items
      .filter((t: { kind: string }) => t.kind === 'funding')
      .map((t: { id: string; amount: { value: string } }) => `${t.id} ${t.amount.value}`);

  it('writes no guard item; its transfer keeps the drawn id; a replay byte for byte is 401 and funds nothing twice', async () => {
    const p = await newPayment();
    const fund = funding(p.id);
    expect(answer(await fund.send())).toBe('200');
    expect(await sigItem(fund.signature)).toBeUndefined(); // the transfer holds the guard
    expect((await item(`XFER#fund:${p.id}`, 'XFER'))?.guardId?.S).toMatch(/^[0-9a-f-]{36}$/);
    const replay = await fund.send();
    expect(answer(replay)).toBe('401 unauthorized');
    expect(replay.body.detail).toMatch(/already used/);
    expect(await fundings(p.id)).toEqual([`fund:${p.id} 100`]);
  });

  it('answers another fund request of a funded payment 409 invalid_state, its replay 401; the two racing, 200 and 409; the same one twice at once, 200 and 401', async () => {
    const p = await newPayment();
    expect(answer(await funding(p.id).send())).toBe('200');
    const other = funding(p.id);
    expect(answer(await other.send())).toBe('409 invalid_state');
    expect(answer(await other.send())).toBe('401 unauthorized');
    for (let round = 0; round < 3; round++) {
      const q = await newPayment();
      const [a, b] = [funding(q.id), funding(q.id)];
      expect((await Promise.all([a.send(), b.send()])).map(answer).sort()).toEqual(['200', '409 invalid_state']);
      const r = await newPayment();
      const one = funding(r.id);
      expect((await Promise.all([one.send(), one.send()])).map(answer).sort()).toEqual(['200', '401 unauthorized']);
      for (const id of [q.id, r.id]) expect(await fundings(id)).toEqual([`fund:${id} 100`]);
    }
  });

  it('answers an Idempotency-Key replay of a funding with the same signature 401, with a fresh one its first answer', async () => {
    const p = await newPayment();
    const key = randomUUID();
    const first = funding(p.id, key);
    const made = await first.send();
    expect(made.status).toBe(200);
    expect(answer(await first.send())).toBe('401 unauthorized');
    const again = await funding(p.id, key).send();
    expect([again.status, again.body]).toEqual([200, made.body]);
    expect(await fundings(p.id)).toEqual([`fund:${p.id} 100`]);
  });

  it('leaves a refused funding’s signature used: its replay is 401 even once the funding would succeed', async () => {
    const p = await newPayment(frozen.address);
    const status = (status: string) => s.admin('PATCH', `/wallet-addresses/${frozen.id}`, { status });
    expect((await status('inactive')).status).toBe(200);
    const fund = funding(p.id);
    expect(answer(await fund.send())).toBe('422 wallet_address_inactive');
    expect((await status('active')).status).toBe(200);
    expect(answer(await fund.send())).toBe('401 unauthorized');
    expect((await s.admin('GET', `/payments/${p.id}`)).body.state).toBe('funding');
    expect(await fundings(p.id)).toEqual([]);
    expect(answer(await funding(p.id).send())).toBe('200'); // signed afresh
    expect(await fundings(p.id)).toEqual([`fund:${p.id} 100`]);
  });

  it('leaves the signature of a funding of a payment not made yet used: its replay is 401 once the payment is there', async () => {
    const intent = await s.admin('POST', '/payment-intents', { walletAddress: to, incomingAmount: { value: '100', assetCode: 'FRG', assetScale: 2 } });
    const quote = (await s.admin('POST', '/quotes', { walletAddress: from, receiver: intent.body.id })).body;
    const fund = funding(paymentIdOf(quote.id));
    expect(answer(await fund.send())).toBe('404 payment_not_found');
    expect((await s.admin('POST', '/payments', { walletAddress: from, quoteId: quote.id })).status).toBe(201);
    expect(answer(await fund.send())).toBe('401 unauthorized');
    expect((await s.admin('GET', `/payments/${paymentIdOf(quote.id)}`)).body.state).toBe('funding');
  });

  it('a crash right after the funding commits: the same request again is 401, a fresh one 409; funded once', async () => {
    const p = await newPayment();
    const fund = funding(p.id);
    process.env.PAYMENT_FAULTS = 'payment-fund:after-write';
    expect((await fund.send()).status).toBe(500);
    delete process.env.PAYMENT_FAULTS;
    expect(answer(await fund.send())).toBe('401 unauthorized');
    expect(answer(await funding(p.id).send())).toBe('409 invalid_state');
    expect(await fundings(p.id)).toEqual([`fund:${p.id} 100`]);
  });
});

import { createHash, randomUUID } from 'node:crypto';
import { createServer } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startConsole } from '../../infra/local/start/console';
import { listen, readBody } from '../../infra/local/start/listen';
import { LOCAL_CLIENT_ID } from '../../infra/local/start/operators';
import { launchChromium } from '../browser/browser';
import { startTestStack, type TestStack } from '../harness/stack';

// The console's sign-in as on AWS (CONSOLE_SIGN_IN_URL set, as the template sets it): the page sends
// the operator to Cognito's hosted sign-in by authorization code with PKCE, and trades the code for
// the ID token. Cognito is not on this machine: a stand-in of its two endpoints (/oauth2/authorize
// signs the operator in at once; /oauth2/token gives the ID token only for the verifier whose S256
// hash the authorization carried) and /logout, whose tokens are the local sign-in's, so that the
// local Admin API's authorizer takes them.
const CLIENT_ID = LOCAL_CLIENT_ID; // the local pool's app client, whose tokens the functions take
const OPERATOR = 'admin@fsp.example';

let s: TestStack;
let hosted: { url: string; stop(): Promise<void> };
const seen: { authorize: URLSearchParams[]; tokens: Array<{ status: number; form: URLSearchParams }>; logouts: URLSearchParams[] } = {
  authorize: [],
  tokens: [],
  logouts: [],
};

async function startHostedSignIn(idToken: () => string) {
  const codes = new Map<string, { challenge: string; redirectUri: string }>();
  const server = createServer(async (req, res) => {
    const url = new URL(req.url ?? '/', 'http://localhost');
    const reply = (status: number, headers: Record<string, string>, body = '') => {
      res.writeHead(status, { 'access-control-allow-origin': '*', ...headers });
      res.end(body);
    };
    if (url.pathname === '/oauth2/authorize') {
      const q = url.searchParams;
      seen.authorize.push(q);
      if (q.get('client_id') !== CLIENT_ID || q.get('response_type') !== 'code' || q.get('code_challenge_method') !== 'S256') {
        return reply(400, { 'content-type': 'text/plain' }, 'bad request');
      }
      const code = randomUUID();
      codes.set(code, { challenge: q.get('code_challenge')!, redirectUri: q.get('redirect_uri')! });
      return reply(302, { location: `${q.get('redirect_uri')}?${new URLSearchParams({ code, state: q.get('state')! })}` });
    }
    if (url.pathname === '/oauth2/token' && req.method === 'POST') {
      const form = new URLSearchParams((await readBody(req, 10_000)).toString());
      const granted = codes.get(form.get('code') ?? '');
      codes.delete(form.get('code') ?? '');
      const verified =
        granted &&
        form.get('grant_type') === 'authorization_code' &&
        form.get('client_id') === CLIENT_ID &&
        form.get('redirect_uri') === granted.redirectUri &&
        createHash('sha256')
          .update(form.get('code_verifier') ?? '')
          .digest('base64url') === granted.challenge;
      seen.tokens.push({ status: verified ? 200 : 400, form });
      if (!verified) return reply(400, { 'content-type': 'application/json' }, '{"error":"invalid_grant"}');
      return reply(200, { 'content-type': 'application/json' }, JSON.stringify({ id_token: idToken(), token_type: 'Bearer', expires_in: 900 }));
    }
    if (url.pathname === '/logout') {
      seen.logouts.push(url.searchParams);
      return reply(302, { location: url.searchParams.get('logout_uri')! });
    }
    reply(404, {});
  });
  const { port, stop } = await listen(server, 0);
  return { url: `http://localhost:${port}`, stop };
}

beforeAll(async () => {
  hosted = await startHostedSignIn(() => s.operators.idToken(OPERATOR));
  s = await startTestStack({ CONSOLE_SIGN_IN_URL: hosted.url });
  s.operators.add({ name: OPERATOR, password: 'A-long-Passw0rd!', role: 'admin' });
});
afterAll(async () => {
  await s?.stop();
  await hosted?.stop();
});

describe("the console's hosted sign-in", () => {
  it('signs the operator in by authorization code with PKCE, names the hosted sign-in in its settings and its page policy, and signs out there too', async () => {
    const server = await startConsole({ port: 0, adminUrl: s.adminUrl, operators: s.operators });
    const browser = await launchChromium({ width: 1280, height: 900 });
    try {
      const config = await fetch(`${server.url}/console/config.json`);
      expect(await config.json()).toEqual({ signIn: { kind: 'hosted', url: hosted.url, clientId: CLIENT_ID } });
      expect(config.headers.get('content-security-policy')).toContain(`connect-src 'self' ${hosted.url};`);

      const page = await browser.newPage();
      await page.goto(server.url);
      await page.getByRole('button', { name: 'Sign in' }).click();
      await page.locator('header .who', { hasText: OPERATOR }).waitFor();
      expect(await page.locator('header .who').textContent()).toBe(`${OPERATOR} admin`);
      expect(new URL(page.url()).search).toBe(''); // the code is gone from the address
      const [authorize] = seen.authorize;
      expect(Object.fromEntries(authorize)).toMatchObject({ client_id: CLIENT_ID, redirect_uri: `${server.url}/`, scope: 'openid email' });
      expect(seen.tokens.map((t) => t.status)).toEqual([200]);
      // The page reads the Admin API with the token it got; the local run's dashboard and traces
      // are not offered (CloudWatch and X-Ray have them on AWS): the first page is the payments.
      await page.getByRole('status').filter({ hasText: 'Admin API 0.1.0' }).waitFor();
      await page.locator('nav a[aria-current="page"]', { hasText: 'Payments' }).waitFor();
      expect(await page.locator('nav h2').allTextContents()).toEqual(['Back office']);

      // The code taken by a verifier other than the one whose hash was sent: no token.
      const code = (
        await fetch(`${hosted.url}/oauth2/authorize?${new URLSearchParams({ ...Object.fromEntries(authorize), state: 'x' })}`, { redirect: 'manual' })
      ).headers.get('location')!;
      const refused = await fetch(`${hosted.url}/oauth2/token`, {
        method: 'POST',
        body: new URLSearchParams({
          grant_type: 'authorization_code',
          client_id: CLIENT_ID,
          code: new URL(code).searchParams.get('code')!,
          redirect_uri: `${server.url}/`,
          code_verifier: 'another',
        }),
      });
      expect(refused.status).toBe(400);

      await page.getByRole('button', { name: 'Sign out' }).click();
      await page.getByRole('button', { name: 'Sign in' }).waitFor();
      expect(seen.logouts.map((q) => Object.fromEntries(q))).toEqual([{ client_id: CLIENT_ID, logout_uri: `${server.url}/` }]);
    } finally {
      await browser.close();
      await server.stop();
    }
  });
});

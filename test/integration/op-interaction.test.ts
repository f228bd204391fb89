import { generateKeyPairSync } from 'node:crypto';
import { createHeaders, generateJwk } from '@interledger/http-signature-utils';
import {
  type AuthenticatedClient,
  createAuthenticatedClient,
  isFinalizedGrantWithAccessToken,
  isPendingGrant,
  type PendingGrant,
} from '@interledger/open-payments';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { freePort } from '../../infra/local/emulators/emulators';
import type { startFsp } from '../../infra/local/fsp/fsp';
import { DEFAULT_PORTS } from '../../infra/local/start/defaults';
import { consentInBrowser, consentViaIdp, hashVerifies, interactionOf } from '../browser/consent';
import { DOCS_IMAGES } from '../browser/screenshots';
import { fspSettings, startStackFsp } from '../harness/fsp';
import { startTestStack, type TestStack } from '../harness/stack';
import { ok } from '../harness/world';

// Interactive outgoing-payment grants (GNAP interaction through Rafiki's Identity Provider
// interface), driven by the official Open Payments client as an app would, the user's consent given
// in a real browser on the FSP simulator's consent page, or through the IdP interface directly.
const IDP_SECRET = 'test-idp-secret-0123456789abcdef';
const FINISH = 'http://app.example/return';
// An app's name as it publishes it: the consent page must show it as text, never as markup.
const APP_NAME = 'Coffee <b>Shop</b> & "Co"';

let s: TestStack;
let fsp: Awaited<ReturnType<typeof startFsp>>;
const fspLog: string[] = [];
let app: { api: AuthenticatedClient; walletAddress: string; privateKey: ReturnType<typeof generateKeyPairSync>['privateKey']; keyId: string };
let shop: typeof app; // an app with a plain name, for the picture in docs/
let alice: string;

const amount = (value: string) => ({ value, assetCode: 'USD', assetScale: 2 });
const failure = (p: Promise<unknown>) =>
  p.then(
    () => ({ status: 0, code: 'none', description: '' }),
    (e) => ({ status: e.status, code: e.code, description: String(e.description) }),
  );

async function newApp(name: string, publicName?: string) {
  const created = await ok(
    s.admin('POST', '/wallet-addresses', { address: `${s.openPaymentsUrl}/${name}`, assetCode: 'USD', ...(publicName && { publicName }) }),
  );
  const { privateKey } = generateKeyPairSync('ed25519');
  const keyId = `${name}-key`;
  await ok(s.admin('POST', `/wallet-addresses/${created.id}/keys`, generateJwk({ privateKey, keyId })));
  const api = await createAuthenticatedClient({ walletAddressUrl: created.address, privateKey, keyId, validateResponses: true });
  return { api, walletAddress: created.address as string, privateKey, keyId };
}

const outgoingAccess = (limits: object = { debitAmount: amount('2500') }, identifier = alice) => ({
  access_token: { access: [{ type: 'outgoing-payment' as const, actions: ['create' as const, 'read' as const], identifier, limits }] },
});

async function pending(opts: { nonce?: string; finish?: boolean; limits?: object; client?: typeof app; walletAddress?: string } = {}): Promise<PendingGrant> {
  const nonce = opts.nonce ?? `client-nonce-${Math.random().toString(36).slice(2)}`;
  const interact = { start: ['redirect' as const], ...(opts.finish !== false && { finish: { method: 'redirect' as const, uri: `${FINISH}?order=7`, nonce } }) };
  const grant = await (opts.client ?? app).api.grant.request({ url: s.authServerUrl }, {
    ...outgoingAccess(opts.limits, opts.walletAddress),
    interact,
  } as never);
  if (!isPendingGrant(grant)) throw new Error('expected a pending grant');
  return grant;
}
const cont = (g: PendingGrant, interact_ref?: string, client = app) =>
  client.api.grant.continue({ url: g.continue.uri, accessToken: g.continue.access_token.value }, interact_ref === undefined ? undefined : { interact_ref });
// `secret` null: no x-idp-secret header.
const idp = (path: string, method = 'GET', secret: string | null = IDP_SECRET) =>
  fetch(`${s.authServerUrl}${path}`, { method, headers: secret === null ? {} : { 'x-idp-secret': secret } });
const problem = async (res: Response) => ({ status: res.status, type: res.headers.get('content-type'), code: (await res.json()).code });
// GNAP's wait between continuations, passed on the clock (the stack runs in this process) rather than slept.
const pass = (ms: number) => {
  if (!vi.isFakeTimers()) vi.useFakeTimers({ toFake: ['Date'] });
  vi.setSystemTime(Date.now() + ms);
};

beforeAll(async () => {
  // The simulator's port first (the stack's consent URL), then the simulator, told the auth server's URL.
  const fspPort = DOCS_IMAGES ? DEFAULT_PORTS.fsp : await freePort();
  s = await startTestStack(
    {
      ...fspSettings(fspPort, IDP_SECRET),
      GNAP_WAIT_SECS: '1',
    },
    DOCS_IMAGES
      ? {
          ports: {
            admin: DEFAULT_PORTS.admin,
            openPayments: DEFAULT_PORTS.openPayments,
            authServer: DEFAULT_PORTS.authServer,
            connector: DEFAULT_PORTS.connector,
          },
        }
      : {},
  ); // the docs' consent page shows the default ports' URLs
  fsp = await startStackFsp(s, fspPort, {
    autoFund: false,
    log: (line) => fspLog.push(line),
    authServerUrl: s.authServerUrl,
    idpSecret: IDP_SECRET,
  });
  await ok(s.admin('POST', '/assets', { code: 'USD', scale: 2 }));
  alice = (await ok(s.admin('POST', '/wallet-addresses', { address: `${s.openPaymentsUrl}/alice`, assetCode: 'USD', publicName: 'Alice' }))).address;
  app = await newApp('coffee-app', APP_NAME);
  shop = await newApp('shop-app', 'Corner Shop');
});
afterAll(async () => {
  await fsp?.stop();
  await s?.stop();
});
afterEach(() => vi.useRealTimers());

describe('an interactive outgoing-payment grant, consented in a browser', () => {
  it('the app is sent to the consent page, the user accepts, the hash verifies, and the interact_ref gets the token, once', async () => {
    const clientNonce = 'app-nonce-1';
    const grant = await pending({ nonce: clientNonce, limits: { debitAmount: amount('2500'), interval: 'R/2026-01-01T00:00:00Z/P1M' }, client: shop });
    expect(grant.interact.redirect).toMatch(new RegExp(`^${s.authServerUrl}/interact/[0-9a-f-]{36}/[A-Za-z0-9_-]{43}\\?clientName=`));
    expect(grant.continue).toMatchObject({ uri: expect.stringMatching(`^${s.authServerUrl}/continue/`), wait: 1 });
    // Polling before consent: wait, then still pending; sooner is too fast.
    pass(1100);
    expect(await cont(grant, undefined, shop)).toMatchObject({ continue: { wait: 1 } });
    expect(await failure(cont(grant, undefined, shop))).toMatchObject({ status: 400, code: 'too_fast' });

    const { finish, consentText } = await consentInBrowser(grant.interact.redirect, 'accept', {
      finishUri: FINISH,
      screenshot: 'consent.png',
    });
    expect(consentText).toContain('Corner Shop wants to make payments from your account');
    expect(consentText).toContain(shop.walletAddress);
    expect(consentText).toContain(alice);
    expect(consentText).toContain('25.00 USD');
    expect(consentText).toContain('every month, from 2026-01-01T00:00:00Z');
    expect(finish.searchParams.get('order')).toBe('7'); // the finish URI's own query is kept
    expect(finish.searchParams.get('result')).toBeNull();
    expect(hashVerifies(finish, clientNonce, grant.interact.finish, s.authServerUrl)).toBe(true);
    expect(hashVerifies(finish, 'another-nonce', grant.interact.finish, s.authServerUrl)).toBe(false);
    expect(hashVerifies(finish, clientNonce, grant.interact.finish, `${s.authServerUrl}/`)).toBe(false);

    const interactRef = finish.searchParams.get('interact_ref')!;
    const approved = await cont(grant, interactRef, shop);
    if (!isFinalizedGrantWithAccessToken(approved)) throw new Error('expected an access token');
    expect(approved.access_token.access).toEqual([
      {
        type: 'outgoing-payment',
        actions: ['create', 'read'],
        identifier: alice,
        limits: { debitAmount: amount('2500'), interval: 'R/2026-01-01T00:00:00Z/P1M' },
      },
    ]);
    // A working, managed token.
    const rotated = await shop.api.token.rotate({ url: approved.access_token.manage, accessToken: approved.access_token.value });
    expect(rotated.access_token.value).not.toBe(approved.access_token.value);

    // The reference is good once; the interaction's URLs do nothing more.
    expect(await failure(cont(grant, interactRef, shop))).toMatchObject({ status: 401, code: 'request_denied' });
    const { id, nonce } = interactionOf(grant.interact.redirect);
    const again = await fetch(grant.interact.redirect, { redirect: 'manual' });
    expect([again.status, again.headers.get('location')]).toEqual([403, null]);
    expect(await problem(await fetch(`${s.authServerUrl}/interact/${id}/${nonce}/finish`, { redirect: 'manual' }))).toEqual({
      status: 401,
      type: 'application/problem+json',
      code: 'invalid_request',
    });
    expect(await problem(await idp(`/grant/${id}/${nonce}/accept`, 'POST'))).toMatchObject({ status: 400, code: 'invalid_interaction' });
    expect(await (await idp(`/grant/${id}/${nonce}`)).json()).toMatchObject({ grantId: id, state: 'APPROVED' });

    // The simulator logged the choice and keeps it.
    expect(fspLog).toContain(`[fsp] consent accept grant ${id} client Corner Shop for ${alice}`);
    const decisions = await (await fetch(`${fsp.url}/consent/decisions`)).json();
    expect(decisions).toContainEqual(expect.objectContaining({ grantId: id, choice: 'accept', client: 'Corner Shop', walletAddresses: [alice], status: 202 }));
  });

  it('rejected in the browser: back to the app with result=grant_rejected, and no token for any reference', async () => {
    const grant = await pending();
    const { finish, consentText } = await consentInBrowser(grant.interact.redirect, 'reject', { finishUri: FINISH });
    expect(consentText).toContain(`${APP_NAME} wants to make payments from your account`); // as text: escaped, not markup
    expect(consentText).toContain(app.walletAddress);
    expect(finish.searchParams.get('result')).toBe('grant_rejected');
    expect(finish.searchParams.get('hash')).toBeNull();
    expect(finish.searchParams.get('interact_ref')).toBeNull();
    expect(await failure(cont(grant, 'anything'))).toMatchObject({ status: 401, code: 'request_denied' });
    pass(1100);
    expect(await failure(cont(grant))).toMatchObject({ status: 401, code: 'request_denied' });
    const { id, nonce } = interactionOf(grant.interact.redirect);
    expect(await (await idp(`/grant/${id}/${nonce}`)).json()).toMatchObject({ state: 'DENIED' });
    expect(await problem(await idp(`/grant/${id}/${nonce}/accept`, 'POST'))).toMatchObject({ status: 401, code: 'user_denied' });
    expect(fspLog).toContain(`[fsp] consent reject grant ${id} client ${APP_NAME} for ${alice}`);
  });
});

describe('the consent page', () => {
  it('refuses a form that did not come from it, and says when a request is unknown or decided', async () => {
    const grant = await pending();
    const { id, nonce } = interactionOf(grant.interact.redirect);
    const post = (form: Record<string, string>) =>
      fetch(`${fsp.url}/consent`, {
        method: 'POST',
        redirect: 'manual',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams(form),
      });
    expect((await post({ interactId: id, nonce, choice: 'accept', csrf: 'forged' })).status).toBe(403);
    expect((await post({ interactId: id, nonce, choice: 'accept' })).status).toBe(403);
    expect((await fetch(`${fsp.url}/consent?interactId=${id}&nonce=wrong`)).status).toBe(404);
    expect((await fetch(`${fsp.url}/consent`)).status).toBe(400);
    expect(await (await idp(`/grant/${id}/${nonce}`)).json()).toMatchObject({ state: 'PENDING' }); // nothing was decided
    await consentViaIdp(grant.interact.redirect, 'accept', { idpSecret: IDP_SECRET });
    const decided = await fetch(`${fsp.url}/consent?interactId=${id}&nonce=${nonce}`);
    expect(decided.status).toBe(409);
    expect(await decided.text()).toContain('accepted already');
  });
});

// Issue 28: consent for one outgoing payment widened the grant past what the user saw (read-all and
// list-all over everyone, unjudged). Every item is judged by its own rule, the user consents for one
// wallet address, the page lists every item, and no token shows another client's metadata.
describe('what a consented grant holds', () => {
  it('the consent page lists every item it approves: type, actions, wallet address, limits', async () => {
    const access = [
      {
        type: 'outgoing-payment',
        actions: ['create', 'read'],
        identifier: alice,
        limits: { debitAmount: amount('1500'), receiver: `${s.openPaymentsUrl}/incoming-payments/x` },
      },
      { type: 'incoming-payment', actions: ['create', 'list-all'], identifier: `${alice}/` },
      { type: 'quote', actions: ['create'] },
    ];
    const grant = await app.api.grant.request({ url: s.authServerUrl }, {
      access_token: { access },
      interact: { start: ['redirect'], finish: { method: 'redirect', uri: FINISH, nonce: 'n-items' } },
    } as never);
    if (!isPendingGrant(grant)) throw new Error('expected a pending grant');
    const { id, nonce } = interactionOf(grant.interact.redirect);
    const html = await (await fetch(`${fsp.url}/consent?interactId=${id}&nonce=${nonce}`)).text();
    const items = html.split('<div class="item">').slice(1);
    expect(items).toHaveLength(3);
    expect(items[0]).toContain('Payments from your account');
    expect(items[0]).toContain('send payments, see the payments it sent');
    expect(items[0]).toContain(alice);
    expect(items[0]).toContain('15.00 USD');
    expect(items[0]).toContain('/incoming-payments/x');
    expect(items[1]).toContain('Payments to your account');
    expect(items[1]).toContain('ask for payments into it, list all payments into this account');
    expect(items[1]).toContain('incoming-payment: create, list-all');
    expect(items[1]).toContain(`${alice}/`);
    expect(items[2]).toContain('Quotes');
    expect(items[2]).toContain('quote: create');
    expect(items[2]).toContain('any (only what the app itself makes, or is given to pay)');
    await app.api.grant.cancel({ url: grant.continue.uri, accessToken: grant.continue.access_token.value });
  });

  it('asks the owner of one wallet address: items naming another are refused, 400 naming the item', async () => {
    const bob = (await ok(s.admin('POST', '/wallet-addresses', { address: `${s.openPaymentsUrl}/bob-${Date.now()}`, assetCode: 'USD' }))).address;
    const refused = await failure(
      app.api.grant.request({ url: s.authServerUrl }, {
        access_token: {
          access: [
            { type: 'outgoing-payment', actions: ['create'], identifier: alice },
            { type: 'incoming-payment', actions: ['list-all'], identifier: bob },
          ],
        },
        interact: { start: ['redirect'] },
      } as never),
    );
    expect(refused).toMatchObject({ status: 400, code: 'invalid_request', description: expect.stringContaining('access_token.access[1]') });
  });

  it('a consented token shows another client’s incoming payments without their metadata, and lists only the consenting wallet address', async () => {
    const bob = (await ok(s.admin('POST', '/wallet-addresses', { address: `${s.openPaymentsUrl}/bobby-${Date.now()}`, assetCode: 'USD' }))).address;
    const other = await newApp(`other-app-${Date.now()}`, 'Other app');
    const made = async (walletAddress: string) => {
      const g = await other.api.grant.request({ url: s.authServerUrl }, {
        access_token: { access: [{ type: 'incoming-payment', actions: ['create'] }] },
      } as never);
      if (!isFinalizedGrantWithAccessToken(g)) throw new Error('expected a grant at once');
      return other.api.incomingPayment.create(
        { url: s.openPaymentsUrl, accessToken: g.access_token.value },
        { walletAddress, metadata: { secret: 'the other app’s' } },
      );
    };
    const [toBob, toAlice] = [await made(bob), await made(alice)];
    const grant = await app.api.grant.request({ url: s.authServerUrl }, {
      access_token: {
        access: [
          { type: 'outgoing-payment', actions: ['create'], identifier: alice, limits: { debitAmount: amount('1') } },
          { type: 'incoming-payment', actions: ['read-all', 'list-all'], identifier: alice },
          { type: 'incoming-payment', actions: ['read-all'] },
        ],
      },
      interact: { start: ['redirect'], finish: { method: 'redirect', uri: FINISH, nonce: 'n-wide' } },
    } as never);
    if (!isPendingGrant(grant)) throw new Error('expected a pending grant');
    const consent = await consentViaIdp(grant.interact.redirect, 'accept', { idpSecret: IDP_SECRET });
    const approved = await cont(grant, consent.finish!.searchParams.get('interact_ref')!);
    if (!isFinalizedGrantWithAccessToken(approved)) throw new Error('expected a token');
    const accessToken = approved.access_token.value;
    const read = await app.api.incomingPayment.get({ url: toBob.id, accessToken });
    expect(read).toMatchObject({ id: toBob.id, methods: [{ type: 'ilp' }] });
    expect(read).not.toHaveProperty('metadata');
    const listed = await app.api.incomingPayment.list({ url: s.openPaymentsUrl, walletAddress: alice, accessToken });
    const shown = listed.result.find((p) => p.id === toAlice.id);
    expect(shown).toBeDefined();
    expect(shown).not.toHaveProperty('metadata');
    expect(await failure(app.api.incomingPayment.list({ url: s.openPaymentsUrl, walletAddress: bob, accessToken }))).toMatchObject({ status: 403 });
    expect(await failure(app.api.incomingPayment.complete({ url: toAlice.id, accessToken }))).toMatchObject({ status: 403 });
  });
});

describe('continuing', () => {
  it('refuses a wrong interact_ref, and another grant’s, then takes the right one', async () => {
    const [one, two] = [await pending({ nonce: 'n-one' }), await pending({ nonce: 'n-two' })];
    const first = await consentViaIdp(one.interact.redirect, 'accept', { idpSecret: IDP_SECRET });
    const second = await consentViaIdp(two.interact.redirect, 'accept', { idpSecret: IDP_SECRET });
    expect([first.start.status, first.decision.status, first.finishResponse.status]).toEqual([302, 202, 302]);
    const ref = (c: typeof first) => c.finish!.searchParams.get('interact_ref')!;
    expect(hashVerifies(first.finish!, 'n-one', one.interact.finish, s.authServerUrl)).toBe(true);
    expect(await failure(cont(one, 'not-the-reference'))).toMatchObject({ status: 404, code: 'invalid_continuation' });
    expect(await failure(cont(one, ref(second)))).toMatchObject({ status: 404, code: 'invalid_continuation' });
    // A consented grant with a finish URI is continued with its reference, not by polling.
    expect(await failure(cont(one))).toMatchObject({ status: 400, code: 'invalid_request' });
    expect(isFinalizedGrantWithAccessToken(await cont(one, ref(first)))).toBe(true);
    expect(isFinalizedGrantWithAccessToken(await cont(two, ref(second)))).toBe(true);
  });

  it('consented, then its wallet address frozen: no token (403), the grant kept as it was; active again, the same interact_ref gets it', async () => {
    const carol = await ok(s.admin('POST', '/wallet-addresses', { address: `${s.openPaymentsUrl}/carol`, assetCode: 'USD', publicName: 'Carol' }));
    const grant = await pending({ walletAddress: carol.address });
    const consent = await consentViaIdp(grant.interact.redirect, 'accept', { idpSecret: IDP_SECRET });
    const ref = consent.finish!.searchParams.get('interact_ref')!;
    await ok(s.admin('PATCH', `/wallet-addresses/${carol.id}`, { status: 'inactive' }), 200);
    expect(await failure(cont(grant, ref))).toMatchObject({ status: 403, code: 'request_denied', description: expect.stringContaining(carol.address) });

    // The refusal changed nothing: the same reference, once the address is active, gets the token.
    await ok(s.admin('PATCH', `/wallet-addresses/${carol.id}`, { status: 'active' }), 200);
    const approved = await cont(grant, ref);
    if (!isFinalizedGrantWithAccessToken(approved)) throw new Error('expected an access token');
    expect(approved.access_token.access[0]).toMatchObject({ identifier: carol.address });
  });

  it('a grant without a finish URI: the interaction ends with 202 and a poll gets the token', async () => {
    const grant = await pending({ finish: false });
    const consent = await consentViaIdp(grant.interact.redirect, 'accept', { idpSecret: IDP_SECRET });
    expect(consent.finishResponse.status).toBe(202);
    pass(1100);
    const approved = await cont(grant);
    expect(isFinalizedGrantWithAccessToken(approved)).toBe(true);
    pass(1100);
    expect(await failure(cont(grant))).toMatchObject({ status: 401, code: 'request_denied' }); // issued once
  });

  it('an interaction expires: the start sends the user back with "interaction expired", and nothing is issued', async () => {
    const grant = await pending();
    const started = await consentViaIdp(grant.interact.redirect, 'accept', { idpSecret: IDP_SECRET });
    const late = await pending();
    pass(601_000);
    const start = await fetch(late.interact.redirect, { redirect: 'manual' });
    expect(start.status).toBe(302);
    expect(Object.fromEntries(new URL(start.headers.get('location')!).searchParams)).toMatchObject({
      result: 'invalid_interaction',
      message: 'interaction expired',
    });
    expect(await failure(cont(late))).toMatchObject({ status: 401, code: 'request_denied' });
    // A reference not presented in time is good for nothing.
    expect(await failure(cont(grant, started.finish!.searchParams.get('interact_ref')!))).toMatchObject({ status: 401, code: 'request_denied' });
  });
});

describe('the IdP interface', () => {
  it('shows the IdP what is asked, with the client as its wallet address publishes it', async () => {
    const grant = await pending();
    const { id, nonce } = interactionOf(grant.interact.redirect);
    expect(await (await idp(`/grant/${id}/${nonce}`)).json()).toEqual({
      grantId: id,
      access: outgoingAccess().access_token.access,
      state: 'PENDING',
      client: { name: APP_NAME, uri: app.walletAddress },
    });
    const start = await fetch(grant.interact.redirect, { redirect: 'manual' });
    const consent = new URL(start.headers.get('location')!);
    expect(Object.fromEntries(consent.searchParams)).toEqual({ interactId: id, nonce, clientName: APP_NAME, clientUri: app.walletAddress });
    expect(start.headers.get('set-cookie')).toMatch(new RegExp(`^gnap_session=[A-Za-z0-9_-]{43}; Path=/interact/${id}; Max-Age=\\d+; HttpOnly; SameSite=Lax$`));
  });

  it('refuses a wrong or missing secret, an unknown id or nonce, a choice before the start, another choice', async () => {
    const grant = await pending();
    const { id, nonce } = interactionOf(grant.interact.redirect);
    const refused = { status: 401, type: 'application/problem+json' };
    expect(await problem(await idp(`/grant/${id}/${nonce}`, 'GET', 'wrong'))).toEqual({ ...refused, code: 'invalid_request' });
    expect(await problem(await idp(`/grant/${id}/${nonce}`, 'GET', null))).toEqual({ ...refused, code: 'invalid_request' });
    expect(await problem(await idp(`/grant/${id}/${nonce}/accept`, 'POST', `${IDP_SECRET}x`))).toEqual({ ...refused, code: 'invalid_interaction' });
    const unknown = { status: 404, type: 'application/problem+json', code: 'unknown_interaction' };
    expect(await problem(await idp(`/grant/${id}/${nonce.slice(1)}A`))).toEqual(unknown);
    expect(await problem(await idp(`/grant/00000000-0000-4000-8000-000000000000/${nonce}`))).toEqual(unknown);
    expect(await problem(await idp(`/grant/${id}/${nonce}x/accept`, 'POST'))).toEqual(unknown);
    expect(await problem(await idp(`/grant/${id}/${nonce}/accept`, 'POST'))).toMatchObject({ status: 400, code: 'invalid_interaction' }); // not started
    expect(await problem(await idp(`/grant/${id}/${nonce}/maybe`, 'POST'))).toMatchObject({ status: 400, code: 'invalid_request' });
    expect(await problem(await fetch(`${s.authServerUrl}/interact/${id}/${nonce}x`, { redirect: 'manual' }))).toMatchObject({
      status: 400,
      code: 'unknown_interaction',
    });
    expect(await (await idp(`/grant/${id}/${nonce}`)).json()).toMatchObject({ state: 'PENDING' }); // unchanged
  });

  // Issue 28: once decided, the start URL went on redirecting (to the app's finish URI) for good.
  it('answers the start URL until the decision, then says it was decided and sends the browser nowhere', async () => {
    const grant = await pending();
    const { id, nonce } = interactionOf(grant.interact.redirect);
    expect((await fetch(grant.interact.redirect, { redirect: 'manual' })).status).toBe(302); // a previewer, then the user
    const started = await fetch(grant.interact.redirect, { redirect: 'manual' });
    expect(started.status).toBe(302);
    expect((await idp(`/grant/${id}/${nonce}/accept`, 'POST')).status).toBe(202);
    const decided = await fetch(grant.interact.redirect, { redirect: 'manual' });
    expect([decided.status, decided.headers.get('location'), decided.headers.get('content-type')]).toEqual([403, null, 'application/problem+json']);
    expect(await decided.json()).toMatchObject({ code: 'invalid_interaction', detail: expect.stringContaining('decided already') });
    // The user still finishes in the browser that started, and the start URL stays spent.
    const cookie = started.headers.get('set-cookie')!.split(';')[0];
    const finished = await fetch(`${s.authServerUrl}/interact/${id}/${nonce}/finish`, { redirect: 'manual', headers: { cookie } });
    expect(new URL(finished.headers.get('location')!).searchParams.get('interact_ref')).toBeTruthy();
    const after = await fetch(grant.interact.redirect, { redirect: 'manual' });
    expect([after.status, after.headers.get('location')]).toEqual([403, null]);
  });

  it('finishes only in the browser that started last, and only once', async () => {
    const grant = await pending();
    const { id, nonce } = interactionOf(grant.interact.redirect);
    const previewer = await fetch(grant.interact.redirect, { redirect: 'manual' }); // a link previewer, first
    const user = await consentViaIdp(grant.interact.redirect, 'accept', { idpSecret: IDP_SECRET });
    expect(user.finish!.searchParams.get('interact_ref')).toBeTruthy();
    const previewerCookie = previewer.headers.get('set-cookie')!.split(';')[0];
    const finishWith = (cookie: string) => fetch(`${s.authServerUrl}/interact/${id}/${nonce}/finish`, { redirect: 'manual', headers: { cookie } });
    expect((await finishWith(previewerCookie)).status).toBe(401);
    const replay = await finishWith(user.cookie);
    expect(replay.status).toBe(302);
    const back = new URL(replay.headers.get('location')!);
    expect([back.searchParams.get('result'), back.searchParams.get('interact_ref')]).toEqual(['invalid_interaction', null]);
  });
});

describe('what a grant request must be to interact', () => {
  it('a client that gives its key (client: {jwk}) or publishes no publicName is refused: invalid_client', async () => {
    const { privateKey } = generateKeyPairSync('ed25519');
    const jwk = generateJwk({ privateKey, keyId: 'stranger-key' });
    const api = await createAuthenticatedClient({
      walletAddressUrl: 'https://stranger.example/me',
      privateKey,
      keyId: 'stranger-key',
      validateResponses: true,
    });
    const interact = { start: ['redirect'], finish: { method: 'redirect', uri: FINISH, nonce: 'n' } };
    expect(await failure(api.grant.request({ url: s.authServerUrl }, { ...outgoingAccess(), interact } as never, { jwk: jwk as never }))).toMatchObject({
      status: 400,
      code: 'invalid_client',
    });
    const nameless = await newApp('nameless-app');
    expect(await failure(pending({ client: nameless }))).toMatchObject({ status: 400, code: 'invalid_client' });
  });

  // Issue 28: a finish URI with user info was taken; the browser would be sent to it with those credentials.
  it('a finish URI with user info is refused: 400, nothing pending', async () => {
    for (const uri of ['https://user:pw@app.example/return', 'https://user@app.example/return', 'http://:pw@app.example/return']) {
      const interact = { start: ['redirect'], finish: { method: 'redirect', uri, nonce: 'n' } };
      const refused = await failure(app.api.grant.request({ url: s.authServerUrl }, { ...outgoingAccess(), interact } as never));
      expect(refused, uri).toMatchObject({ status: 400, code: 'invalid_request', description: expect.stringContaining('user info') });
    }
  });

  it('GNAP discovery lists the interaction modes once a consent page is set', async () => {
    expect(await (await fetch(`${s.authServerUrl}/discovery`)).json()).toEqual({
      grant_request_endpoint: s.authServerUrl,
      interaction_start_modes_supported: ['redirect'],
      interaction_finish_methods_supported: ['redirect'],
      interaction_finish_modes_supported: ['redirect'],
      key_proofs_supported: ['httpsig'],
    });
  });
});

describe('bad input to the interaction routes: a 4xx problem, never a 500, nothing changed', () => {
  const signedContinue = async (g: PendingGrant, body: string) => {
    const request = {
      method: 'POST',
      url: g.continue.uri,
      headers: { 'content-type': 'application/json', authorization: `GNAP ${g.continue.access_token.value}` },
      body,
    };
    // (The signing library reads a body as JSON: one that is not goes unsigned, and is refused first.)
    const json = (() => {
      try {
        JSON.parse(body);
        return true;
      } catch {
        return false;
      }
    })();
    const headers = json ? await createHeaders({ request, privateKey: app.privateKey, keyId: app.keyId }) : {};
    return fetch(g.continue.uri, { method: 'POST', headers: { ...request.headers, ...headers }, body });
  };

  it('on the front and back channels', async () => {
    const grant = await pending();
    const { id, nonce } = interactionOf(grant.interact.redirect);
    const long = 'a'.repeat(2100);
    const cases: Array<[string, string, Record<string, string>?]> = [
      ['GET', `/interact/${long}/${nonce}`],
      ['GET', `/interact/${id}/${long}`],
      ['GET', `/interact/${id}/${encodeURIComponent('../../x')}`],
      ['GET', `/interact/${id}/${nonce}/finish/more`],
      ['GET', `/interact/${id}`],
      ['GET', `/interact/${long}/${nonce}/finish`],
      ['GET', `/interact/${id}/${nonce}/finish`, { cookie: `gnap_session=${long}` }],
      ['GET', `/interact/${id}/${nonce}/finish`, { cookie: '=;;gnap_session' }],
      ['POST', `/interact/${id}/${nonce}`],
      ['DELETE', `/grant/${id}/${nonce}`, { 'x-idp-secret': IDP_SECRET }],
      ['GET', `/grant/${long}/${nonce}`, { 'x-idp-secret': IDP_SECRET }],
      ['GET', `/grant/${id}/${nonce}`, { 'x-idp-secret': long }],
      ['POST', `/grant/${id}/${nonce}/${long}`, { 'x-idp-secret': IDP_SECRET }],
      ['POST', `/grant/${id}/${long}/accept`, { 'x-idp-secret': IDP_SECRET }],
      ['GET', `/grant/${id}/${nonce}/accept`, { 'x-idp-secret': IDP_SECRET }],
      ['GET', '/grant', { 'x-idp-secret': IDP_SECRET }],
    ];
    for (const [method, path, headers] of cases) {
      const res = await fetch(`${s.authServerUrl}${path}`, { method, redirect: 'manual', headers });
      const label = `${method} ${path.slice(0, 80)}`;
      expect(res.status, label).toBeGreaterThanOrEqual(400);
      expect(res.status, label).toBeLessThan(500);
      expect(res.headers.get('content-type'), label).toBe('application/problem+json');
      expect((await res.json()).error?.code, label).toEqual(expect.any(String));
    }
    expect(await (await idp(`/grant/${id}/${nonce}`)).json()).toMatchObject({ state: 'PENDING' });
    // Still startable and decidable as if nothing had happened.
    const consent = await consentViaIdp(grant.interact.redirect, 'accept', { idpSecret: IDP_SECRET });
    expect(consent.finish!.searchParams.get('interact_ref')).toBeTruthy();
  });

  it('on continuation: not JSON, wrong types, an over-long interact_ref', async () => {
    const grant = await pending();
    const consent = await consentViaIdp(grant.interact.redirect, 'accept', { idpSecret: IDP_SECRET });
    for (const body of ['{', '[]', 'null', '{"interact_ref": 5}', '{"interact_ref": ""}', JSON.stringify({ interact_ref: 'x'.repeat(5000) })]) {
      const res = await signedContinue(grant, body);
      expect(res.status, body.slice(0, 40)).toBe(400);
      expect(res.headers.get('content-type')).toBe('application/problem+json');
    }
    // The grant still continues with its reference.
    expect(isFinalizedGrantWithAccessToken(await cont(grant, consent.finish!.searchParams.get('interact_ref')!))).toBe(true);
  });
});

import { createHmac, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { money } from '../../../console/amounts';
import type { Amount } from '../../../console/api';
import { readBody } from '../start/listen';

// The local FSP simulator's consent page (infra/local/fsp/fsp.ts serves it at /consent): what an FSP's
// identity provider does for an interactive Open Payments grant, through the authorization
// server's Identity Provider interface (Rafiki's; docs/open-payments.md), and nothing else:
// GET /grant/{id}/{nonce} to show what the app asks, POST /grant/{id}/{nonce}/{accept|reject}
// with the user's choice, both with x-idp-secret (which the browser never sees), then the
// browser back to /interact/{id}/{nonce}/finish, which sends it to the app. A real FSP signs in
// the owner of the wallet address first; the simulator says so and does not.
export interface ConsentOptions {
  authServerUrl: string;
  idpSecret: string;
  log: (line: string) => void;
}

export interface Decision {
  at: string;
  grantId: string;
  choice: 'accept' | 'reject';
  client: string;
  walletAddresses: string[];
  status: number; // the authorization server's answer (202: taken)
}

interface AccessItem {
  type: string;
  actions: string[];
  identifier?: string;
  limits?: { debitAmount?: Amount; receiveAmount?: Amount; interval?: string; receiver?: string };
}
interface IdpGrant {
  grantId: string;
  access: AccessItem[];
  state: 'PENDING' | 'APPROVED' | 'DENIED';
  client?: { name?: string; uri?: string };
}

const MAX_FORM = 4096;
const esc = (v: unknown) => String(v ?? '').replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);

const UNITS: Array<[string, string]> = [
  ['Y', 'year'],
  ['M', 'month'],
  ['W', 'week'],
  ['D', 'day'],
  ['H', 'hour'],
  ['TM', 'minute'],
  ['S', 'second'],
];

// "R/2026-01-01T00:00:00Z/P1M" -> "every month, from 2026-01-01T00:00:00Z"; undefined when it
// reads otherwise (the raw string is shown anyway).
export function intervalInWords(interval: string): string | undefined {
  const [reps, start, duration] = interval.split('/');
  const m = /^P(?:(\d+)Y)?(?:(\d+)M)?(?:(\d+)W)?(?:(\d+)D)?(?:T(?:(\d+)H)?(?:(\d+)M)?(?:(\d+)S)?)?$/.exec(duration ?? '');
  if (!m || !/^R\d*$/.test(reps ?? '') || !start || start.startsWith('P')) return undefined;
  const parts = UNITS.map(([, unit], i) => [Number(m[i + 1] ?? 0), unit] as const).filter(([n]) => n > 0);
  if (!parts.length) return undefined;
  const every = parts.length === 1 && parts[0][0] === 1 ? parts[0][1] : parts.map(([n, unit]) => `${n} ${unit}${n === 1 ? '' : 's'}`).join(' ');
  const times = reps === 'R' ? '' : `, ${Number(reps.slice(1)) + 1} times`;
  return `every ${every}, from ${start}${times}`;
}

// What each action lets the app do, by type: the page says it in words, then as sent.
const ACTIONS: Record<string, Record<string, string>> = {
  'outgoing-payment': {
    create: 'send payments',
    read: 'see the payments it sent',
    'read-all': 'see all payments from this account',
    list: 'list the payments it sent',
    'list-all': 'list all payments from this account',
  },
  'incoming-payment': {
    create: 'ask for payments into it',
    read: 'see the payment requests it made',
    'read-all': 'see a payment request it is given to pay (amounts and state, never its details)',
    list: 'list the payment requests it made',
    'list-all': 'list all payments into this account (never their details)',
    complete: 'close the payment requests it made',
  },
  quote: { create: 'get quotes', read: 'see the quotes it got', 'read-all': 'see all quotes of this account' },
};
const TYPES: Record<string, string> = { 'outgoing-payment': 'Payments from your account', 'incoming-payment': 'Payments to your account', quote: 'Quotes' };

const csrfToken = (secret: string, id: string, nonce: string) => createHmac('sha256', secret).update(`consent\n${id}\n${nonce}`).digest('base64url');
const sameToken = (a: string, b: string) => a.length === b.length && timingSafeEqual(Buffer.from(a), Buffer.from(b));

const STYLE = `
:root { --ink: #1d2430; --muted: #5b6472; --line: #dfe3e8; --panel: #fff; --ground: #f4f6f8; --accent: #2f6fdf; --alarm: #c92a2a; }
* { box-sizing: border-box; }
body { margin: 0; font: 15px/1.5 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; color: var(--ink); background: var(--ground); }
header { background: var(--panel); border-bottom: 1px solid var(--line); padding: 14px 24px; font-weight: 600; letter-spacing: .2px; }
header span { color: var(--muted); font-weight: 400; margin-left: 8px; }
main { max-width: 560px; margin: 40px auto; padding: 0 16px; }
.card { background: var(--panel); border: 1px solid var(--line); border-radius: 10px; padding: 28px; box-shadow: 0 1px 3px rgba(0,0,0,.04); }
h1 { font-size: 21px; margin: 0 0 6px; line-height: 1.3; }
.sub { color: var(--muted); margin: 0 0 22px; }
dl { display: grid; grid-template-columns: 140px 1fr; gap: 8px 14px; margin: 0 0 18px; }
dt { color: var(--muted); }
dd { margin: 0; overflow-wrap: anywhere; }
.item { border: 1px solid var(--line); border-radius: 8px; padding: 14px 16px; margin: 0 0 14px; }
.item h2 { font-size: 15px; margin: 0 0 10px; }
.item dl { margin: 0; }
.amount { font-weight: 600; font-size: 17px; }
.raw { color: var(--muted); font-family: ui-monospace, SFMono-Regular, Menlo, monospace; font-size: 12.5px; }
.note { background: #fff8e1; border: 1px solid #f1e0a6; border-radius: 8px; padding: 10px 14px; font-size: 13.5px; color: #5c4a12; margin: 18px 0; }
.actions { display: flex; gap: 12px; margin-top: 22px; }
button { flex: 1; font: inherit; font-weight: 600; padding: 11px 16px; border-radius: 8px; cursor: pointer; border: 1px solid var(--line); background: var(--panel); color: var(--ink); }
button#accept { background: var(--accent); border-color: var(--accent); color: #fff; }
button#reject:hover { border-color: var(--alarm); color: var(--alarm); }
.error h1 { color: var(--alarm); }
`;

function page(title: string, body: string): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${esc(title)}</title><style>${STYLE}</style></head>
<body><header>Your FSP<span>local simulator: consent</span></header><main>${body}</main></body></html>`;
}

const message = (title: string, text: string, error = false) =>
  page(title, `<div class="card${error ? ' error' : ''}"><h1>${esc(title)}</h1><p class="sub">${esc(text)}</p></div>`);

function limitsOf(item: AccessItem): string {
  const l = item.limits;
  if (!l) return '<dt>Limits</dt><dd>none: any amount</dd>';
  const rows: string[] = [];
  if (l.debitAmount) rows.push(`<dt>At most</dt><dd class="amount">${esc(money(l.debitAmount))}</dd>`);
  if (l.receiveAmount) rows.push(`<dt>Delivering at most</dt><dd class="amount">${esc(money(l.receiveAmount))}</dd>`);
  if (l.interval) {
    const words = intervalInWords(l.interval);
    rows.push(`<dt>Per period</dt><dd>${words ? `${esc(words)}<br>` : ''}<span class="raw">${esc(l.interval)}</span></dd>`);
  }
  if (l.receiver) rows.push(`<dt>Only to</dt><dd class="raw">${esc(l.receiver)}</dd>`);
  return rows.join('');
}

// The wallet addresses a grant's access items name, each once.
const walletsOf = (access: AccessItem[]) => [...new Set(access.flatMap((a) => (a.identifier ? [a.identifier] : [])))];

function consentPage(g: IdpGrant, id: string, nonce: string, csrf: string, fallback: { name: string; uri: string }): string {
  // The authorization server's word on the client first: the query string is anyone's to edit.
  const name = g.client?.name || fallback.name || 'An app';
  const uri = g.client?.uri || fallback.uri;
  const wallets = walletsOf(g.access);
  // Every item the user approves, each with its wallet address ("any" when it names none: then the
  // authorization server gives it only what it issues without consent) and its limits.
  const items = g.access
    .map(
      (a) => `<div class="item"><h2>${esc(TYPES[a.type] ?? a.type)}</h2><dl>
<dt>It may</dt><dd>${esc(a.actions.map((x) => ACTIONS[a.type]?.[x] ?? x).join(', '))}<br><span class="raw">${esc(a.type)}: ${esc(a.actions.join(', '))}</span></dd>
<dt>Wallet address</dt><dd class="raw">${a.identifier ? esc(a.identifier) : 'any (only what the app itself makes, or is given to pay)'}</dd>
${a.type === 'outgoing-payment' ? limitsOf(a) : ''}</dl></div>`,
    )
    .join('');
  const pays = g.access.some((a) => a.type === 'outgoing-payment');
  return page(
    `${name} asks for your consent`,
    `<div class="card">
<h1>${esc(name)} ${pays ? 'wants to make payments from your account' : 'asks for access to your account'}</h1>
<p class="sub">Review everything it asks for. You can accept or reject${pays ? '; nothing is paid until the app creates a payment within these limits' : ''}.</p>
<dl><dt>App</dt><dd><strong>${esc(name)}</strong>${uri ? `<br><span class="raw">${esc(uri)}</span>` : ''}</dd>
<dt>Your wallet address</dt><dd class="raw">${wallets.map(esc).join('<br>') || 'any'}</dd></dl>
${items}
<p class="note">A real FSP signs in the owner of ${esc(wallets.join(', ') || 'the wallet address')} on this page before asking. This local simulator does not.</p>
<form method="post" action="/consent">
<input type="hidden" name="interactId" value="${esc(id)}"><input type="hidden" name="nonce" value="${esc(nonce)}"><input type="hidden" name="csrf" value="${esc(csrf)}">
<div class="actions"><button id="reject" type="submit" name="choice" value="reject">Reject</button><button id="accept" type="submit" name="choice" value="accept">Accept</button></div>
</form></div>`,
  );
}

const HEADERS = {
  'content-type': 'text/html; charset=utf-8',
  'cache-control': 'no-store',
  'content-security-policy': "default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'none'; base-uri 'none'",
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
};
const html = (res: ServerResponse, status: number, body: string) => {
  res.writeHead(status, HEADERS);
  res.end(body);
};

const readForm = async (req: IncomingMessage): Promise<URLSearchParams | undefined> => {
  const body = await readBody(req, MAX_FORM);
  return body === 'too_large' ? undefined : new URLSearchParams(body.toString('utf8'));
};

const valid = (s: string | null): s is string => !!s && s.length <= 200;

export function consentPages(opts: ConsentOptions) {
  const decisions: Decision[] = [];
  const idp = (path: string, method = 'GET') =>
    fetch(`${opts.authServerUrl}${path}`, { method, headers: { 'x-idp-secret': opts.idpSecret }, signal: AbortSignal.timeout(10_000) });
  const grantPath = (id: string, nonce: string) => `/grant/${encodeURIComponent(id)}/${encodeURIComponent(nonce)}`;
  const errorOf = async (res: Response) => {
    const body = (await res.json().catch(() => undefined)) as { error?: { description?: string }; detail?: string } | undefined;
    return body?.error?.description ?? body?.detail ?? `the authorization server answered ${res.status}`;
  };

  async function show(url: URL, res: ServerResponse) {
    const id = url.searchParams.get('interactId');
    const nonce = url.searchParams.get('nonce');
    if (!valid(id) || !valid(nonce))
      return html(res, 400, message('Not a consent request', 'This page needs interactId and nonce, as the authorization server sends them.', true));
    const answer = await idp(grantPath(id, nonce));
    if (answer.status === 404) return html(res, 404, message('Unknown or expired request', 'The app may ask again.', true));
    if (!answer.ok) return html(res, 502, message('The authorization server refused', await errorOf(answer), true));
    const grant = (await answer.json()) as IdpGrant;
    if (grant.state !== 'PENDING')
      return html(res, 409, message('Already decided', `This request was ${grant.state === 'APPROVED' ? 'accepted' : 'rejected'} already.`));
    const fallback = { name: url.searchParams.get('clientName') ?? '', uri: url.searchParams.get('clientUri') ?? '' };
    html(res, 200, consentPage(grant, id, nonce, csrfToken(opts.idpSecret, id, nonce), fallback));
  }

  async function decide(req: IncomingMessage, res: ServerResponse) {
    const form = await readForm(req);
    if (!form) return html(res, 413, message('Too large', 'This form is larger than a consent form.', true));
    const [id, nonce, choice, csrf] = ['interactId', 'nonce', 'choice', 'csrf'].map((k) => form.get(k));
    if (!valid(id) || !valid(nonce) || !valid(csrf) || !sameToken(csrf, csrfToken(opts.idpSecret, id, nonce)))
      return html(res, 403, message('Not this page’s form', 'The form did not come from this consent page.', true));
    if (choice !== 'accept' && choice !== 'reject') return html(res, 400, message('No choice', 'Choose Accept or Reject.', true));
    const looked = await idp(grantPath(id, nonce));
    const grant = looked.ok ? ((await looked.json()) as IdpGrant) : undefined;
    const answer = await idp(`${grantPath(id, nonce)}/${choice}`, 'POST');
    const client = grant?.client?.name ?? '(unknown client)';
    const walletAddresses = grant ? walletsOf(grant.access) : [];
    decisions.push({ at: new Date().toISOString(), grantId: id, choice, client, walletAddresses, status: answer.status });
    if (decisions.length > 200) decisions.shift();
    if (answer.status !== 202) {
      opts.log(`[fsp] consent ${choice} grant ${id} refused by the authorization server: ${answer.status}`);
      return html(res, answer.status >= 500 ? 502 : 409, message('Not recorded', await errorOf(answer), true));
    }
    opts.log(`[fsp] consent ${choice} grant ${id} client ${client} for ${walletAddresses.join(', ')}`);
    res.writeHead(303, {
      location: `${opts.authServerUrl}/interact/${encodeURIComponent(id)}/${encodeURIComponent(nonce)}/finish`,
      'cache-control': 'no-store',
    });
    res.end();
  }

  // Answers the request if it is the consent page's; false otherwise.
  return {
    decisions,
    async serve(req: IncomingMessage, res: ServerResponse, url: URL): Promise<boolean> {
      const unreachable = (e: Error) => html(res, 502, message('The authorization server is unreachable', e.message, true));
      if (url.pathname === '/consent' && req.method === 'GET') await show(url, res).catch(unreachable);
      else if (url.pathname === '/consent' && req.method === 'POST') await decide(req, res).catch(unreachable);
      else if (url.pathname === '/consent/decisions' && req.method === 'GET') {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify(decisions));
      } else return false;
      return true;
    },
  };
}

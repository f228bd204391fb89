import type { LocalAlarm, LocalDashboard } from '../infra/local/emulators/cloudwatch';
import type { Trace, TraceSummary } from '../infra/local/emulators/traces';
import type { SignIn } from '../lib/api/http/console';
import type { RouteResponse } from '../lib/api/routes';
import { allows, type Operator, operatorOf, type Role } from '../lib/shared/operators';

// The console's doors to the service: the Admin API through the console's route (console/api/<Admin
// path>, beside the page: functions/console), with the signed-in operator's ID token, which the
// console's authorizer verifies (Cognito on AWS, the local sign-in under npm start); and, under npm
// start only, the local metrics and traces (/local/*, infra/local/start/console.ts), with the same token.
// A refusal comes back as its problem detail; a 401 (the token expired) signs the operator out.
export class Problem extends Error {
  constructor(
    readonly status: number,
    readonly body: { title?: string; detail?: string; code?: string },
  ) {
    super(body.detail ?? body.title ?? `HTTP ${status}`);
  }
}

async function json<T>(res: Response): Promise<T> {
  const text = await res.text();
  const body = text ? JSON.parse(text) : undefined;
  if (res.status === 401) forget();
  if (!res.ok) throw new Problem(res.status, body ?? {});
  return body as T;
}

// The operator's ID token, kept for the browser tab (a reload stays signed in, a new tab signs in).
const TOKEN_KEY = 'payment-service.id-token';
export const SIGNED_OUT = 'payment-service:signed-out';
const token = () => sessionStorage.getItem(TOKEN_KEY);
export const keepToken = (idToken: string) => sessionStorage.setItem(TOKEN_KEY, idToken);
function forget() {
  sessionStorage.removeItem(TOKEN_KEY);
  dispatchEvent(new Event(SIGNED_OUT));
}

// Who is signed in, as the token says (its claims are the authorizer's: the server checks them);
// undefined when nobody is, or their token has expired.
export function signedIn(): Operator | undefined {
  const claims = token()?.split('.')[1];
  if (!claims) return undefined;
  const payload = JSON.parse(atob(claims.replace(/-/g, '+').replace(/_/g, '/'))) as Record<string, unknown>;
  if (typeof payload.exp !== 'number' || payload.exp * 1000 <= Date.now()) return undefined;
  return operatorOf(payload);
}
export const signOut = forget;

// Whether the signed-in operator's role allows what needs `role`: the page offers nothing else.
export const may = (role: Role): boolean => {
  const operator = signedIn();
  return !!operator && allows(operator, role);
};

// How to sign in here (functions/console serves it).
export const pageConfig = (): Promise<{ signIn: SignIn }> => fetch('console/config.json').then((res) => json(res));

const withToken = (headers: Record<string, string> = {}): Record<string, string> => ({ ...headers, authorization: token() ?? '' });

// The tenant the console shows (the operator's when none is chosen): every Admin API request names
// it in the tenant-id header. Kept for the browser tab, so that a reload stays on it.
const TENANT_KEY = 'payment-service.tenant';
export const OPERATOR_TENANT = 'operator';
export const currentTenant = (): string => sessionStorage.getItem(TENANT_KEY) ?? OPERATOR_TENANT;
export function switchTenant(id: string): void {
  if (id === OPERATOR_TENANT) sessionStorage.removeItem(TENANT_KEY);
  else sessionStorage.setItem(TENANT_KEY, id);
}

// One Admin API request, e.g. admin('GET', '/assets?limit=20') or admin('POST', '/payments/<id>/fund'),
// for the tenant the console shows. An idempotencyKey is sent as the Idempotency-Key header.
export const admin = <T>(method: string, path: string, body?: unknown, idempotencyKey?: string): Promise<T> =>
  request(method, path, body, idempotencyKey, currentTenant());

// A POST of an action, with the Idempotency-Key of one that moves money.
export const post = (path: string, key?: string, body?: unknown) => admin('POST', path, body, key);

// The same, for the operator's own data whichever tenant is shown (the tenants' list).
export const operatorsAdmin = <T>(method: string, path: string): Promise<T> => request(method, path, undefined, undefined, OPERATOR_TENANT);

const request = <T>(method: string, path: string, body: unknown, idempotencyKey: string | undefined, tenant: string): Promise<T> =>
  fetch(`console/api${path}`, {
    method,
    headers: withToken({
      ...(body !== undefined && { 'content-type': 'application/json' }),
      ...(idempotencyKey && { 'idempotency-key': idempotencyKey }),
      ...(tenant !== OPERATOR_TENANT && { 'tenant-id': tenant }),
    }),
    body: body === undefined ? undefined : JSON.stringify(body),
  }).then((res) => json<T>(res));

export interface Page<T> {
  items: T[];
  nextCursor: string | null;
}

// Money as the Admin API writes it (lib/shared/amounts.ts): a type only, erased from the page's bundle.
export type { Amount } from '../lib/shared/amounts';

// The records as the Admin API answers them, read by id (a list's items are completed so), typed
// from the route table's schemas: type-only, so nothing of lib/ reaches the page's bundle. Those
// that more than one page reads; a page types its own (console/pages/).
export type Asset = RouteResponse<'getAsset'>;
export type Transfer = RouteResponse<'listLedgerTransfers'>['items'][number];

export type Dashboard = LocalDashboard & { alarms: LocalAlarm[] };

const local = <T>(path: string): Promise<T> => fetch(path, { headers: withToken() }).then((res) => json<T>(res));

export const dashboard = (minutes: number): Promise<Dashboard> => local(`/local/dashboard?minutes=${minutes}`);

// The recent traces (a payment's, with its id), most recent first; and one trace's documents.
export const traces = (paymentId?: string): Promise<{ items: TraceSummary[] }> =>
  local(`/local/traces${paymentId ? `?paymentId=${encodeURIComponent(paymentId)}` : ''}`);
export const trace = (id: string): Promise<Trace> => local(`/local/traces/${encodeURIComponent(id)}`);

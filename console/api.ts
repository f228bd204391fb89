import type { LocalAlarm, LocalDashboard } from '../infra/local/cloudwatch';
import type { Trace, TraceSummary } from '../infra/local/traces';

// The console's doors to the service (infra/local/console.ts): the Admin API, which the runtime
// signs for the page, the local metrics and the local traces. A refusal comes back as its problem
// detail.
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
  if (!res.ok) throw new Problem(res.status, body ?? {});
  return body as T;
}

// The tenant the console shows (the operator's when none is chosen): every Admin API request names
// it in the tenant-id header. Kept for the browser tab, so that a reload stays on it.
const TENANT_KEY = 'payment-service.tenant';
export const OPERATOR_TENANT = 'operator';
export const currentTenant = (): string => sessionStorage.getItem(TENANT_KEY) ?? OPERATOR_TENANT;
export function switchTenant(id: string): void {
  if (id === OPERATOR_TENANT) sessionStorage.removeItem(TENANT_KEY);
  else sessionStorage.setItem(TENANT_KEY, id);
}

// One Admin API request, e.g. admin('GET', '/assets?limit=20') or admin('POST', '/payments/<id>/fund').
// An idempotencyKey is sent as the Idempotency-Key header, which the console signs too.
export const admin = <T>(method: string, path: string, body?: unknown, idempotencyKey?: string): Promise<T> =>
  fetch(`/admin${path}`, {
    method,
    headers: {
      ...(body !== undefined && { 'content-type': 'application/json' }),
      ...(idempotencyKey && { 'idempotency-key': idempotencyKey }),
      ...(currentTenant() !== OPERATOR_TENANT && { 'tenant-id': currentTenant() }),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  }).then((res) => json<T>(res));

export interface Page<T> {
  items: T[];
  nextCursor: string | null;
}

export interface Amount {
  value: string;
  assetCode: string;
  assetScale: number;
}

export type Dashboard = LocalDashboard & { alarms: LocalAlarm[] };

export const dashboard = (minutes: number): Promise<Dashboard> => fetch(`/local/dashboard?minutes=${minutes}`).then((res) => json<Dashboard>(res));

// The recent traces (a payment's, with its id), most recent first; and one trace's documents.
export const traces = (paymentId?: string): Promise<{ items: TraceSummary[] }> =>
  fetch(`/local/traces${paymentId ? `?paymentId=${encodeURIComponent(paymentId)}` : ''}`).then((res) => json(res));
export const trace = (id: string): Promise<Trace> => fetch(`/local/traces/${encodeURIComponent(id)}`).then((res) => json<Trace>(res));

import { findPeer } from '../peers';
import { peerErrors } from '../peers/errors';
import { logger } from '../platform/log';
import { countRatePull } from '../platform/metrics';
import { scoped } from '../platform/store';
import { commit } from '../platform/tx';
import type { Node } from '../shared/node';
import { rateErrors } from './errors';
import { fetchRates } from './pull';
import type { PushRate, Rate, RateQuery } from './schemas';
import * as store from './store';

// The rates component: what is the rate from A to B, for this peer or FSP-wide, right now.
// Resolution order, per scope (a peer's rates and the FSP-wide ones never stand in for each other):
//   1. a valid pushed rate;  2. a valid pulled rate from the cache;  3. a synchronous pull.
export const DEFAULT_PUSHED_TTL_SECS = 3600;

const iso = (ms: number) => new Date(ms).toISOString();
const scopeName = (peerId?: string) => (peerId === undefined ? 'FSP-wide' : `for peer ${peerId}`);

// A peer-scoped rate must name a peer of this node.
async function checkPeer(node: Node, peerId: string | undefined) {
  if (peerId !== undefined && !(await findPeer(node, peerId))) {
    throw peerErrors.unknown(peerId);
  }
}

export async function pushRate(node: Node, input: PushRate): Promise<Rate> {
  await checkPeer(node, input.peerId);
  const expiresAt = iso(Date.now() + (input.rateTtlSecs ?? DEFAULT_PUSHED_TTL_SECS) * 1000);
  await commit(node, [store.pushedRate(node, { peerId: input.peerId }, input.sourceAssetCode, input.destinationAssetCode, { rate: input.rate, expiresAt })]);
  return view(input, input.rate, 'pushed', expiresAt);
}

function view(q: RateQuery, rate: number, origin: Rate['origin'], expiresAt: string | null): Rate {
  return {
    sourceAssetCode: q.sourceAssetCode,
    destinationAssetCode: q.destinationAssetCode,
    ...(q.peerId !== undefined && { peerId: q.peerId }),
    rate,
    origin,
    expiresAt,
  };
}

// Lookups of one base and scope that overlap inside this container share one request: those
// that come while it runs, and those that read the cache before it was saved and miss it
// (`since`, when the lookup began: a pull saved after that is as fresh as the lookup needs). The
// refresher gives no `since`, so it always pulls.
const inFlight = new Map<string, Promise<store.PulledRates>>();
const lastSaved = new Map<string, { at: number; pulled: store.PulledRates }>();

// Where the node's rates URL is set: the deployment's setting, or the tenant's.
const ratesSetting = (node: Node) => (node.tenant.operator ? 'EXCHANGE_RATES_URL' : "the tenant's ratesUrl");

export function pull(node: Node, base: string, peerId: string | undefined, since?: number): Promise<store.PulledRates> {
  const endpoint = node.rates.url;
  if (!endpoint) throw new Error(`pull() needs ${ratesSetting(node)}`);
  const key = scoped(node, `${peerId ?? ''}#${base}`); // a tenant's rates are its own
  const last = lastSaved.get(key);
  if (since !== undefined && last && last.at >= since && Date.parse(last.pulled.expiresAt) > Date.now()) return Promise.resolve(last.pulled);
  let pending = inFlight.get(key);
  if (!pending) {
    pending = (async () => {
      let rates: Record<string, number>;
      try {
        rates = await fetchRates(endpoint, base, peerId, node.rates.timeoutSecs);
      } catch (e) {
        countRatePull(false);
        throw e;
      }
      countRatePull(true);
      const pulled = { base, peerId, rates, expiresAt: iso(Date.now() + node.rates.lifetimeSecs * 1000) };
      await store.savePulled(node, pulled);
      lastSaved.set(key, { at: Date.now(), pulled });
      return pulled;
    })().finally(() => inFlight.delete(key));
    inFlight.set(key, pending);
  }
  return pending;
}

// The Admin API's look-up: what resolveRate answers, for a peer of this node.
export async function lookUpRate(node: Node, q: RateQuery): Promise<Rate> {
  await checkPeer(node, q.peerId);
  return resolveRate(node, q);
}

export async function resolveRate(node: Node, q: RateQuery): Promise<Rate> {
  if (q.sourceAssetCode === q.destinationAssetCode) return view(q, 1, 'identity', null);
  const now = Date.now();
  const valid = (r?: { expiresAt: string }) => r !== undefined && Date.parse(r.expiresAt) > now;
  const { pushed, pulled } = await store.findRates(node, { peerId: q.peerId }, q.sourceAssetCode, q.destinationAssetCode);
  if (pushed && valid(pushed)) return view(q, pushed.rate, 'pushed', pushed.expiresAt);

  const pair = `${q.sourceAssetCode}→${q.destinationAssetCode} (${scopeName(q.peerId)})`;
  if (!node.rates.url) {
    throw rateErrors.unavailable(`No ${pushed ? 'unexpired ' : ''}pushed rate for ${pair}, and pulling is not configured (${ratesSetting(node)} is not set)`);
  }
  const cached = pulled && valid(pulled) ? pulled.rates[q.destinationAssetCode] : undefined;
  if (cached !== undefined) return view(q, cached, 'pulled', pulled!.expiresAt);

  const fresh = await pull(node, q.sourceAssetCode, q.peerId, now);
  const rate = fresh.rates[q.destinationAssetCode];
  if (rate === undefined)
    throw rateErrors.unavailable(`The FSP's rates for base ${q.sourceAssetCode} (${scopeName(q.peerId)}) do not list ${q.destinationAssetCode}`);
  return view(q, rate, 'pulled', fresh.expiresAt);
}

// The scheduled refresher: re-pull every pulled base and scope whose rates expire within
// EXCHANGE_RATES_REFRESH_BEFORE_SECS, so that lookups never wait on the FSP. Pushed rates are
// never refreshed. One failing base does not stop the others.
export async function refreshDueRates(node: Node): Promise<{ refreshed: number; failed: number; skipped: number }> {
  if (!node.rates.url) return { refreshed: 0, failed: 0, skipped: 0 }; // it pulls nothing: nothing to refresh
  const dueBy = Date.now() + node.rates.refreshBeforeSecs * 1000;
  const entries = await store.listPulled(node);
  const due = entries.filter((e) => Date.parse(e.expiresAt) <= dueBy);
  const results = await Promise.allSettled(due.map((e) => pull(node, e.base, e.peerId)));
  let failed = 0;
  results.forEach((r, i) => {
    if (r.status === 'rejected') {
      failed++;
      logger.warn('Rate refresh failed', { base: due[i].base, peerId: due[i].peerId, error: (r.reason as Error).message });
    }
  });
  const summary = { refreshed: due.length - failed, failed, skipped: entries.length - due.length };
  logger.info('Rate refresh', summary);
  return summary;
}

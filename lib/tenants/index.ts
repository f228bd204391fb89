import { randomUUID } from 'node:crypto';
import { createTenantSecrets, deleteTenantSecrets } from '../platform/secrets';
import { commit } from '../platform/tx';
import { type Node, OPERATOR_TENANT_ID, type TenantSettings } from '../shared/node';
import { canonicalBase, MAX_PREFIX_SEGMENTS, newAddress } from '../shared/wallet-address-url';
import { tenantErrors } from './errors';
import { defaultSuffix, isAtOrBelow, pathsOf } from './rules';
import type { CreatedTenant, CreateTenant, Tenant, TenantRecord, UpdateTenant } from './schemas';
import * as store from './store';

// Tenants: the FSPs of the deployment. The operator's is the deployment itself (its settings, not
// stored, never changed here); the others are made by the operator, each under its own wallet
// address prefix, with its own ILP address suffix, URLs and secrets. Adapters resolve a request's
// tenant here (tenantById, tenantForWalletAddress) and hand nodeFor(base, settings) down.
// `base` is always the deployment's node: the registry is global.
//
// No cache: a tenant is read (one consistent GetItem) on each of its API requests, so that a DELETE
// refuses its credentials at once, in every container (its peers' tokens: within the connector's
// 10 s peer cache); the operator's Admin requests read nothing.

const settingsOf = (t: TenantRecord): TenantSettings => ({
  id: t.id,
  walletAddressPrefix: t.walletAddressPrefix,
  ilpAddressSuffix: t.ilpAddressSuffix,
  webhookUrl: t.webhookUrl,
  webhookDialect: t.webhookDialect,
  ratesUrl: t.ratesUrl,
  idpConsentUrl: t.idpConsentUrl,
});

// An active tenant's settings; undefined for an unknown or deleted one. `evenDeleted`: a deleted
// one's too, for the work its changes left in flight (queue messages), which still gets done.
export async function tenantById(base: Node, id: string, evenDeleted = false): Promise<TenantSettings | undefined> {
  const t = await store.findTenant(base, id);
  return t && (t.state === 'active' || evenDeleted) ? settingsOf(t) : undefined;
}

// The active tenant whose prefix holds the URL (by path segment), if any. Prefixes never nest, so
// the URL's paths are read shortest first, and the walk stops at the first that is a prefix or
// has none under it: one read for the operator's addresses and for a tenant's one-segment prefix,
// however deep the URL.
export async function tenantForWalletAddress(base: Node, url: string): Promise<TenantSettings | undefined> {
  let paths: string[];
  try {
    paths = pathsOf(canonicalBase(url));
  } catch {
    return undefined; // not a URL: nobody's
  }
  for (const path of paths.reverse()) {
    const claim = await store.findPrefixClaim(base, path);
    if (claim?.tenantId) return tenantById(base, claim.tenantId);
    if (!claim?.under) return undefined;
  }
  return undefined;
}

// Every active tenant (the schedules run for each), the operator's not among them.
export const activeTenants = async (base: Node): Promise<TenantSettings[]> =>
  (await store.allTenants(base)).filter((t) => t.state === 'active').map(settingsOf);

const viewOf = (t: TenantRecord): Tenant => ({
  id: t.id,
  name: t.name,
  walletAddressPrefix: t.walletAddressPrefix,
  ilpAddressSuffix: t.ilpAddressSuffix,
  webhookUrl: t.webhookUrl ?? null,
  webhookDialect: t.webhookDialect ?? null,
  ratesUrl: t.ratesUrl ?? null,
  idpConsentUrl: t.idpConsentUrl ?? null,
  state: t.state,
  createdAt: t.createdAt,
  updatedAt: t.updatedAt,
  deletedAt: t.deletedAt ?? null,
});

// The operator's tenant, as the deployment's settings describe it.
const operatorView = (base: Node): Tenant => ({
  id: OPERATOR_TENANT_ID,
  name: OPERATOR_TENANT_ID,
  walletAddressPrefix: canonicalBase(base.urls.walletAddresses),
  ilpAddressSuffix: null,
  webhookUrl: base.webhooks.url ?? null,
  webhookDialect: base.webhooks.dialect,
  ratesUrl: base.rates.url ?? null,
  idpConsentUrl: base.urls.consent ?? null,
  state: 'active',
  createdAt: null,
  updatedAt: null,
  deletedAt: null,
});

// A prefix in its canonical form: a URL under the deployment's WALLET_ADDRESS_URL (so on its
// origin, with a path), lower case, without a trailing slash, query or fragment, whose segments a
// wallet address could have, one fewer of them at most (MAX_PREFIX_SEGMENTS).
function canonicalPrefix(base: Node, input: string): string {
  return newAddress(input, base.urls.walletAddresses, 'walletAddressPrefix', MAX_PREFIX_SEGMENTS);
}

// Which active tenant's prefix a refused one met, and how: the claims say who holds the prefix or
// a shorter path of it, and whether a tenant or an operator's address is under it; that tenant is
// found among the active ones.
async function prefixConflict(base: Node, prefix: string) {
  const claims = await store.prefixClaims(base, pathsOf(prefix));
  const holder = claims.find((c) => c.tenantId);
  if (holder) return tenantErrors.prefixTaken(prefix, holder.tenantId!, holder.path === prefix ? 'equal' : 'below');
  const own = claims.find((c) => c.path === prefix);
  if (own?.addresses) return tenantErrors.prefixHoldsAddresses(prefix);
  const under = own?.under ? (await activeTenants(base)).find((t) => isAtOrBelow(t.walletAddressPrefix, prefix)) : undefined;
  // Gone meanwhile: the caller may try again.
  return under ? tenantErrors.prefixTaken(prefix, under.id, 'above') : tenantErrors.changed(prefix);
}

// The secrets are made first, so that no tenant ever exists without them; a tenant that cannot be
// made (its prefix or suffix taken) takes its secrets with it, unseen.
export async function createTenant(base: Node, input: CreateTenant): Promise<CreatedTenant> {
  const id = randomUUID();
  const now = new Date().toISOString();
  const record: TenantRecord = {
    id,
    name: input.name,
    walletAddressPrefix: canonicalPrefix(base, input.walletAddressPrefix),
    ilpAddressSuffix: input.ilpAddressSuffix ?? defaultSuffix(id),
    webhookUrl: input.webhookUrl,
    webhookDialect: input.webhookDialect,
    ratesUrl: input.ratesUrl,
    idpConsentUrl: input.idpConsentUrl,
    state: 'active',
    createdAt: now,
    updatedAt: now,
    version: 1,
  };
  const secrets = await createTenantSecrets(base, id).catch(async (e) => {
    await deleteTenantSecrets(base, id, true);
    throw e;
  });
  const refusals = await commit(base, store.insertTenant(base, record)).catch(async (e) => {
    await deleteTenantSecrets(base, id, true);
    throw e;
  });
  if (refusals.length) {
    await deleteTenantSecrets(base, id, true);
    if (refusals.includes(store.PREFIX_TAKEN) || refusals.includes(store.PREFIX_BELOW)) throw await prefixConflict(base, record.walletAddressPrefix);
    if (refusals.includes(store.SUFFIX_TAKEN)) throw tenantErrors.suffixTaken(record.ilpAddressSuffix);
    throw new Error(`Tenant ${id} could not be made: ${refusals.join(', ')}`);
  }
  return { ...viewOf(record), adminApiSecret: secrets.ADMIN_API_SECRET, webhookSecret: secrets.WEBHOOK_SECRET, idpSecret: secrets.IDP_SECRET };
}

async function getRecord(base: Node, id: string): Promise<TenantRecord> {
  const t = await store.findTenant(base, id);
  if (!t) throw tenantErrors.notFound(id);
  return t;
}

export async function getTenant(base: Node, id: string): Promise<Tenant> {
  return id === OPERATOR_TENANT_ID ? operatorView(base) : viewOf(await getRecord(base, id));
}

export async function listTenants(base: Node, limit: number, cursor?: string) {
  const page = await store.listTenants(base, limit, cursor);
  return { items: page.items.map(viewOf), nextCursor: page.nextCursor };
}

// The name, the URLs and the webhook dialect of an active tenant (null removes one).
export async function updateTenant(base: Node, id: string, input: UpdateTenant): Promise<Tenant> {
  if (id === OPERATOR_TENANT_ID) throw tenantErrors.operatorFixed('changed');
  const was = await getRecord(base, id);
  if (was.state !== 'active') throw tenantErrors.notFound(id);
  const kept = <T>(value: T | null | undefined, old?: T) => (value === undefined ? old : (value ?? undefined));
  const now: TenantRecord = {
    ...was,
    name: input.name ?? was.name,
    webhookUrl: kept(input.webhookUrl, was.webhookUrl),
    webhookDialect: kept(input.webhookDialect, was.webhookDialect),
    ratesUrl: kept(input.ratesUrl, was.ratesUrl),
    idpConsentUrl: kept(input.idpConsentUrl, was.idpConsentUrl),
    updatedAt: new Date().toISOString(),
  };
  if ((await commit(base, store.replaceTenant(base, was, now))).length) throw tenantErrors.changed(id);
  return viewOf({ ...now, version: was.version + 1 });
}

// Soft: the record stays (state deleted), as does its data; its prefix is free for another tenant
// and its secrets are scheduled for deletion. The state changes first, so that its credentials stop
// at once; a retry (of a DELETE that failed after it) schedules the secrets again.
export async function deleteTenant(base: Node, id: string): Promise<void> {
  if (id === OPERATOR_TENANT_ID) throw tenantErrors.operatorFixed('deleted');
  const was = await getRecord(base, id);
  if (was.state === 'active') {
    const now = new Date().toISOString();
    if ((await commit(base, store.removeTenant(base, was, { ...was, state: 'deleted', deletedAt: now, updatedAt: now }))).length)
      throw tenantErrors.changed(id);
  }
  await deleteTenantSecrets(base, id);
}

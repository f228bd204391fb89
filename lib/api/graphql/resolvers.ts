import { createHash } from 'node:crypto';
import type { Context } from 'aws-lambda';
import type { ZodType } from 'zod';
import { findAssetByCode, getAsset, liquidityOf, listAssets, moveLiquidity, createAsset as newAsset, updateAsset } from '../../assets';
import type { Asset } from '../../assets/schemas';
import { getGrant, listGrants, revokeGrantByFsp } from '../../auth-server';
import type { Grant } from '../../auth-server/admin-schemas';
import { listTransfers } from '../../ledger-check/transfers';
import { holdAssetLiquidity, holdPeerLiquidity, postWithdrawal, voidWithdrawal } from '../../liquidity-withdrawals';
import { approveIntent, cancelIntent, createIntent, findIntent, findIntents, intentView, listIntents, withdrawIntent } from '../../payment-intents';
import type { IntentRecord } from '../../payment-intents/schemas';
import { cancelPayment, createPaymentRecord, findPayment, findPayments, fundPayment, listPayments, withdrawPayment } from '../../payments';
import { createQuote as priceAndRecordQuote } from '../../payments/methods/quote';
import type { PaymentRecord } from '../../payments/schemas';
import { allPeers, deletePeer, findPeer, getPeer, listPeers, movePeerLiquidity, createPeer as newPeer, peerByUrl, updatePeer } from '../../peers';
import type { Peer } from '../../peers/schemas';
import { findQuote } from '../../quotes';
import type { QuoteRecord } from '../../quotes/schemas';
import { completeReceiver, getReceiver, createReceiver as newReceiver } from '../../receivers';
import { commonErrors, DomainError, invalidFields } from '../../shared/errors';
import type { Node } from '../../shared/node';
import { isResourceId } from '../../shared/resources';
import { createTenant, deleteTenant, getTenant, listTenants, updateTenant } from '../../tenants';
import { tenantErrors } from '../../tenants/errors';
import type { Tenant } from '../../tenants/schemas';
import {
  addKey,
  findWalletAddressByUrl,
  getWalletAddress,
  listWalletAddresses,
  createWalletAddress as newWalletAddress,
  revokeKey,
  updateWalletAddress,
} from '../../wallet-addresses';
import type { WalletAddress, WalletAddressKey } from '../../wallet-addresses/schemas';
import { getWebhookEvent, listWebhookEvents } from '../../webhooks';
import { fieldErrors } from '../http/problem';
import { routes } from '../routes';
import { connection, oneOf, type PageArgs, pageQueryOf } from './connections';
import { notOffered } from './errors';
import { idempotent } from './idempotent';

// Each Rafiki operation resolved by the domain operation its REST route calls, its input checked by
// that route's own schemas (one rule, two adapters): only the shapes differ (Rafiki names assets and
// wallet addresses by id where the REST API names them by code and URL, and spells states in
// capitals). A lookup that finds nothing is null, as Rafiki answers.
export interface GraphqlContext {
  node: Node;
  lambda?: Context; // the invocation's, for its remaining time (./idempotent.ts)
}

type Args<T = Record<string, any>> = { input: T };

// A value checked by a route's schema, its bad fields named under the GraphQL argument they came in.
function checked<T>(schema: ZodType<T> | undefined, value: unknown, under: string): T {
  const parsed = schema!.safeParse(value);
  if (!parsed.success) throw invalidFields(fieldErrors(parsed.error, under));
  return parsed.data;
}

// A stable id for what this service keeps without one of its own (an asset's fee, a key), from what names it.
const derivedId = (...parts: string[]) => {
  const h = createHash('sha256').update(parts.join('\n')).digest('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-8${h.slice(17, 20)}-${h.slice(20, 32)}`;
};

// Rafiki's input may name the tenant; this service takes the tenant from the signed request only.
function sameTenant(node: Node, tenantId: string | null | undefined) {
  if (tenantId && tenantId !== node.tenant.id) {
    throw commonErrors.invalidRequest(`input.tenantId ${tenantId} is not the request's tenant: name the tenant in the tenant-id header`);
  }
}

const isSet = <T>(v: T | null | undefined): v is T => v !== null && v !== undefined;
const given = <T extends Record<string, unknown>>(o: T) => Object.fromEntries(Object.entries(o).filter(([, v]) => isSet(v))) as Partial<T>;

// An id as a domain operation takes it: one that cannot exist is one that names nothing (its not found).
const idOf = (id: string) => (isResourceId(id) ? id : '00000000-0000-4000-8000-000000000000');

async function assetById(node: Node, id: string): Promise<Asset> {
  return getAsset(node, idOf(id));
}

// A route's body that names its asset by code, from Rafiki's input, which names it by id.
async function withAssetCode<T>(node: Node, schema: ZodType<T> | undefined, assetId: string, fields: Record<string, unknown>): Promise<T> {
  return checked(schema, given({ ...fields, assetCode: (await assetById(node, assetId)).code }), 'input');
}

// ---- Assets and their fees

const feeOf = (asset: Asset, type: 'SENDING' | 'RECEIVING') => {
  const fee = type === 'SENDING' ? asset.sendingFee : asset.receivingFee;
  return fee && { id: derivedId(asset.id, type), assetId: asset.id, type, fixed: fee.fixed, basisPoints: fee.basisPoints, createdAt: asset.createdAt };
};
const assetOut = (a: Asset) => ({
  ...a,
  withdrawalThreshold: null,
  liquidityThreshold: a.liquidityThreshold ?? null,
  sendingFee: feeOf(a, 'SENDING'),
  receivingFee: feeOf(a, 'RECEIVING'),
});

// ---- Wallet addresses

const walletOut = (w: WalletAddress) => ({ ...w, status: w.status.toUpperCase(), liquidity: null, additionalProperties: [] });
// A key's id names its wallet address and its kid (revokeWalletAddressKey takes it apart).
const keyOut = (k: WalletAddressKey) => ({
  id: `${k.walletAddressId}:${k.kid}`,
  walletAddressId: k.walletAddressId,
  jwk: k.jwk,
  revoked: k.revokedAt !== null,
  createdAt: k.createdAt,
});
async function walletUrl(node: Node, id: string): Promise<string> {
  return (await getWalletAddress(node, idOf(id))).address;
}

// ---- Payments

const quoteOut = (node: Node, q: QuoteRecord) => ({
  id: q.id,
  tenantId: node.tenant.id,
  walletAddressId: q.walletAddressId,
  receiver: q.receiver,
  debitAmount: q.debitAmount,
  receiveAmount: q.receiveAmount,
  createdAt: q.createdAt,
  expiresAt: q.expiresAt,
  estimatedExchangeRate: q.estimatedExchangeRate,
});
const paymentOut = (p: PaymentRecord) => ({
  id: p.id,
  walletAddressId: p.walletAddressId,
  client: p.client ?? null,
  state: p.state.toUpperCase(),
  error: p.failureReason ?? p.cancelReason ?? null,
  stateAttempts: 0,
  debitAmount: p.debitAmount,
  receiveAmount: p.receiveAmount,
  receiver: p.receiver,
  metadata: p.metadata,
  sentAmount: p.sentAmount,
  createdAt: p.createdAt,
  grantId: p.grantId ?? null,
  quoteId: p.quoteId,
});
// Rafiki's incoming payments know four states: an intent waiting for approval is PENDING, and a
// cancelled one (it took nothing) EXPIRED, with its cancelledAt.
const INTENT_STATES: Record<IntentRecord['state'], string> = {
  pending_approval: 'PENDING',
  pending: 'PENDING',
  processing: 'PROCESSING',
  completed: 'COMPLETED',
  expired: 'EXPIRED',
  cancelled: 'EXPIRED',
};
const incomingOut = (node: Node, r: IntentRecord) => {
  const view = intentView(node, r);
  return {
    id: r.id,
    url: view.url,
    walletAddressId: r.walletAddressId,
    client: r.client ?? null,
    state: INTENT_STATES[r.state],
    expiresAt: r.expiresAt,
    incomingAmount: view.incomingAmount,
    receivedAmount: view.receivedAmount,
    metadata: r.metadata,
    createdAt: r.createdAt,
    cancellationReason: r.cancelReason ?? null,
    cancelledAt: r.cancelledAt ?? null,
  };
};
const idOrNone = (id: string) => (isResourceId(id) ? id : undefined);
// What a getter finds, or undefined where it answers not found.
const orNone = <T>(found: Promise<T>): Promise<T | undefined> =>
  found.catch((e) => {
    if (e instanceof DomainError && e.status === 404) return undefined;
    throw e;
  });

// ---- Lists

type ListArgs = PageArgs & { tenantId?: string | null; filter?: Record<string, any> | null };
// The REST list's query from Rafiki's page arguments (and `extra` filters), checked by its route's schema.
function listQuery<T>(operation: string, schema: ZodType<T> | undefined, node: Node, a: ListArgs, extra: Record<string, unknown> = {}): T {
  sameTenant(node, a.tenantId);
  return checked(schema, { ...pageQueryOf(operation, a), ...given(extra) }, 'arguments');
}

// The records of a page of views, in its order (one batch read), for the fields only records hold.
async function recordsOf<R extends { id: string }>(items: { id: string }[], find: (ids: string[]) => Promise<R[]>): Promise<R[]> {
  const byId = new Map((await find(items.map((i) => i.id))).map((r) => [r.id, r]));
  return items.map((i) => byId.get(i.id)).filter(isSet);
}

// A filter's wallet address (Rafiki names it by id), as the REST list's `walletAddress`.
async function walletFilter(node: Node, operation: string, filter: Record<string, any> | null | undefined) {
  const id = oneOf(operation, 'walletAddressId', filter?.walletAddressId);
  return id === undefined ? undefined : await walletUrl(node, id);
}

// ---- Liquidity withdrawals

// Rafiki's timeoutSeconds 0 is a withdrawal at once; any other, a two-phase one held until posted
// or voided, or LIQUIDITY_WITHDRAWAL_TIMEOUT_SECS (this service's timeout, not the request's). The
// id Rafiki's client chose keys it: a retry makes it once, and post and void name it by that id.
async function withdrawLiquidity(
  input: Record<string, any>,
  body: ZodType<{ amount: string; twoPhase?: boolean }> | undefined,
  hold: (id: string, amount: string) => Promise<{ id: string }>,
  once: (amount: string) => Promise<unknown>,
) {
  const { amount } = checked(body, { amount: input.amount }, 'input');
  if (!isResourceId(input.id)) throw invalidFields([{ field: 'input.id', message: 'must be a UUID' }]);
  if (String(input.timeoutSeconds) === '0') await once(amount);
  else await hold(input.id, amount);
  return { success: true };
}

// A mutation Rafiki answers with `success`: the operation `act` on the id in the input's `field`.
const succeeded = (operation: string, field: string, act: (node: Node, id: string) => Promise<unknown>) =>
  idempotent(operation, async (node, { input }: Args) => {
    await act(node, idOf(input[field]));
    return { success: true };
  });

// ---- Tenants: the operator's alone, as their REST routes are.

function operatorOnly(node: Node) {
  if (!node.tenant.operator) throw tenantErrors.operatorOnly();
}
const SETTINGS = { WALLET_ADDRESS_URL: 'walletAddressPrefix', WEBHOOK_URL: 'webhookUrl', EXCHANGE_RATES_URL: 'ratesUrl' } as const;
const tenantOut = (t: Tenant, apiSecret: string | null = null, idpSecret: string | null = null) => ({
  id: t.id,
  email: null,
  apiSecret,
  idpConsentUrl: t.idpConsentUrl,
  idpSecret,
  publicName: t.name,
  createdAt: t.createdAt ?? '1970-01-01T00:00:00.000Z',
  deletedAt: null,
  settings: Object.entries(SETTINGS)
    .filter(([, field]) => t[field])
    .map(([key, field]) => ({ key, value: t[field] })),
});
// What this service makes itself, or has no place for, refused by name rather than dropped.
function refuseTenantFields(operation: string, input: Record<string, any>) {
  for (const [field, why] of [
    ['id', 'this service names each tenant'],
    ['email', 'a tenant has no email here'],
    ['apiSecret', 'this service makes each tenant’s secrets and answers them once, in createTenant’s answer'],
    ['idpSecret', 'this service makes each tenant’s secrets and answers them once, in createTenant’s answer'],
  ] as const) {
    if (isSet(input[field])) throw notOffered(`${operation} with ${field}`, why);
  }
}
function settingsOf(operation: string, settings: { key: string; value: string }[] | null | undefined) {
  const out: Record<string, string> = {};
  for (const { key, value } of settings ?? []) {
    const field = SETTINGS[key as keyof typeof SETTINGS];
    if (!field) throw notOffered(`${operation} with the setting ${key}`, 'a tenant’s settings here are WALLET_ADDRESS_URL, WEBHOOK_URL and EXCHANGE_RATES_URL');
    out[field] = value;
  }
  return out;
}

// ---- Grants, as Rafiki's auth API shows them

const GRANT_STATES: Record<Grant['state'], { state: string; finalizationReason: string | null }> = {
  pending: { state: 'PENDING', finalizationReason: null },
  consented: { state: 'APPROVED', finalizationReason: null },
  approved: { state: 'FINALIZED', finalizationReason: 'ISSUED' },
  rejected: { state: 'FINALIZED', finalizationReason: 'REJECTED' },
  revoked: { state: 'FINALIZED', finalizationReason: 'REVOKED' },
};
const grantOut = (node: Node, g: Grant) => ({
  id: g.id,
  client: 'walletAddress' in g.client ? g.client.walletAddress : null,
  access: g.access.map((a, i) => ({
    id: derivedId(g.id, String(i)),
    ...a,
    identifier: a.identifier ?? null,
    limits: a.limits ?? null,
    createdAt: g.createdAt,
  })),
  subject: null,
  ...GRANT_STATES[g.state],
  createdAt: g.createdAt,
  tenantId: node.tenant.id,
});
// Rafiki's state and finalization filters as this service's one state.
function grantStateFilter(filter: Record<string, any> | null | undefined): string | undefined {
  const state = oneOf('grants', 'state', filter?.state);
  const reason = oneOf('grants', 'finalizationReason', filter?.finalizationReason);
  const found = Object.entries(GRANT_STATES).find(([, v]) => v.state === (state ?? 'FINALIZED') && v.finalizationReason === (reason ?? null));
  if (!state && !reason) return undefined;
  if (!found) throw notOffered('grants with this state and finalizationReason', 'FINALIZED grants are filtered by one finalizationReason');
  return found[0];
}

// ---- Ledger transfers

// Rafiki's accountingTransfers names an account by its owner's id; this service's accounts are named
// by kind and owner (GET /ledger/check), so the owner's id is tried as an asset's liquidity, a peer's,
// a payment's and an incoming payment's account, and an account id as GET /ledger/transfers takes it is taken as it is.
async function accountOf(node: Node, id: string): Promise<string> {
  if (!isResourceId(id)) return id;
  if (await orNone(getAsset(node, id))) return `liquidity:${id}`;
  if (await findPeer(node, id)) return `peer:${id}`;
  if (await findPayment(node, id)) return `payment:${id}`;
  if (await findIntent(node, id)) return `intent:${id}`;
  return `liquidity:${id}`; // none: the route's own not-found answers
}
const TRANSFER_TYPES: Record<string, string> = { deposit: 'DEPOSIT', withdrawal: 'WITHDRAWAL' };

export const resolvers = {
  Query: {
    asset: async (_: unknown, { id }: { id: string }, { node }: GraphqlContext) => {
      const found = idOrNone(id) && (await orNone(getAsset(node, id)));
      return found ? assetOut(found) : null;
    },
    assetByCodeAndScale: async (_: unknown, { code, scale }: { code: string; scale: number }, { node }: GraphqlContext) => {
      const found = await findAssetByCode(node, code);
      return found && found.scale === scale ? assetOut(found) : null;
    },
    peer: async (_: unknown, { id }: { id: string }, { node }: GraphqlContext) => {
      const found = idOrNone(id) && (await findPeer(node, id));
      return found ?? null;
    },
    peerByAddressAndAsset: async (_: unknown, a: { staticIlpAddress: string; assetId: string }, { node }: GraphqlContext) => {
      const found = (await allPeers(node)).find((p) => p.staticIlpAddress === a.staticIlpAddress && p.assetId === a.assetId);
      return found ?? null;
    },
    walletAddress: async (_: unknown, { id }: { id: string }, { node }: GraphqlContext) => {
      const found = idOrNone(id) && (await orNone(getWalletAddress(node, id)));
      return found ? walletOut(found) : null;
    },
    walletAddressByUrl: async (_: unknown, { url }: { url: string }, { node }: GraphqlContext) => {
      const found = await findWalletAddressByUrl(node, url);
      return found ? walletOut(found) : null;
    },
    quote: async (_: unknown, { id }: { id: string }, { node }: GraphqlContext) => {
      const found = idOrNone(id) && (await findQuote(node, id));
      return found ? quoteOut(node, found) : null;
    },
    outgoingPayment: async (_: unknown, { id }: { id: string }, { node }: GraphqlContext) => {
      const found = idOrNone(id) && (await findPayment(node, id));
      return found ? paymentOut(found) : null;
    },
    receiver: async (_: unknown, { id }: { id: string }, { node }: GraphqlContext) =>
      orNone(getReceiver(node, checked(routes.getReceiver.query, { url: id }, 'id'))),
    incomingPayment: async (_: unknown, { id }: { id: string }, { node }: GraphqlContext) => {
      const found = idOrNone(id) && (await findIntent(node, id));
      return found ? incomingOut(node, found) : null;
    },
    assets: async (_: unknown, a: ListArgs, { node }: GraphqlContext) => {
      const q = listQuery('assets', routes.listAssets.query, node, a);
      return connection(await listAssets(node, q.limit, q.cursor), a.after, assetOut);
    },
    peers: async (_: unknown, a: ListArgs, { node }: GraphqlContext) => {
      const q = listQuery('peers', routes.listPeers.query, node, a);
      return connection(await listPeers(node, q.limit, q.cursor), a.after, (p) => p);
    },
    walletAddresses: async (_: unknown, a: ListArgs, { node }: GraphqlContext) => {
      const q = listQuery('walletAddresses', routes.findWalletAddress.query, node, a);
      return connection(await listWalletAddresses(node, q), a.after, walletOut);
    },
    outgoingPayments: async (_: unknown, a: ListArgs, { node }: GraphqlContext) => {
      if (a.filter?.receiver) throw notOffered('outgoingPayments with filter.receiver', 'payments are filtered by wallet address and state');
      const state = oneOf('outgoingPayments', 'state', a.filter?.state)?.toLowerCase();
      const walletAddress = await walletFilter(node, 'outgoingPayments', a.filter);
      const page = await listPayments(node, listQuery('outgoingPayments', routes.listPayments.query, node, a, { walletAddress, state }));
      return connection({ ...page, items: await recordsOf(page.items, (ids) => findPayments(node, ids)) }, a.after, paymentOut);
    },
    incomingPayments: async (_: unknown, a: ListArgs, { node }: GraphqlContext) => {
      if (a.filter?.initiatedBy) throw notOffered('incomingPayments with filter.initiatedBy', 'incoming payments are filtered by wallet address');
      const walletAddress = await walletFilter(node, 'incomingPayments', a.filter);
      const page = await listIntents(node, listQuery('incomingPayments', routes.listPaymentIntents.query, node, a, { walletAddress }));
      return connection({ ...page, items: await recordsOf(page.items, (ids) => findIntents(node, ids)) }, a.after, (r) => incomingOut(node, r));
    },
    webhookEvents: async (_: unknown, a: ListArgs, { node }: GraphqlContext) => {
      const type = oneOf('webhookEvents', 'type', a.filter?.type);
      const page = await listWebhookEvents(node, listQuery('webhookEvents', routes.listWebhookEvents.query, node, a, { type }));
      return connection(page, a.after, (e) => ({ id: e.id, type: e.type, data: e.data, createdAt: e.createdAt }));
    },
    payments: () => {
      throw notOffered('payments', 'incoming and outgoing payments are listed apart: incomingPayments and outgoingPayments');
    },
    accountingTransfers: async (_: unknown, a: { id: string; limit?: number | null }, { node }: GraphqlContext) => {
      const q = checked(
        routes.listLedgerTransfers.query,
        given({ account: await accountOf(node, a.id), limit: isSet(a.limit) ? String(a.limit) : undefined }),
        'arguments',
      );
      const page = await listTransfers(node, q.account, q.limit, q.cursor);
      const out = (t: (typeof page.items)[number]) => ({
        id: t.id,
        debitAccountId: t.debitAccount,
        creditAccountId: t.creditAccount,
        amount: t.amount.value,
        transferType: TRANSFER_TYPES[t.kind] ?? 'TRANSFER',
        ledger: t.amount.assetScale,
        createdAt: t.createdAt,
        state: 'POSTED',
        expiresAt: null,
      });
      return { debits: page.items.filter((t) => t.direction === 'debit').map(out), credits: page.items.filter((t) => t.direction === 'credit').map(out) };
    },
    tenant: async (_: unknown, { id }: { id: string }, { node }: GraphqlContext) => {
      operatorOnly(node);
      return tenantOut(await getTenant(node, id));
    },
    tenants: async (_: unknown, a: ListArgs, { node }: GraphqlContext) => {
      operatorOnly(node);
      const q = listQuery('tenants', routes.listTenants.query, node, a);
      return connection(await listTenants(node, q.limit, q.cursor), a.after, (t) => tenantOut(t));
    },
    whoami: (_: unknown, __: unknown, { node }: GraphqlContext) => ({ id: node.tenant.id, isOperator: node.tenant.operator }),
    grants: async (_: unknown, a: ListArgs, { node }: GraphqlContext) => {
      const walletAddress = oneOf('grants', 'identifier', a.filter?.identifier);
      const q = listQuery('grants', routes.listGrants.query, node, a, { walletAddress, state: grantStateFilter(a.filter) });
      return connection(await listGrants(node, q), a.after, (g) => grantOut(node, g));
    },
    grant: async (_: unknown, { id }: { id: string }, { node }: GraphqlContext) => grantOut(node, await getGrant(node, id)),
  },

  Mutation: {
    createAsset: idempotent('createAsset', async (node, { input }: Args) => {
      sameTenant(node, input.tenantId);
      if (isSet(input.withdrawalThreshold)) {
        throw notOffered('createAsset with a withdrawalThreshold', 'liquidity leaves by withdrawals the FSP makes (two-phase if it wants), not by a threshold');
      }
      const body = checked(routes.createAsset.body, given({ code: input.code, scale: input.scale, liquidityThreshold: input.liquidityThreshold }), 'input');
      return { asset: assetOut(await newAsset(node, body)) };
    }),
    depositAssetLiquidity: idempotent('depositAssetLiquidity', async (node, { input }: Args) => {
      const { amount } = checked(routes.depositAssetLiquidity.body, { amount: input.amount }, 'input');
      await moveLiquidity(node, (await assetById(node, input.assetId)).id, amount, 'deposit', input.id);
      return { success: true };
    }),
    setFee: idempotent('setFee', async (node, { input }: Args) => {
      const field = input.type === 'SENDING' ? 'sendingFee' : 'receivingFee';
      const change = checked(routes.updateAsset.body, { [field]: { fixed: input.fee.fixed, basisPoints: input.fee.basisPoints } }, 'input');
      const asset = await updateAsset(node, (await assetById(node, input.assetId)).id, change);
      return { fee: feeOf(asset, input.type) };
    }),

    createPeer: idempotent('createPeer', async (node, { input }: Args) => {
      const body = await withAssetCode(node, routes.createPeer.body, input.assetId, {
        name: input.name,
        staticIlpAddress: input.staticIlpAddress,
        http: { incoming: input.http.incoming ?? undefined, outgoing: input.http.outgoing },
        maxPacketAmount: input.maxPacketAmount,
        liquidityThreshold: input.liquidityThreshold,
        routes: input.routes,
      });
      // Its first deposit is checked before the peer is made, so that bad input makes nothing; it is
      // then a deposit of its own, keyed by the peer's id (a crash between the two leaves the peer
      // without it, to deposit with depositPeerLiquidity: Rafiki makes both in one transaction).
      const initial =
        isSet(input.initialLiquidity) && input.initialLiquidity !== '0'
          ? checked(routes.depositPeerLiquidity.body, { amount: input.initialLiquidity }, 'input.initialLiquidity').amount
          : undefined;
      const peer = await newPeer(node, body);
      if (initial) await movePeerLiquidity(node, peer.id, initial, 'deposit', `initial:${peer.id}`);
      return { peer };
    }),
    depositPeerLiquidity: idempotent('depositPeerLiquidity', async (node, { input }: Args) => {
      const { amount } = checked(routes.depositPeerLiquidity.body, { amount: input.amount }, 'input');
      await movePeerLiquidity(node, input.peerId, amount, 'deposit', input.id);
      return { success: true };
    }),

    createWalletAddress: idempotent('createWalletAddress', async (node, { input }: Args) => {
      sameTenant(node, input.tenantId);
      if (input.additionalProperties?.length) {
        throw notOffered('createWalletAddress with additionalProperties', 'a wallet address publishes its asset, public name and servers only');
      }
      const asset = await assetById(node, input.assetId);
      const body = checked(routes.createWalletAddress.body, given({ address: input.address, assetCode: asset.code, publicName: input.publicName }), 'input');
      return { walletAddress: walletOut(await newWalletAddress(node, body)) };
    }),
    createWalletAddressKey: idempotent('createWalletAddressKey', async (node, { input }: Args) => {
      const jwk = checked(routes.createWalletAddressKey.body, input.jwk, 'input.jwk');
      return { walletAddressKey: keyOut(await addKey(node, idOf(input.walletAddressId), jwk)) };
    }),

    createReceiver: idempotent('createReceiver', async (node, { input }: Args) => {
      const body = checked(
        routes.createReceiver.body,
        given({ walletAddressUrl: input.walletAddressUrl, incomingAmount: input.incomingAmount, expiresAt: input.expiresAt, metadata: input.metadata }),
        'input',
      );
      return { receiver: await newReceiver(node, body) };
    }),
    completeReceiver: async (_: unknown, { input }: Args, { node }: GraphqlContext) => ({
      receiver: await completeReceiver(node, checked(routes.completeReceiver.body, { url: input.incomingPaymentUrl }, 'input')),
    }),
    createQuote: idempotent('createQuote', async (node, { input }: Args) => {
      const body = checked(
        routes.createQuote.body,
        given({
          walletAddress: await walletUrl(node, input.walletAddressId),
          receiver: input.receiver,
          debitAmount: input.debitAmount,
          receiveAmount: input.receiveAmount,
        }),
        'input',
      );
      return { quote: quoteOut(node, await priceAndRecordQuote(node, body)) };
    }),
    createOutgoingPayment: idempotent('createOutgoingPayment', async (node, { input }: Args) => {
      const body = checked(
        routes.createPayment.body,
        given({ walletAddress: await walletUrl(node, input.walletAddressId), quoteId: input.quoteId, metadata: input.metadata }),
        'input',
      );
      return { payment: paymentOut((await createPaymentRecord(node, body)).record) };
    }),
    // A quote for the debit amount to the incoming payment, and the payment of it.
    createOutgoingPaymentFromIncomingPayment: idempotent('createOutgoingPaymentFromIncomingPayment', async (node, { input }: Args) => {
      if (!isSet(input.debitAmount)) throw invalidFields([{ field: 'input.debitAmount', message: 'is required' }]);
      if (isSet(input.cardDetails)) throw notOffered('createOutgoingPaymentFromIncomingPayment with cardDetails', 'card payments are not offered');
      const walletAddress = await walletUrl(node, input.walletAddressId);
      const quoted = checked(routes.createQuote.body, { walletAddress, receiver: input.incomingPayment, debitAmount: input.debitAmount }, 'input');
      const quote = await priceAndRecordQuote(node, quoted);
      const body = checked(routes.createPayment.body, given({ walletAddress, quoteId: quote.id, metadata: input.metadata }), 'input');
      return { payment: paymentOut((await createPaymentRecord(node, body)).record) };
    }),
    depositOutgoingPaymentLiquidity: idempotent('depositOutgoingPaymentLiquidity', async (node, { input }: Args) => {
      if (isSet(input.dataToTransmit)) throw notOffered('depositOutgoingPaymentLiquidity with dataToTransmit', 'STREAM data is not sent');
      await fundPayment(node, input.outgoingPaymentId);
      return { success: true };
    }),
    updateAsset: idempotent('updateAsset', async (node, { input }: Args) => {
      if (isSet(input.withdrawalThreshold)) {
        throw notOffered('updateAsset with a withdrawalThreshold', 'liquidity leaves by withdrawals the FSP makes (two-phase if it wants), not by a threshold');
      }
      const change = checked(routes.updateAsset.body, { liquidityThreshold: input.liquidityThreshold }, 'input');
      return { asset: assetOut(await updateAsset(node, (await assetById(node, input.id)).id, change)) };
    }),
    deleteAsset: () => {
      throw notOffered('deleteAsset', 'an asset stays while its ledger accounts do; one no longer used is simply not used');
    },
    createAssetLiquidityWithdrawal: idempotent('createAssetLiquidityWithdrawal', async (node, { input }: Args) => {
      const assetId = (await assetById(node, input.assetId)).id;
      return withdrawLiquidity(
        input,
        routes.withdrawAssetLiquidity.body,
        (id, amount) => holdAssetLiquidity(node, assetId, amount, undefined, id),
        (amount) => moveLiquidity(node, assetId, amount, 'withdrawal', input.id),
      );
    }),
    createOrUpdatePeerByUrl: idempotent('createOrUpdatePeerByUrl', async (node, { input }: Args) => {
      const body = await withAssetCode(node, routes.createOrUpdatePeerByUrl.body, input.assetId, {
        url: input.peerUrl,
        maxPacketAmount: input.maxPacketAmount,
        name: input.name,
        liquidityThreshold: input.liquidityThreshold,
        liquidityToDeposit: input.liquidityToDeposit,
      });
      return { peer: await peerByUrl(node, body) };
    }),
    updatePeer: idempotent('updatePeer', async (node, { input }: Args) => {
      if (isSet(input.staticIlpAddress)) throw notOffered('updatePeer with a staticIlpAddress', 'a peer’s ILP address is fixed: make another peer');
      const http = input.http && given({ incoming: input.http.incoming ?? undefined, outgoing: input.http.outgoing });
      const change = checked(
        routes.updatePeer.body,
        given({ name: input.name, http, maxPacketAmount: input.maxPacketAmount, liquidityThreshold: input.liquidityThreshold, routes: input.routes }),
        'input',
      );
      return { peer: await updatePeer(node, input.id, change) };
    }),
    deletePeer: succeeded('deletePeer', 'id', deletePeer),
    createPeerLiquidityWithdrawal: idempotent('createPeerLiquidityWithdrawal', async (node, { input }: Args) =>
      withdrawLiquidity(
        input,
        routes.withdrawPeerLiquidity.body,
        (id, amount) => holdPeerLiquidity(node, input.peerId, amount, undefined, id),
        (amount) => movePeerLiquidity(node, input.peerId, amount, 'withdrawal', input.id),
      ),
    ),
    postLiquidityWithdrawal: succeeded('postLiquidityWithdrawal', 'withdrawalId', postWithdrawal),
    voidLiquidityWithdrawal: succeeded('voidLiquidityWithdrawal', 'withdrawalId', voidWithdrawal),

    updateWalletAddress: idempotent('updateWalletAddress', async (node, { input }: Args) => {
      if (input.additionalProperties?.length) {
        throw notOffered('updateWalletAddress with additionalProperties', 'a wallet address publishes its asset, public name and servers only');
      }
      const change = checked(routes.updateWalletAddress.body, given({ publicName: input.publicName, status: input.status?.toLowerCase() }), 'input');
      return { walletAddress: walletOut(await updateWalletAddress(node, idOf(input.id), change)) };
    }),
    revokeWalletAddressKey: idempotent('revokeWalletAddressKey', async (node, { input }: Args) => {
      const at = input.id.indexOf(':');
      const [walletAddressId, kid] = at < 0 ? [input.id, ''] : [input.id.slice(0, at), input.id.slice(at + 1)];
      return { walletAddressKey: keyOut(await revokeKey(node, idOf(walletAddressId), kid)) };
    }),
    createTenantSettings: () => {
      throw notOffered(
        'createTenantSettings',
        'a tenant’s settings are set by the operator (createTenant’s settings, updateTenant); the operator’s are the deployment’s',
      );
    },

    createIncomingPayment: idempotent('createIncomingPayment', async (node, { input }: Args) => {
      if (input.isCardPayment) throw notOffered('createIncomingPayment with isCardPayment', 'card payments are not offered');
      if (isSet(input.senderWalletAddress)) throw notOffered('createIncomingPayment with senderWalletAddress', 'an incoming payment does not name its payer');
      const body = checked(
        routes.createPaymentIntent.body,
        given({
          walletAddress: await walletUrl(node, input.walletAddressId),
          incomingAmount: input.incomingAmount,
          expiresAt: input.expiresAt,
          metadata: input.metadata,
        }),
        'input',
      );
      return { payment: incomingOut(node, await createIntent(node, body)) };
    }),
    updateIncomingPayment: () => {
      throw notOffered('updateIncomingPayment', 'an incoming payment’s metadata is set when it is made');
    },
    approveIncomingPayment: async (_: unknown, { input }: Args, { node }: GraphqlContext) => ({
      payment: incomingOut(node, await approveIntent(node, idOf(input.id))),
    }),
    cancelIncomingPayment: async (_: unknown, { input }: Args, { node }: GraphqlContext) => {
      const { reason } = checked(routes.cancelPaymentIntent.body, { reason: input.cancellationReason ?? undefined }, 'input');
      return { payment: incomingOut(node, await cancelIntent(node, idOf(input.id), reason)) };
    },
    confirmPartialIncomingPayment: () => {
      throw notOffered(
        'confirmPartialIncomingPayment',
        'each packet an incoming payment takes is credited as it arrives (INCOMING_PARTIAL_PAYMENTS says what a short one keeps)',
      );
    },
    rejectPartialIncomingPayment: () => {
      throw notOffered(
        'rejectPartialIncomingPayment',
        'each packet an incoming payment takes is credited as it arrives (INCOMING_PARTIAL_PAYMENTS says what a short one keeps)',
      );
    },
    cancelOutgoingPayment: idempotent('cancelOutgoingPayment', async (node, { input }: Args) => {
      if (isSet(input.cardPaymentFailureReason)) throw notOffered('cancelOutgoingPayment with cardPaymentFailureReason', 'card payments are not offered');
      if (isSet(input.reason)) throw notOffered('cancelOutgoingPayment with a reason', 'a payment is cancelled without one here');
      const id = idOf(input.id);
      await cancelPayment(node, id);
      return { payment: paymentOut((await findPayment(node, id))!) };
    }),
    createIncomingPaymentWithdrawal: succeeded('createIncomingPaymentWithdrawal', 'incomingPaymentId', withdrawIntent),
    createOutgoingPaymentWithdrawal: succeeded('createOutgoingPaymentWithdrawal', 'outgoingPaymentId', withdrawPayment),
    // Rafiki's deprecated event-driven liquidity, by the webhook event that asked for it.
    depositEventLiquidity: idempotent('depositEventLiquidity', async (node, { input }: Args) => {
      const e = await getWebhookEvent(node, input.eventId);
      if (e.type !== 'payment.created') throw notOffered(`depositEventLiquidity for a ${e.type} event`, 'only a payment.created event asks for a deposit');
      await fundPayment(node, (e.data as { id: string }).id);
      return { success: true };
    }),
    withdrawEventLiquidity: idempotent('withdrawEventLiquidity', async (node, { input }: Args) => {
      const e = await getWebhookEvent(node, input.eventId);
      const id = (e.data as { id: string }).id;
      if (e.type === 'payment_intent.completed' || e.type === 'payment_intent.expired') await withdrawIntent(node, id);
      else if (e.type === 'payment.completed' || e.type === 'payment.failed') await withdrawPayment(node, id);
      else throw notOffered(`withdrawEventLiquidity for a ${e.type} event`, 'only a finished payment’s or payment intent’s event has liquidity to withdraw');
      return { success: true };
    }),
    createWalletAddressWithdrawal: () => {
      throw notOffered('createWalletAddressWithdrawal', 'Web Monetization is not offered: a wallet address holds no liquidity of its own');
    },
    triggerWalletAddressEvents: () => {
      throw notOffered('triggerWalletAddressEvents', 'Web Monetization is not offered: a wallet address holds no liquidity of its own');
    },

    createTenant: async (_: unknown, { input }: Args, { node }: GraphqlContext) => {
      operatorOnly(node);
      refuseTenantFields('createTenant', input);
      const body = checked(
        routes.createTenant.body,
        given({ name: input.publicName, idpConsentUrl: input.idpConsentUrl, ...settingsOf('createTenant', input.settings) }),
        'input',
      );
      const made = await createTenant(node, body);
      return { tenant: tenantOut(made, made.adminApiSecret, made.idpSecret) };
    },
    updateTenant: async (_: unknown, { input }: Args, { node }: GraphqlContext) => {
      operatorOnly(node);
      refuseTenantFields('updateTenant', { ...input, id: undefined });
      const body = checked(routes.updateTenant.body, given({ name: input.publicName, idpConsentUrl: input.idpConsentUrl }), 'input');
      return { tenant: tenantOut(await updateTenant(node, input.id, body)) };
    },
    deleteTenant: async (_: unknown, { id }: { id: string }, { node }: GraphqlContext) => {
      operatorOnly(node);
      await deleteTenant(node, id);
      return { success: true };
    },
    revokeGrant: async (_: unknown, { input }: { input: { grantId: string } }, { node }: GraphqlContext) => ({
      id: (await revokeGrantByFsp(node, input.grantId)).id,
    }),
  },

  Asset: {
    liquidity: async (a: Asset, _: unknown, { node }: GraphqlContext) => liquidityOf(node, a),
  },
  Peer: {
    asset: async (p: Peer, _: unknown, { node }: GraphqlContext) => assetOut((await findAssetByCode(node, p.assetCode))!),
    http: async (p: Peer, _: unknown, { node }: GraphqlContext) => {
      const r = (await findPeer(node, p.id))!;
      return { outgoing: { endpoint: r.http.outgoing.endpoint, authToken: r.outgoingAuthToken } };
    },
    liquidity: async (p: Peer, _: unknown, { node }: GraphqlContext) => (await getPeer(node, p.id)).liquidity.value,
  },
  WalletAddress: {
    asset: async (w: WalletAddress, _: unknown, { node }: GraphqlContext) => assetOut((await findAssetByCode(node, w.assetCode))!),
  },
  OutgoingPayment: {
    quote: async (p: { quoteId: string }, _: unknown, { node }: GraphqlContext) => {
      const q = await findQuote(node, p.quoteId);
      return q ? quoteOut(node, q) : null;
    },
  },
};

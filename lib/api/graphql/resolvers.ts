import { createHash } from 'node:crypto';
import type { ZodType } from 'zod';
import { findAssetByCode, getAsset, liquidityOf, moveLiquidity, createAsset as newAsset, updateAsset } from '../../assets';
import type { Asset } from '../../assets/schemas';
import { findIntent, intentView } from '../../payment-intents';
import type { IntentRecord } from '../../payment-intents/schemas';
import { createPaymentRecord, findPayment, fundPayment } from '../../payments';
import { createQuote as priceAndRecordQuote } from '../../payments/methods/quote';
import type { PaymentRecord } from '../../payments/schemas';
import { allPeers, findPeer, getPeer, movePeerLiquidity, createPeer as newPeer } from '../../peers';
import type { Peer, PeerRecord } from '../../peers/schemas';
import { findQuote } from '../../quotes';
import type { QuoteRecord } from '../../quotes/schemas';
import { completeReceiver, getReceiver, createReceiver as newReceiver } from '../../receivers';
import { commonErrors, DomainError, invalidFields } from '../../shared/errors';
import type { Node } from '../../shared/node';
import { isResourceId } from '../../shared/resources';
import { addKey, findWalletAddressByUrl, getWalletAddress, createWalletAddress as newWalletAddress } from '../../wallet-addresses';
import type { WalletAddress, WalletAddressKey } from '../../wallet-addresses/schemas';
import { fieldErrors } from '../http/problem';
import { routes } from '../routes';
import { notOffered } from './errors';

// Each Rafiki operation resolved by the domain operation its REST route calls, its input checked by
// that route's own schemas (one rule, two adapters): only the shapes differ (Rafiki names assets and
// wallet addresses by id where the REST API names them by code and URL, and spells states in
// capitals). A lookup that finds nothing is null, as Rafiki answers.
export interface GraphqlContext {
  node: Node;
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

async function assetById(node: Node, id: string): Promise<Asset> {
  return getAsset(node, isResourceId(id) ? id : '00000000-0000-4000-8000-000000000000');
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

// ---- Peers

const peerOut = (p: Peer | PeerRecord) => ({ ...p, routes: [] as string[] });

// ---- Wallet addresses

const walletOut = (w: WalletAddress) => ({ ...w, status: w.status.toUpperCase(), liquidity: null, additionalProperties: [] });
const keyOut = (k: WalletAddressKey) => ({
  id: derivedId(k.walletAddressId, k.kid),
  walletAddressId: k.walletAddressId,
  jwk: k.jwk,
  revoked: k.revokedAt !== null,
  createdAt: k.createdAt,
});
async function walletUrl(node: Node, id: string): Promise<string> {
  return (await getWalletAddress(node, isResourceId(id) ? id : '00000000-0000-4000-8000-000000000000')).address;
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
      return found ? peerOut(found) : null;
    },
    peerByAddressAndAsset: async (_: unknown, a: { staticIlpAddress: string; assetId: string }, { node }: GraphqlContext) => {
      const found = (await allPeers(node)).find((p) => p.staticIlpAddress === a.staticIlpAddress && p.assetId === a.assetId);
      return found ? peerOut(found) : null;
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
  },

  Mutation: {
    createAsset: async (_: unknown, { input }: Args, { node }: GraphqlContext) => {
      sameTenant(node, input.tenantId);
      if (isSet(input.withdrawalThreshold)) {
        throw notOffered('createAsset with a withdrawalThreshold', 'liquidity leaves by withdrawals the FSP makes (two-phase if it wants), not by a threshold');
      }
      const body = checked(routes.createAsset.body, given({ code: input.code, scale: input.scale, liquidityThreshold: input.liquidityThreshold }), 'input');
      return { asset: assetOut(await newAsset(node, body)) };
    },
    depositAssetLiquidity: async (_: unknown, { input }: Args, { node }: GraphqlContext) => {
      const { amount } = checked(routes.depositAssetLiquidity.body, { amount: input.amount }, 'input');
      await moveLiquidity(node, (await assetById(node, input.assetId)).id, amount, 'deposit', input.id);
      return { success: true };
    },
    setFee: async (_: unknown, { input }: Args, { node }: GraphqlContext) => {
      const field = input.type === 'SENDING' ? 'sendingFee' : 'receivingFee';
      const change = checked(routes.updateAsset.body, { [field]: { fixed: input.fee.fixed, basisPoints: input.fee.basisPoints } }, 'input');
      const asset = await updateAsset(node, (await assetById(node, input.assetId)).id, change);
      return { fee: feeOf(asset, input.type) };
    },

    createPeer: async (_: unknown, { input }: Args, { node }: GraphqlContext) => {
      if (input.routes?.length) throw notOffered('createPeer with routes', 'packets route by the peers’ static ILP addresses');
      const asset = await assetById(node, input.assetId);
      const body = checked(
        routes.createPeer.body,
        given({
          name: input.name,
          staticIlpAddress: input.staticIlpAddress,
          assetCode: asset.code,
          http: { incoming: input.http.incoming ?? undefined, outgoing: input.http.outgoing },
          maxPacketAmount: input.maxPacketAmount,
          liquidityThreshold: input.liquidityThreshold,
        }),
        'input',
      );
      const peer = await newPeer(node, body);
      // Its first deposit, as a deposit of its own: a retry deposits it once (the peer's id keys it).
      if (isSet(input.initialLiquidity) && input.initialLiquidity !== '0') {
        await movePeerLiquidity(node, peer.id, input.initialLiquidity, 'deposit', `initial:${peer.id}`);
      }
      return { peer: peerOut(peer) };
    },
    depositPeerLiquidity: async (_: unknown, { input }: Args, { node }: GraphqlContext) => {
      const { amount } = checked(routes.depositPeerLiquidity.body, { amount: input.amount }, 'input');
      await movePeerLiquidity(node, input.peerId, amount, 'deposit', input.id);
      return { success: true };
    },

    createWalletAddress: async (_: unknown, { input }: Args, { node }: GraphqlContext) => {
      sameTenant(node, input.tenantId);
      if (input.additionalProperties?.length) {
        throw notOffered('createWalletAddress with additionalProperties', 'a wallet address publishes its asset, public name and servers only');
      }
      const asset = await assetById(node, input.assetId);
      const body = checked(routes.createWalletAddress.body, given({ address: input.address, assetCode: asset.code, publicName: input.publicName }), 'input');
      return { walletAddress: walletOut(await newWalletAddress(node, body)) };
    },
    createWalletAddressKey: async (_: unknown, { input }: Args, { node }: GraphqlContext) => {
      const jwk = checked(routes.createWalletAddressKey.body, input.jwk, 'input.jwk');
      const id = isResourceId(input.walletAddressId) ? input.walletAddressId : '00000000-0000-4000-8000-000000000000';
      return { walletAddressKey: keyOut(await addKey(node, id, jwk)) };
    },

    createReceiver: async (_: unknown, { input }: Args, { node }: GraphqlContext) => {
      const body = checked(
        routes.createReceiver.body,
        given({ walletAddressUrl: input.walletAddressUrl, incomingAmount: input.incomingAmount, expiresAt: input.expiresAt, metadata: input.metadata }),
        'input',
      );
      return { receiver: await newReceiver(node, body) };
    },
    completeReceiver: async (_: unknown, { input }: Args, { node }: GraphqlContext) => ({
      receiver: await completeReceiver(node, checked(routes.completeReceiver.body, { url: input.incomingPaymentUrl }, 'input')),
    }),
    createQuote: async (_: unknown, { input }: Args, { node }: GraphqlContext) => {
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
    },
    createOutgoingPayment: async (_: unknown, { input }: Args, { node }: GraphqlContext) => {
      const body = checked(
        routes.createPayment.body,
        given({ walletAddress: await walletUrl(node, input.walletAddressId), quoteId: input.quoteId, metadata: input.metadata }),
        'input',
      );
      return { payment: paymentOut((await createPaymentRecord(node, body)).record) };
    },
    // A quote for the debit amount to the incoming payment, and the payment of it.
    createOutgoingPaymentFromIncomingPayment: async (_: unknown, { input }: Args, { node }: GraphqlContext) => {
      if (!isSet(input.debitAmount)) throw invalidFields([{ field: 'input.debitAmount', message: 'is required' }]);
      if (isSet(input.cardDetails)) throw notOffered('createOutgoingPaymentFromIncomingPayment with cardDetails', 'card payments are not offered');
      const walletAddress = await walletUrl(node, input.walletAddressId);
      const quoted = checked(routes.createQuote.body, { walletAddress, receiver: input.incomingPayment, debitAmount: input.debitAmount }, 'input');
      const quote = await priceAndRecordQuote(node, quoted);
      const body = checked(routes.createPayment.body, given({ walletAddress, quoteId: quote.id, metadata: input.metadata }), 'input');
      return { payment: paymentOut((await createPaymentRecord(node, body)).record) };
    },
    depositOutgoingPaymentLiquidity: async (_: unknown, { input }: Args, { node }: GraphqlContext) => {
      if (isSet(input.dataToTransmit)) throw notOffered('depositOutgoingPaymentLiquidity with dataToTransmit', 'STREAM data is not sent');
      await fundPayment(node, input.outgoingPaymentId);
      return { success: true };
    },
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

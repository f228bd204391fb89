import { createHmac, randomUUID } from 'node:crypto';

// A signed client of a Rafiki node's Admin GraphQL API, for `npm run interop`. Rafiki checks each
// request against the tenant's API secret: header `tenant-id`, and `signature: t=<ms>, v1=<hex
// HMAC-SHA256(secret, "<t>.<the body as canonical JSON (RFC 8785)>")>`, each signature good once.
export interface RafikiAdmin {
  url: string; // …/graphql
  secret: string;
  tenantId: string;
}

// RFC 8785's canonical JSON for what a GraphQL body holds (strings, integers, booleans, null,
// objects, arrays): members sorted by name, no white space.
export function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value);
  if (Array.isArray(value)) return `[${value.map((v) => (v === undefined ? 'null' : canonicalJson(v))).join(',')}]`;
  const entries = Object.entries(value as Record<string, unknown>).filter(([, v]) => v !== undefined);
  entries.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
}

export class RafikiError extends Error {}

// One operation; its data, or a RafikiError that names the operation and what Rafiki said.
export async function gql<T = any>(admin: RafikiAdmin, query: string, variables: Record<string, unknown> = {}): Promise<T> {
  const operationName = /(?:query|mutation)\s+(\w+)/.exec(query)?.[1];
  const body = { query, variables, operationName };
  const t = Date.now();
  const signature = `t=${t}, v1=${createHmac('sha256', admin.secret)
    .update(`${t}.${canonicalJson(body)}`)
    .digest('hex')}`;
  let res: Response;
  try {
    res = await fetch(admin.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'tenant-id': admin.tenantId, signature },
      body: JSON.stringify(body),
      signal: AbortSignal.timeout(30_000),
    });
  } catch (e) {
    throw new RafikiError(`Rafiki's Admin API at ${admin.url} cannot be reached (${(e as Error).cause ?? (e as Error).message})`);
  }
  const text = await res.text();
  let json: { data?: T; errors?: { message: string }[] } | undefined;
  try {
    json = JSON.parse(text);
  } catch {
    // not JSON: reported below
  }
  if (res.status !== 200 || !json || json.errors?.length)
    throw new RafikiError(`Rafiki ${operationName}: HTTP ${res.status} ${json?.errors?.map((e) => e.message).join('; ') ?? text.slice(0, 300)}`);
  return json.data as T;
}

export const idempotencyKey = () => randomUUID();

const amount = 'value assetCode assetScale';
// The operations `npm run interop` uses.
export const RAFIKI = {
  assets: 'query Assets { assets(first: 100) { edges { node { id code scale } } } }',
  createAsset: 'mutation CreateAsset($input: CreateAssetInput!) { createAsset(input: $input) { asset { id code scale } } }',
  depositAssetLiquidity: 'mutation DepositAssetLiquidity($input: DepositAssetLiquidityInput!) { depositAssetLiquidity(input: $input) { success } }',
  createWalletAddress:
    'mutation CreateWalletAddress($input: CreateWalletAddressInput!) { createWalletAddress(input: $input) { walletAddress { id address } } }',
  createPeer: 'mutation CreatePeer($input: CreatePeerInput!) { createPeer(input: $input) { peer { id liquidity } } }',
  peer: 'query Peer($id: String!) { peer(id: $id) { id liquidity } }',
  walletAddress: 'query WalletAddress($id: String!) { walletAddress(id: $id) { id address liquidity } }',
  createIncomingPayment: `mutation CreateIncomingPayment($input: CreateIncomingPaymentInput!) { createIncomingPayment(input: $input) { payment { id url } } }`,
  incomingPayment: `query IncomingPayment($id: String!) { incomingPayment(id: $id) { id state receivedAmount { ${amount} } incomingAmount { ${amount} } } }`,
  createQuote: `mutation CreateQuote($input: CreateQuoteInput!) { createQuote(input: $input) { quote { id debitAmount { ${amount} } receiveAmount { ${amount} } } } }`,
  createOutgoingPayment:
    'mutation CreateOutgoingPayment($input: CreateOutgoingPaymentInput!) { createOutgoingPayment(input: $input) { payment { id state } } }',
  outgoingPayment: `query OutgoingPayment($id: String!) { outgoingPayment(id: $id) { id state error debitAmount { ${amount} } sentAmount { ${amount} } receiveAmount { ${amount} } } }`,
};

import { describe, expect, it } from 'vitest';
import { type GraphqlRequest, runGraphql } from '../../../lib/api/graphql';
import type { Node } from '../../../lib/shared/node';
import { tenantById } from '../../../lib/tenants';
import { createWalletAddress } from '../../../lib/wallet-addresses';
import { inMemory, runPaymentWorker } from '../../harness/in-memory';
import { inMemorySecrets } from '../../harness/in-memory-secrets';

// The rest of Rafiki's Admin API (lib/api/graphql) in memory, beside ./rafiki-admin.test.ts: its
// lists as cursor connections, the changes, two-phase withdrawals, incoming and outgoing payments,
// tenants, grants and webhook events through the REST routes' domain operations; idempotencyKey as
// Idempotency-Key; and the operations this service does not offer, each refused by name. Documents
// are written as Rafiki's clients (its Bruno collection, test-lib and mock ASE) send them: named
// operations, variables, `__typename` in every selection.
const mem = inMemory({}, { fresh: 'file' });
inMemorySecrets();

const lambda = { getRemainingTimeInMillis: () => 30_000 } as never;
async function gql(operationName: string, query: string, variables: Record<string, unknown> = {}, node: Node = mem.node) {
  const request: GraphqlRequest = { operationName, query, variables };
  return (await runGraphql(node, request, { introspection: false, lambda })).result;
}
async function data(operationName: string, query: string, variables: Record<string, unknown> = {}, node?: Node) {
  const result = await gql(operationName, query, variables, node);
  expect(result.errors, JSON.stringify(result.errors)).toBeUndefined();
  return result.data as Record<string, any>;
}
// The one error an operation answered: its message, Rafiki's code and this service's problem.
async function refused(operationName: string, query: string, variables: Record<string, unknown> = {}, node?: Node) {
  const result = await gql(operationName, query, variables, node);
  expect(result.errors).toHaveLength(1);
  const [e] = result.errors!;
  return { message: e.message, code: e.extensions?.code, problem: e.extensions?.problem };
}

const pageInfo = 'pageInfo { endCursor hasNextPage hasPreviousPage startCursor __typename }';
const amount = '{ value assetCode assetScale __typename }';
const incoming = `id url walletAddressId state expiresAt incomingAmount ${amount} receivedAmount ${amount} metadata createdAt cancellationReason __typename`;
const outgoing = `id walletAddressId state error debitAmount ${amount} receiveAmount ${amount} sentAmount ${amount} receiver __typename`;
const success = '{ success __typename }';
const doc = {
  createAsset: 'mutation CreateAsset($input: CreateAssetInput!) { createAsset(input: $input) { asset { id code scale __typename } __typename } }',
  getAsset: 'query GetAsset($id: String!) { asset(id: $id) { id liquidity liquidityThreshold __typename } }',
  getAssets: `query GetAssets($after: String, $before: String, $first: Int, $last: Int) {
    assets(after: $after, before: $before, first: $first, last: $last) { edges { cursor node { id code scale __typename } __typename } ${pageInfo} __typename } }`,
  updateAsset: `mutation UpdateAsset($input: UpdateAssetInput!) {
    updateAsset(input: $input) { asset { id liquidityThreshold __typename } __typename } }`,
  deleteAsset: 'mutation DeleteAsset($input: DeleteAssetInput!) { deleteAsset(input: $input) { asset { id __typename } __typename } }',
  depositAssetLiquidity: `mutation DepositAssetLiquidity($input: DepositAssetLiquidityInput!) { depositAssetLiquidity(input: $input) ${success} }`,
  createAssetLiquidityWithdrawal: `mutation CreateAssetLiquidityWithdrawal($input: CreateAssetLiquidityWithdrawalInput!) {
    createAssetLiquidityWithdrawal(input: $input) ${success} }`,
  postLiquidityWithdrawal: `mutation PostLiquidityWithdrawal($input: PostLiquidityWithdrawalInput!) { postLiquidityWithdrawal(input: $input) ${success} }`,
  voidLiquidityWithdrawal: `mutation VoidLiquidityWithdrawal($input: VoidLiquidityWithdrawalInput!) { voidLiquidityWithdrawal(input: $input) ${success} }`,
  accountingTransfers: `query GetAccountingTransfers($id: String!, $limit: Int) {
    accountingTransfers(id: $id, limit: $limit) {
      debits { id debitAccountId creditAccountId amount transferType ledger createdAt state expiresAt __typename }
      credits { id amount transferType state __typename } __typename } }`,
  createPeer: 'mutation CreatePeer($input: CreatePeerInput!) { createPeer(input: $input) { peer { id __typename } __typename } }',
  getPeer: 'query GetPeer($id: String!) { peer(id: $id) { id name liquidity maxPacketAmount __typename } }',
  getPeers: `query GetPeers($after: String, $first: Int) {
    peers(after: $after, first: $first) { edges { cursor node { id name staticIlpAddress asset { code __typename } __typename } __typename } ${pageInfo} __typename } }`,
  updatePeer: `mutation UpdatePeer($input: UpdatePeerInput!) {
    updatePeer(input: $input) { peer { id name maxPacketAmount http { outgoing { endpoint __typename } __typename } __typename } __typename } }`,
  deletePeer: 'mutation DeletePeer($input: DeletePeerInput!) { deletePeer(input: $input) { success __typename } }',
  depositPeerLiquidity: `mutation DepositPeerLiquidity($input: DepositPeerLiquidityInput!) { depositPeerLiquidity(input: $input) ${success} }`,
  createPeerLiquidityWithdrawal: `mutation CreatePeerLiquidityWithdrawal($input: CreatePeerLiquidityWithdrawalInput!) {
    createPeerLiquidityWithdrawal(input: $input) ${success} }`,
  createOrUpdatePeerByUrl: `mutation CreateOrUpdatePeerByUrl($input: CreateOrUpdatePeerByUrlInput!) {
    createOrUpdatePeerByUrl(input: $input) { peer { id __typename } __typename } }`,
  createWalletAddress: `mutation CreateWalletAddress($input: CreateWalletAddressInput!) {
    createWalletAddress(input: $input) { walletAddress { id address status __typename } __typename } }`,
  getWalletAddresses: `query GetWalletAddresses($after: String, $first: Int) {
    walletAddresses(after: $after, first: $first) { edges { cursor node { id address publicName status __typename } __typename } ${pageInfo} __typename } }`,
  updateWalletAddress: `mutation UpdateWalletAddress($input: UpdateWalletAddressInput!) {
    updateWalletAddress(input: $input) { walletAddress { id publicName status __typename } __typename } }`,
  createWalletAddressKey: `mutation CreateWalletAddressKey($input: CreateWalletAddressKeyInput!) {
    createWalletAddressKey(input: $input) { walletAddressKey { id revoked __typename } __typename } }`,
  revokeWalletAddressKey: `mutation RevokeWalletAddressKey($input: RevokeWalletAddressKeyInput!) {
    revokeWalletAddressKey(input: $input) { walletAddressKey { id revoked walletAddressId __typename } __typename } }`,
  createWalletAddressWithdrawal: `mutation CreateWalletAddressWithdrawal($input: CreateWalletAddressWithdrawalInput!) {
    createWalletAddressWithdrawal(input: $input) { withdrawal { id amount __typename } __typename } }`,
  triggerWalletAddressEvents: `mutation TriggerWalletAddressEvents($input: TriggerWalletAddressEventsInput!) {
    triggerWalletAddressEvents(input: $input) { count __typename } }`,
  createIncomingPayment: `mutation CreateIncomingPayment($input: CreateIncomingPaymentInput!) {
    createIncomingPayment(input: $input) { payment { ${incoming} } __typename } }`,
  getIncomingPayments: `query GetIncomingPayments($first: Int, $after: String, $filter: IncomingPaymentFilter) {
    incomingPayments(first: $first, after: $after, filter: $filter) { edges { cursor node { ${incoming} } __typename } ${pageInfo} __typename } }`,
  approveIncomingPayment: `mutation ApproveIncomingPayment($input: ApproveIncomingPaymentInput!) {
    approveIncomingPayment(input: $input) { payment { id state __typename } __typename } }`,
  cancelIncomingPayment: `mutation CancelIncomingPayment($input: CancelIncomingPaymentInput!) {
    cancelIncomingPayment(input: $input) { payment { id state cancellationReason cancelledAt __typename } __typename } }`,
  updateIncomingPayment: `mutation UpdateIncomingPayment($input: UpdateIncomingPaymentInput!) {
    updateIncomingPayment(input: $input) { payment { id metadata __typename } __typename } }`,
  confirmPartialIncomingPayment: `mutation ConfirmPartialIncomingPayment($input: ConfirmPartialIncomingPaymentInput!) {
    confirmPartialIncomingPayment(input: $input) { success __typename } }`,
  rejectPartialIncomingPayment: `mutation RejectPartialIncomingPayment($input: RejectPartialIncomingPaymentInput!) {
    rejectPartialIncomingPayment(input: $input) { success __typename } }`,
  createIncomingPaymentWithdrawal: `mutation CreateIncomingPaymentWithdrawal($input: CreateIncomingPaymentWithdrawalInput!) {
    createIncomingPaymentWithdrawal(input: $input) ${success} }`,
  createQuote: 'mutation CreateQuote($input: CreateQuoteInput!) { createQuote(input: $input) { quote { id __typename } __typename } }',
  createOutgoingPayment: `mutation CreateOutgoingPayment($input: CreateOutgoingPaymentInput!) {
    createOutgoingPayment(input: $input) { payment { ${outgoing} } __typename } }`,
  depositOutgoingPaymentLiquidity: `mutation DepositOutgoingPaymentLiquidity($input: DepositOutgoingPaymentLiquidityInput!) {
    depositOutgoingPaymentLiquidity(input: $input) ${success} }`,
  cancelOutgoingPayment: `mutation CancelOutgoingPayment($input: CancelOutgoingPaymentInput!) {
    cancelOutgoingPayment(input: $input) { payment { id state __typename } __typename } }`,
  getOutgoingPayments: `query GetOutgoingPayments($first: Int, $filter: OutgoingPaymentFilter) {
    outgoingPayments(first: $first, filter: $filter) { edges { cursor node { ${outgoing} } __typename } ${pageInfo} __typename } }`,
  createOutgoingPaymentWithdrawal: `mutation CreateOutgoingPaymentWithdrawal($input: CreateOutgoingPaymentWithdrawalInput!) {
    createOutgoingPaymentWithdrawal(input: $input) ${success} }`,
  getPayments: `query GetPayments($first: Int, $filter: PaymentFilter) {
    payments(first: $first, filter: $filter) { edges { cursor node { id type state __typename } __typename } ${pageInfo} __typename } }`,
  depositEventLiquidity: `mutation DepositEventLiquidity($input: DepositEventLiquidityInput!) { depositEventLiquidity(input: $input) ${success} }`,
  withdrawEventLiquidity: `mutation WithdrawEventLiquidity($input: WithdrawEventLiquidityInput!) { withdrawEventLiquidity(input: $input) ${success} }`,
  getWebhookEvents: `query GetWebhookEvents($first: Int, $filter: WebhookEventFilter) {
    webhookEvents(first: $first, filter: $filter) { edges { cursor node { id type data createdAt __typename } __typename } ${pageInfo} __typename } }`,
  whoami: 'query Whoami { whoami { id isOperator __typename } }',
  createTenant: `mutation CreateTenant($input: CreateTenantInput!) {
    createTenant(input: $input) { tenant { id publicName apiSecret idpSecret idpConsentUrl settings { key value __typename } __typename } __typename } }`,
  getTenant: 'query GetTenant($id: String!) { tenant(id: $id) { id publicName apiSecret createdAt settings { key value __typename } __typename } }',
  getTenants: `query GetTenants($first: Int, $after: String) {
    tenants(first: $first, after: $after) { edges { cursor node { id publicName __typename } __typename } ${pageInfo} __typename } }`,
  updateTenant: 'mutation UpdateTenant($input: UpdateTenantInput!) { updateTenant(input: $input) { tenant { id publicName __typename } __typename } }',
  deleteTenant: 'mutation DeleteTenant($id: String!) { deleteTenant(id: $id) { success __typename } }',
  createTenantSettings: `mutation CreateTenantSettings($input: CreateTenantSettingsInput!) {
    createTenantSettings(input: $input) { settings { key value __typename } __typename } }`,
  getGrants: `query GetGrants($first: Int, $filter: GrantFilter) {
    grants(first: $first, filter: $filter) { edges { cursor node { id client state finalizationReason access { id type actions __typename } __typename } __typename } ${pageInfo} __typename } }`,
  getGrant: 'query GetGrant($id: ID!) { grant(id: $id) { id state __typename } }',
  revokeGrant: 'mutation RevokeGrant($input: RevokeGrantInput!) { revokeGrant(input: $input) { id __typename } }',
};

const uuid = () => crypto.randomUUID();
let codes = 0;
const newAsset = async (node?: Node) =>
  (await data('CreateAsset', doc.createAsset, { input: { code: `OPS${codes++}`, scale: 2 } }, node)).createAsset.asset.id as string;
const deposit = (assetId: string, value: string) =>
  data('DepositAssetLiquidity', doc.depositAssetLiquidity, { input: { assetId, amount: value, id: uuid(), idempotencyKey: uuid() } });
const liquidityOf = async (id: string) => (await data('GetAsset', doc.getAsset, { id })).asset.liquidity;
const wallet = async (assetId: string, name: string) =>
  (await data('CreateWalletAddress', doc.createWalletAddress, { input: { assetId, address: `${mem.node.urls.walletAddresses}/${name}` } })).createWalletAddress
    .walletAddress;
const peerInput = (assetId: string, n: number) => ({
  staticIlpAddress: `test.ops-peer-${n}`,
  http: { incoming: { authTokens: [`incoming-token-ops-${n}`] }, outgoing: { endpoint: `http://peer-${n}.example/ilp`, authToken: `outgoing-token-ops-${n}` } },
  assetId,
});

describe('Rafiki lists, as cursor connections over the REST lists', () => {
  it('pages forward by first and after, and refuses last, before and sortOrder by name', async () => {
    const made = [await newAsset(), await newAsset(), await newAsset()];
    const first = (await data('GetAssets', doc.getAssets, { first: 2 })).assets;
    expect(first.edges).toHaveLength(2);
    expect(first.pageInfo).toMatchObject({ hasNextPage: true, hasPreviousPage: false, startCursor: null, endCursor: expect.any(String) });
    expect(first.edges[0]).toMatchObject({ cursor: first.edges[0].node.id, __typename: 'AssetEdge', node: { __typename: 'Asset' } });
    const seen = first.edges.map((e: any) => e.node.id);
    let after = first.pageInfo.endCursor;
    while (after) {
      const page = (await data('GetAssets', doc.getAssets, { first: 2, after })).assets;
      expect(page.pageInfo.hasPreviousPage).toBe(true);
      seen.push(...page.edges.map((e: any) => e.node.id));
      after = page.pageInfo.endCursor;
    }
    expect(seen).toEqual(expect.arrayContaining(made));
    expect(new Set(seen).size).toBe(seen.length);

    expect(await refused('GetAssets', doc.getAssets, { last: 2 })).toEqual({
      message: expect.stringMatching(/^assets with last or before is not offered by this service: lists page forward only/),
      code: 'BAD_USER_INPUT',
      problem: 'not_offered',
    });
    expect(await refused('GetAssets', doc.getAssets, { first: 101 })).toMatchObject({
      message: expect.stringContaining('arguments.limit'),
      problem: 'invalid_request',
    });
    expect(await refused('GetAssets', 'query GetAssets { assets(sortOrder: ASC) { edges { cursor } } }')).toMatchObject({ problem: 'not_offered' });
  });
});

describe('Rafiki changes, through the REST routes’ operations', () => {
  it('updates an asset; updates, lists and deletes a peer; updates, lists and revokes a wallet address’s key', async () => {
    const assetId = await newAsset();
    expect(
      (await data('UpdateAsset', doc.updateAsset, { input: { id: assetId, liquidityThreshold: '500', idempotencyKey: uuid() } })).updateAsset.asset,
    ).toEqual({
      id: assetId,
      liquidityThreshold: '500',
      __typename: 'Asset',
    });
    expect(await refused('UpdateAsset', doc.updateAsset, { input: { id: assetId, withdrawalThreshold: '5' } })).toMatchObject({ problem: 'not_offered' });

    const peerId = (await data('CreatePeer', doc.createPeer, { input: peerInput(assetId, 1) })).createPeer.peer.id;
    const updated = await data('UpdatePeer', doc.updatePeer, {
      input: {
        id: peerId,
        name: 'Renamed',
        maxPacketAmount: '1000',
        http: { outgoing: { endpoint: 'http://moved.example/ilp', authToken: 'outgoing-token-moved' } },
      },
    });
    expect(updated.updatePeer.peer).toMatchObject({
      id: peerId,
      name: 'Renamed',
      maxPacketAmount: '1000',
      http: { outgoing: { endpoint: 'http://moved.example/ilp' } },
    });
    const peers = (await data('GetPeers', doc.getPeers, { first: 100 })).peers;
    expect(peers.edges.map((e: any) => e.node.id)).toContain(peerId);
    expect(await data('DeletePeer', doc.deletePeer, { input: { id: peerId, idempotencyKey: uuid() } })).toEqual({
      deletePeer: { success: true, __typename: 'DeletePeerMutationResponse' },
    });
    expect(await data('GetPeer', doc.getPeer, { id: peerId })).toEqual({ peer: null });

    const w = await wallet(assetId, 'ops-changes');
    expect(
      (await data('UpdateWalletAddress', doc.updateWalletAddress, { input: { id: w.id, publicName: 'Ops', status: 'INACTIVE' } })).updateWalletAddress
        .walletAddress,
    ).toEqual({ id: w.id, publicName: 'Ops', status: 'INACTIVE', __typename: 'WalletAddress' });
    const listed = (await data('GetWalletAddresses', doc.getWalletAddresses, { first: 100 })).walletAddresses;
    expect(listed.edges.find((e: any) => e.node.id === w.id).node).toMatchObject({ status: 'INACTIVE', publicName: 'Ops' });
    const jwk = { kid: `ops-${uuid()}`, x: 'ubqoInifJ5sssIPPnQR1gVPfmoZnJtPhTkyMXNoJF_8', alg: 'EdDSA', kty: 'OKP', crv: 'Ed25519' };
    const key = (await data('CreateWalletAddressKey', doc.createWalletAddressKey, { input: { walletAddressId: w.id, jwk } })).createWalletAddressKey
      .walletAddressKey;
    expect((await data('RevokeWalletAddressKey', doc.revokeWalletAddressKey, { input: { id: key.id } })).revokeWalletAddressKey.walletAddressKey).toEqual({
      id: key.id,
      revoked: true,
      walletAddressId: w.id,
      __typename: 'WalletAddressKey',
    });
    expect(await refused('RevokeWalletAddressKey', doc.revokeWalletAddressKey, { input: { id: `${w.id}:nope` } })).toMatchObject({ code: 'NOT_FOUND' });
  });

  it('withdraws an asset’s and a peer’s liquidity at once or in two phases, posted or voided by the client’s id, and lists the transfers', async () => {
    const assetId = await newAsset();
    await deposit(assetId, '10000');
    const withdraw = (input: Record<string, unknown>) =>
      data('CreateAssetLiquidityWithdrawal', doc.createAssetLiquidityWithdrawal, { input: { assetId, idempotencyKey: uuid(), ...input } });
    const [posted, voided] = [uuid(), uuid()];
    await withdraw({ id: posted, amount: '1000', timeoutSeconds: 60 });
    await withdraw({ id: voided, amount: '2000', timeoutSeconds: 60 });
    expect(await liquidityOf(assetId)).toBe('7000');
    await data('PostLiquidityWithdrawal', doc.postLiquidityWithdrawal, { input: { withdrawalId: posted, idempotencyKey: uuid() } });
    await data('VoidLiquidityWithdrawal', doc.voidLiquidityWithdrawal, { input: { withdrawalId: voided, idempotencyKey: uuid() } });
    expect(await liquidityOf(assetId)).toBe('9000');
    expect(await refused('PostLiquidityWithdrawal', doc.postLiquidityWithdrawal, { input: { withdrawalId: voided, idempotencyKey: uuid() } })).toMatchObject({
      code: 'CONFLICT',
    });
    expect(await refused('VoidLiquidityWithdrawal', doc.voidLiquidityWithdrawal, { input: { withdrawalId: uuid(), idempotencyKey: uuid() } })).toMatchObject({
      code: 'NOT_FOUND',
    });
    await withdraw({ id: uuid(), amount: '500', timeoutSeconds: 0 });
    expect(await liquidityOf(assetId)).toBe('8500');
    expect(
      await refused('CreateAssetLiquidityWithdrawal', doc.createAssetLiquidityWithdrawal, {
        input: { assetId, id: uuid(), amount: '100000', idempotencyKey: uuid(), timeoutSeconds: 0 },
      }),
    ).toMatchObject({ problem: 'insufficient_liquidity' });

    const { accountingTransfers } = await data('GetAccountingTransfers', doc.accountingTransfers, { id: assetId, limit: 20 });
    expect(accountingTransfers.credits).toEqual(
      expect.arrayContaining([expect.objectContaining({ amount: '10000', transferType: 'DEPOSIT', state: 'POSTED' })]),
    );
    expect(accountingTransfers.debits).toEqual(
      expect.arrayContaining([expect.objectContaining({ amount: '500', transferType: 'WITHDRAWAL', debitAccountId: `liquidity:${assetId}`, ledger: 2 })]),
    );

    const peerId = (await data('CreatePeer', doc.createPeer, { input: peerInput(assetId, 2) })).createPeer.peer.id;
    await data('DepositPeerLiquidity', doc.depositPeerLiquidity, { input: { peerId, amount: '3000', id: uuid(), idempotencyKey: uuid() } });
    const held = uuid();
    await data('CreatePeerLiquidityWithdrawal', doc.createPeerLiquidityWithdrawal, {
      input: { peerId, amount: '1000', id: held, idempotencyKey: uuid(), timeoutSeconds: 60 },
    });
    expect((await data('GetPeer', doc.getPeer, { id: peerId })).peer.liquidity).toBe('2000');
    await data('PostLiquidityWithdrawal', doc.postLiquidityWithdrawal, { input: { withdrawalId: held, idempotencyKey: uuid() } });
    await data('CreatePeerLiquidityWithdrawal', doc.createPeerLiquidityWithdrawal, {
      input: { peerId, amount: '500', id: uuid(), idempotencyKey: uuid(), timeoutSeconds: 0 },
    });
    expect((await data('GetPeer', doc.getPeer, { id: peerId })).peer.liquidity).toBe('1500');
  });
});

describe('Rafiki incoming and outgoing payments', () => {
  it('creates, lists by wallet address, approves, cancels and withdraws incoming payments', async () => {
    const assetId = await newAsset();
    const asset = (await data('GetAsset', 'query GetAsset($id: String!) { asset(id: $id) { code __typename } }', { id: assetId })).asset.code;
    const held = await createWalletAddress(mem.node, { address: `${mem.node.urls.walletAddresses}/ops-held`, assetCode: asset, approvalRequired: true });
    const make = async (walletAddressId: string) =>
      (
        await data('CreateIncomingPayment', doc.createIncomingPayment, {
          input: {
            walletAddressId,
            incomingAmount: { value: '500', assetCode: asset, assetScale: 2 },
            metadata: { description: 'Ops' },
            idempotencyKey: uuid(),
          },
        })
      ).createIncomingPayment.payment;
    const [first, second] = [await make(held.id), await make(held.id)];
    expect(first).toMatchObject({ walletAddressId: held.id, state: 'PENDING', incomingAmount: { value: '500' }, metadata: { description: 'Ops' } });

    const other = await wallet(assetId, 'ops-other');
    await make(other.id);
    const listed = (await data('GetIncomingPayments', doc.getIncomingPayments, { first: 10, filter: { walletAddressId: { in: [held.id] } } })).incomingPayments;
    expect(listed.edges.map((e: any) => e.node.id).sort()).toEqual([first.id, second.id].sort());
    expect(listed.pageInfo).toMatchObject({ hasNextPage: false, endCursor: null });
    expect(await refused('GetIncomingPayments', doc.getIncomingPayments, { filter: { initiatedBy: { in: ['CARD'] } } })).toMatchObject({
      problem: 'not_offered',
    });

    expect((await data('ApproveIncomingPayment', doc.approveIncomingPayment, { input: { id: first.id } })).approveIncomingPayment.payment).toMatchObject({
      id: first.id,
      state: 'PENDING',
    });
    expect(await refused('ApproveIncomingPayment', doc.approveIncomingPayment, { input: { id: first.id } })).toMatchObject({ code: 'CONFLICT' });
    const cancelled = await data('CancelIncomingPayment', doc.cancelIncomingPayment, { input: { id: second.id, cancellationReason: 'Not ours' } });
    expect(cancelled.cancelIncomingPayment.payment).toMatchObject({
      id: second.id,
      state: 'EXPIRED',
      cancellationReason: 'Not ours',
      cancelledAt: expect.any(String),
    });
    expect(
      await data('CreateIncomingPaymentWithdrawal', doc.createIncomingPaymentWithdrawal, {
        input: { incomingPaymentId: first.id, idempotencyKey: uuid(), timeoutSeconds: 0 },
      }),
    ).toEqual({ createIncomingPaymentWithdrawal: { success: true, __typename: 'LiquidityMutationResponse' } });
    expect(
      await refused('CreateIncomingPaymentWithdrawal', doc.createIncomingPaymentWithdrawal, {
        input: { incomingPaymentId: uuid(), idempotencyKey: uuid(), timeoutSeconds: 0 },
      }),
    ).toMatchObject({ code: 'NOT_FOUND' });
  });

  it('cancels an outgoing payment, lists them by wallet address and state, and withdraws a finished one', async () => {
    const assetId = await newAsset();
    await deposit(assetId, '100000');
    const [from, to] = [await wallet(assetId, 'ops-from'), await wallet(assetId, 'ops-to')];
    const pay = async () => {
      const receiver = (
        await data('CreateIncomingPayment', doc.createIncomingPayment, {
          input: { walletAddressId: to.id, incomingAmount: { value: '300', assetCode: `OPS${codes - 1}`, assetScale: 2 } },
        })
      ).createIncomingPayment.payment.url;
      const quoteId = (await data('CreateQuote', doc.createQuote, { input: { walletAddressId: from.id, receiver } })).createQuote.quote.id;
      return (await data('CreateOutgoingPayment', doc.createOutgoingPayment, { input: { walletAddressId: from.id, quoteId } })).createOutgoingPayment.payment;
    };
    const [dropped, sent] = [await pay(), await pay()];
    expect((await data('CancelOutgoingPayment', doc.cancelOutgoingPayment, { input: { id: dropped.id } })).cancelOutgoingPayment.payment).toEqual({
      id: dropped.id,
      state: 'CANCELLED',
      __typename: 'OutgoingPayment',
    });
    expect(await refused('CancelOutgoingPayment', doc.cancelOutgoingPayment, { input: { id: sent.id, reason: 'changed my mind' } })).toMatchObject({
      problem: 'not_offered',
    });
    await data('DepositOutgoingPaymentLiquidity', doc.depositOutgoingPaymentLiquidity, { input: { outgoingPaymentId: sent.id, idempotencyKey: uuid() } });
    await runPaymentWorker(mem);

    const byState = async (state: string) =>
      (
        await data('GetOutgoingPayments', doc.getOutgoingPayments, { first: 10, filter: { walletAddressId: { in: [from.id] }, state: { in: [state] } } })
      ).outgoingPayments.edges.map((e: any) => e.node);
    expect(await byState('CANCELLED')).toEqual([expect.objectContaining({ id: dropped.id, walletAddressId: from.id, state: 'CANCELLED' })]);
    expect(await byState('COMPLETED')).toEqual([expect.objectContaining({ id: sent.id, sentAmount: expect.objectContaining({ value: '300' }) })]);
    expect(await refused('GetOutgoingPayments', doc.getOutgoingPayments, { filter: { state: { in: ['COMPLETED', 'FAILED'] } } })).toMatchObject({
      problem: 'not_offered',
    });
    expect(
      await data('CreateOutgoingPaymentWithdrawal', doc.createOutgoingPaymentWithdrawal, {
        input: { outgoingPaymentId: sent.id, idempotencyKey: uuid(), timeoutSeconds: 0 },
      }),
    ).toEqual({ createOutgoingPaymentWithdrawal: { success: true, __typename: 'LiquidityMutationResponse' } });
  });
});

describe('Rafiki tenants, whoami, grants and webhook events', () => {
  it('lets the operator make, read, list, change and delete a tenant, which is told who it is and refused the operator’s operations', async () => {
    expect(await data('Whoami', doc.whoami)).toEqual({ whoami: { id: 'operator', isOperator: true, __typename: 'WhoamiResponse' } });
    const input = {
      publicName: 'Acme',
      idpConsentUrl: 'https://acme.example/consent',
      settings: [
        { key: 'WALLET_ADDRESS_URL', value: `${mem.node.urls.walletAddresses}/acme` },
        { key: 'WEBHOOK_URL', value: 'https://acme.example/hooks' },
      ],
    };
    const { tenant } = (await data('CreateTenant', doc.createTenant, { input })).createTenant;
    expect(tenant).toMatchObject({ publicName: 'Acme', apiSecret: expect.any(String), idpSecret: expect.any(String), idpConsentUrl: input.idpConsentUrl });
    expect(tenant.settings).toEqual(expect.arrayContaining(input.settings.map((s) => ({ ...s, __typename: 'TenantSetting' }))));
    expect((await data('GetTenant', doc.getTenant, { id: tenant.id })).tenant).toMatchObject({ id: tenant.id, publicName: 'Acme', apiSecret: null });
    expect((await data('GetTenants', doc.getTenants, { first: 100 })).tenants.edges.map((e: any) => e.node.id)).toContain(tenant.id);
    expect((await data('UpdateTenant', doc.updateTenant, { input: { id: tenant.id, publicName: 'Acme Bank' } })).updateTenant.tenant).toEqual({
      id: tenant.id,
      publicName: 'Acme Bank',
      __typename: 'Tenant',
    });
    expect(await refused('CreateTenant', doc.createTenant, { input: { ...input, apiSecret: 'chosen' } })).toMatchObject({
      message: expect.stringMatching(/^createTenant with apiSecret is not offered by this service/),
      problem: 'not_offered',
    });
    expect(await refused('UpdateTenant', doc.updateTenant, { input: { id: tenant.id, apiSecret: 'chosen' } })).toMatchObject({ problem: 'not_offered' });

    const acme = mem.tenant((await tenantById(mem.node, tenant.id))!);
    expect(await data('Whoami', doc.whoami, {}, acme)).toEqual({ whoami: { id: tenant.id, isOperator: false, __typename: 'WhoamiResponse' } });
    for (const [name, query, variables] of [
      ['GetTenants', doc.getTenants, {}],
      ['GetTenant', doc.getTenant, { id: tenant.id }],
      ['DeleteTenant', doc.deleteTenant, { id: tenant.id }],
    ] as const) {
      expect(await refused(name, query, variables, acme)).toMatchObject({ code: 'FORBIDDEN', problem: 'operator_only' });
    }
    expect(await data('DeleteTenant', doc.deleteTenant, { id: tenant.id })).toEqual({
      deleteTenant: { success: true, __typename: 'DeleteTenantMutationResponse' },
    });
    expect(await refused('GetTenant', doc.getTenant, { id: uuid() })).toMatchObject({ code: 'NOT_FOUND' });
  });

  it('lists grants and webhook events as connections, and answers an unknown grant or event as not found', async () => {
    expect(
      (await data('GetGrants', doc.getGrants, { first: 5, filter: { state: { in: ['FINALIZED'] }, finalizationReason: { in: ['REVOKED'] } } })).grants,
    ).toMatchObject({
      edges: [],
      pageInfo: { hasNextPage: false },
    });
    expect(await refused('GetGrant', doc.getGrant, { id: uuid() })).toMatchObject({ code: 'NOT_FOUND', problem: 'grant_not_found' });
    expect(await refused('RevokeGrant', doc.revokeGrant, { input: { grantId: uuid() } })).toMatchObject({ code: 'NOT_FOUND', problem: 'grant_not_found' });
    expect((await data('GetWebhookEvents', doc.getWebhookEvents, { first: 5, filter: { type: { in: ['payment.completed'] } } })).webhookEvents).toMatchObject({
      pageInfo: { hasPreviousPage: false },
    });
    for (const [name, query] of [
      ['DepositEventLiquidity', doc.depositEventLiquidity],
      ['WithdrawEventLiquidity', doc.withdrawEventLiquidity],
    ] as const) {
      expect(await refused(name, query, { input: { eventId: uuid(), idempotencyKey: uuid() } })).toMatchObject({ code: 'NOT_FOUND' });
    }
  });
});

describe('Rafiki idempotencyKey, as the REST API’s Idempotency-Key', () => {
  it('replays the same key and input, refuses the same key with another input, and keeps tenants’ keys apart', async () => {
    const key = uuid();
    const input = { code: 'IDEM', scale: 2, idempotencyKey: key };
    const made = (await data('CreateAsset', doc.createAsset, { input })).createAsset.asset;
    // Without the key, the same input is a second creation, refused as a duplicate; with it, the stored answer.
    expect(await refused('CreateAsset', doc.createAsset, { input: { ...input, idempotencyKey: undefined } })).toMatchObject({ code: 'DUPLICATE' });
    expect((await data('CreateAsset', doc.createAsset, { input })).createAsset.asset).toEqual(made);
    expect(await refused('CreateAsset', doc.createAsset, { input: { ...input, scale: 3 } })).toEqual({
      message: expect.stringContaining('Idempotency-Key'),
      code: 'BAD_USER_INPUT',
      problem: 'idempotency_key_reused',
    });
    // A deposit replayed moves nothing more: the answer is the stored one.
    const deposit = { assetId: made.id, amount: '700', id: uuid(), idempotencyKey: uuid() };
    await data('DepositAssetLiquidity', doc.depositAssetLiquidity, { input: deposit });
    await data('DepositAssetLiquidity', doc.depositAssetLiquidity, { input: deposit });
    expect(await liquidityOf(made.id)).toBe('700');

    const { tenant } = (
      await data('CreateTenant', doc.createTenant, {
        input: { publicName: 'Keys', settings: [{ key: 'WALLET_ADDRESS_URL', value: `${mem.node.urls.walletAddresses}/keys` }] },
      })
    ).createTenant;
    const keys = mem.tenant((await tenantById(mem.node, tenant.id))!);
    const theirs = (await data('CreateAsset', doc.createAsset, { input }, keys)).createAsset.asset;
    expect(theirs.id).not.toBe(made.id);
    expect((await data('CreateAsset', doc.createAsset, { input }, keys)).createAsset.asset).toEqual(theirs);
  });
});

describe('Rafiki operations this service does not offer', () => {
  const id = '00000000-0000-4000-8000-000000000001';
  it.each([
    ['DeleteAsset', 'deleteAsset', { input: { id } }],
    ['GetPayments', 'getPayments', { first: 5 }],
    ['UpdateIncomingPayment', 'updateIncomingPayment', { input: { id, metadata: {} } }],
    ['CreateWalletAddressWithdrawal', 'createWalletAddressWithdrawal', { input: { walletAddressId: id, id, idempotencyKey: id, timeoutSeconds: 0 } }],
    ['TriggerWalletAddressEvents', 'triggerWalletAddressEvents', { input: { limit: 5 } }],
    ['ConfirmPartialIncomingPayment', 'confirmPartialIncomingPayment', { input: { incomingPaymentId: id, partialIncomingPaymentId: id } }],
    ['RejectPartialIncomingPayment', 'rejectPartialIncomingPayment', { input: { incomingPaymentId: id, partialIncomingPaymentId: id } }],
    ['CreateTenantSettings', 'createTenantSettings', { input: { settings: [{ key: 'WEBHOOK_URL', value: 'https://x.example' }] } }],
  ] as const)('%s answers a GraphQL error naming it and why', async (operationName, name, variables) => {
    const field = name === 'getPayments' ? 'payments' : name;
    expect(await refused(operationName, doc[name], variables)).toEqual({
      message: expect.stringMatching(new RegExp(`^${field} is not offered by this service: .+`)),
      code: 'BAD_USER_INPUT',
      problem: 'not_offered',
    });
  });
});

import { describe, expect, it } from 'vitest';
import { type GraphqlRequest, LIMITS, runGraphql } from '../../../lib/api/graphql';
import { pushRate } from '../../../lib/rates';
import { inMemory, runPaymentWorker } from '../../harness/in-memory';

// Rafiki's Admin API (lib/api/graphql) in memory: each operation of our schema sent as Rafiki's
// clients send it (its integration suite's documents and its mock account servicing entity's: named
// operations, variables, `__typename` in every selection, UInt64 as numbers in the seed and strings
// elsewhere), answered from the same domain operations as the REST routes. The signature, the
// tenant-id header and HTTP are test/integration/graphql.test.ts's.
const mem = inMemory({}, { fresh: 'file' });

async function gql(operationName: string, query: string, variables: Record<string, unknown> = {}, introspection = false) {
  const request: GraphqlRequest = { operationName, query, variables };
  return runGraphql(mem.node, request, { introspection });
}
async function data(operationName: string, query: string, variables: Record<string, unknown> = {}) {
  const { refused, result } = await gql(operationName, query, variables);
  expect(result.errors, JSON.stringify(result.errors)).toBeUndefined();
  expect(refused).toBe(false);
  return result.data as Record<string, any>;
}

const amount = '{ value assetCode assetScale __typename }';
const docs = {
  assetByCodeAndScale: `query GetAssetByCodeAndScale($code: String!, $scale: UInt8!) {
    assetByCodeAndScale(code: $code, scale: $scale) { id code scale liquidityThreshold __typename } }`,
  asset: 'query GetAsset($id: String!) { asset(id: $id) { id code scale liquidity sendingFee { fixed basisPoints type __typename } __typename } }',
  createAsset: `mutation CreateAsset($input: CreateAssetInput!) {
    createAsset(input: $input) { asset { id code scale liquidityThreshold __typename } __typename } }`,
  depositAssetLiquidity: `mutation DepositAssetLiquidity($input: DepositAssetLiquidityInput!) {
    depositAssetLiquidity(input: $input) { success __typename } }`,
  setFee: `mutation SetFee($input: SetFeeInput!) {
    setFee(input: $input) { fee { id assetId type fixed basisPoints __typename } __typename } }`,
  peerByAddressAndAsset: `query getPeerByAddressAndAsset($staticIlpAddress: String!, $assetId: String!) {
    peerByAddressAndAsset(staticIlpAddress: $staticIlpAddress, assetId: $assetId) {
      id name staticIlpAddress asset { id scale code withdrawalThreshold __typename } __typename } }`,
  peer: 'query GetPeer($id: String!) { peer(id: $id) { id liquidity routes http { outgoing { endpoint authToken __typename } __typename } __typename } }',
  updatePeer: 'mutation UpdatePeer($input: UpdatePeerInput!) { updatePeer(input: $input) { peer { id routes __typename } __typename } }',
  createPeer: 'mutation CreatePeer($input: CreatePeerInput!) { createPeer(input: $input) { peer { id __typename } __typename } }',
  depositPeerLiquidity: `mutation DepositPeerLiquidity($input: DepositPeerLiquidityInput!) {
    depositPeerLiquidity(input: $input) { success __typename } }`,
  walletAddressByUrl: `query getWalletAddressByUrl($url: String!) {
    walletAddressByUrl(url: $url) { id liquidity address publicName asset { id scale code withdrawalThreshold __typename } __typename } }`,
  walletAddress: 'query GetWalletAddress($id: String!) { walletAddress(id: $id) { id address status __typename } }',
  createWalletAddress: `mutation CreateWalletAddress($input: CreateWalletAddressInput!) {
    createWalletAddress(input: $input) { walletAddress { id address publicName __typename } __typename } }`,
  createWalletAddressKey: `mutation CreateWalletAddressKey($input: CreateWalletAddressKeyInput!) {
    createWalletAddressKey(input: $input) { walletAddressKey { id revoked jwk { kid __typename } __typename } __typename } }`,
  createReceiver: `mutation CreateReceiver($input: CreateReceiverInput!) {
    createReceiver(input: $input) { receiver { completed createdAt expiresAt metadata id incomingAmount ${amount}
      walletAddressUrl receivedAmount ${amount} __typename } __typename } }`,
  createQuote: `mutation CreateQuote($input: CreateQuoteInput!) {
    createQuote(input: $input) { quote { createdAt expiresAt id walletAddressId receiveAmount ${amount} receiver debitAmount ${amount} __typename } __typename } }`,
  quote: 'query GetQuote($id: String!) { quote(id: $id) { id tenantId __typename } }',
  createOutgoingPayment: `mutation CreateOutgoingPayment($input: CreateOutgoingPaymentInput!) {
    createOutgoingPayment(input: $input) { payment { createdAt error metadata id walletAddressId receiveAmount ${amount} receiver
      debitAmount ${amount} sentAmount ${amount} state stateAttempts __typename } __typename } }`,
  createOutgoingPaymentFromIncomingPayment: `mutation CreateOutgoingPaymentFromIncomingPayment($input: CreateOutgoingPaymentFromIncomingPaymentInput!) {
    createOutgoingPaymentFromIncomingPayment(input: $input) { payment { id state debitAmount ${amount} __typename } __typename } }`,
  depositOutgoingPaymentLiquidity: `mutation DepositOutgoingPaymentLiquidity($input: DepositOutgoingPaymentLiquidityInput!) {
    depositOutgoingPaymentLiquidity(input: $input) { success __typename } }`,
  outgoingPayment: `query GetOutgoingPayment($id: String!) {
    outgoingPayment(id: $id) { createdAt error metadata id walletAddressId quote { id __typename } receiveAmount ${amount} receiver
      debitAmount ${amount} sentAmount ${amount} state stateAttempts __typename } }`,
  incomingPayment: `query GetIncomingPayment($id: String!) {
    incomingPayment(id: $id) { id walletAddressId state expiresAt incomingAmount ${amount} receivedAmount ${amount} metadata createdAt __typename } }`,
};

const uuid = () => crypto.randomUUID();
const jwk = (kid: string) => ({ kid, x: 'ubqoInifJ5sssIPPnQR1gVPfmoZnJtPhTkyMXNoJF_8', alg: 'EdDSA', kty: 'OKP', crv: 'Ed25519' });

describe('Rafiki Admin API, as its integration suite seeds a node', () => {
  it('finds nothing as null, then creates, funds and prices assets, a peer and wallet addresses with keys', async () => {
    expect(await data('GetAssetByCodeAndScale', docs.assetByCodeAndScale, { code: 'USD', scale: 2 })).toEqual({ assetByCodeAndScale: null });
    const { createAsset } = await data('CreateAsset', docs.createAsset, { input: { code: 'USD', scale: 2, liquidityThreshold: 10000000 } });
    expect(createAsset.asset).toEqual({ id: expect.any(String), code: 'USD', scale: 2, liquidityThreshold: '10000000', __typename: 'Asset' });
    const usd = createAsset.asset.id;
    const deposit = { assetId: usd, amount: 100000000, id: uuid(), idempotencyKey: uuid() };
    expect(await data('DepositAssetLiquidity', docs.depositAssetLiquidity, { input: deposit })).toEqual({
      depositAssetLiquidity: { success: true, __typename: 'LiquidityMutationResponse' },
    });
    // The same transfer id again moves nothing more.
    await data('DepositAssetLiquidity', docs.depositAssetLiquidity, { input: { ...deposit, idempotencyKey: uuid() } });
    const fee = await data('SetFee', docs.setFee, { input: { assetId: usd, type: 'SENDING', fee: { fixed: '0', basisPoints: 0 } } });
    expect(fee.setFee.fee).toMatchObject({ assetId: usd, type: 'SENDING', fixed: '0', basisPoints: 0 });
    expect((await data('GetAsset', docs.asset, { id: usd })).asset).toMatchObject({
      liquidity: '100000000',
      sendingFee: { fixed: '0', basisPoints: 0, type: 'SENDING' },
    });
    expect(await data('GetAssetByCodeAndScale', docs.assetByCodeAndScale, { code: 'USD', scale: 2 })).toMatchObject({ assetByCodeAndScale: { id: usd } });
    expect(await data('GetAssetByCodeAndScale', docs.assetByCodeAndScale, { code: 'USD', scale: 3 })).toEqual({ assetByCodeAndScale: null });

    const lookup = { staticIlpAddress: 'test.happy-life-bank-test', assetId: usd };
    expect(await data('getPeerByAddressAndAsset', docs.peerByAddressAndAsset, lookup)).toEqual({ peerByAddressAndAsset: null });
    const peerInput = {
      staticIlpAddress: lookup.staticIlpAddress,
      http: {
        incoming: { authTokens: ['test-USD-happy-life-bank-cloud-nine-wallet'] },
        outgoing: { endpoint: 'http://happy-life-bank-test-backend:4102/ilp', authToken: 'test-USD-cloud-nine-wallet-happy-life-bank' },
      },
      assetId: usd,
      liquidityThreshold: 1000000,
      routes: [],
    };
    const { createPeer } = await data('CreatePeer', docs.createPeer, { input: peerInput });
    await data('DepositPeerLiquidity', docs.depositPeerLiquidity, {
      input: { peerId: createPeer.peer.id, amount: '10000000', id: uuid(), idempotencyKey: uuid() },
    });
    expect((await data('getPeerByAddressAndAsset', docs.peerByAddressAndAsset, lookup)).peerByAddressAndAsset).toMatchObject({
      id: createPeer.peer.id,
      name: null,
      asset: { id: usd, code: 'USD', scale: 2, withdrawalThreshold: null },
    });
    expect((await data('GetPeer', docs.peer, { id: createPeer.peer.id })).peer).toMatchObject({
      liquidity: '10000000',
      routes: [],
      http: { outgoing: peerInput.http.outgoing },
    });
    // Routes (prefixes reached through the peer) are replaced whole, repeats dropped.
    await data('UpdatePeer', docs.updatePeer, { input: { id: createPeer.peer.id, routes: ['test.node-c', 'test.node-c', 'test'] } });
    expect((await data('GetPeer', docs.peer, { id: createPeer.peer.id })).peer).toMatchObject({ routes: ['test.node-c', 'test'] });

    const url = `${mem.node.urls.walletAddresses}/accounts/gfranklin`;
    expect(await data('getWalletAddressByUrl', docs.walletAddressByUrl, { url })).toEqual({ walletAddressByUrl: null });
    const { createWalletAddress } = await data('CreateWalletAddress', docs.createWalletAddress, {
      input: { assetId: usd, address: url, publicName: 'Grace Franklin', additionalProperties: [] },
    });
    expect(createWalletAddress.walletAddress).toEqual({ id: expect.any(String), address: url, publicName: 'Grace Franklin', __typename: 'WalletAddress' });
    const walletAddressId = createWalletAddress.walletAddress.id;
    const key = await data('CreateWalletAddressKey', docs.createWalletAddressKey, { input: { walletAddressId, jwk: jwk(`keyid-${uuid()}`) } });
    expect(key.createWalletAddressKey.walletAddressKey).toMatchObject({ id: expect.any(String), revoked: false });
    expect((await data('getWalletAddressByUrl', docs.walletAddressByUrl, { url })).walletAddressByUrl).toMatchObject({
      id: walletAddressId,
      liquidity: null,
      asset: { id: usd, code: 'USD' },
    });
    expect((await data('GetWalletAddress', docs.walletAddress, { id: walletAddressId })).walletAddress).toMatchObject({ status: 'ACTIVE' });
  });
});

describe('Rafiki Admin API, as its local payment cases pay', () => {
  it('pays a receiver through a quote, funds it as the mock ASE does, and reads both sides in Rafiki’s states', async () => {
    const usd = (await data('CreateAsset', docs.createAsset, { input: { code: 'LCL', scale: 2 } })).createAsset.asset.id;
    await data('DepositAssetLiquidity', docs.depositAssetLiquidity, { input: { assetId: usd, amount: '100000', id: uuid(), idempotencyKey: uuid() } });
    const wallet = async (name: string) =>
      (await data('CreateWalletAddress', docs.createWalletAddress, { input: { assetId: usd, address: `${mem.node.urls.walletAddresses}/${name}` } }))
        .createWalletAddress.walletAddress;
    const sender = await wallet('sender');
    const receiving = await wallet('receiver');

    const { createReceiver } = await data('CreateReceiver', docs.createReceiver, {
      input: {
        walletAddressUrl: receiving.address,
        incomingAmount: { value: '500', assetCode: 'LCL', assetScale: 2 },
        metadata: { description: 'For lunch!' },
      },
    });
    expect(createReceiver.receiver).toMatchObject({
      completed: false,
      walletAddressUrl: receiving.address,
      incomingAmount: { value: '500', assetCode: 'LCL', assetScale: 2 },
      receivedAmount: { value: '0' },
      metadata: { description: 'For lunch!' },
    });
    const { createQuote } = await data('CreateQuote', docs.createQuote, { input: { walletAddressId: sender.id, receiver: createReceiver.receiver.id } });
    expect(createQuote.quote).toMatchObject({ walletAddressId: sender.id, receiveAmount: { value: '500' }, debitAmount: { value: '500' } });
    expect((await data('GetQuote', docs.quote, { id: createQuote.quote.id })).quote).toEqual({
      id: createQuote.quote.id,
      tenantId: 'operator',
      __typename: 'Quote',
    });
    const { createOutgoingPayment } = await data('CreateOutgoingPayment', docs.createOutgoingPayment, {
      input: { walletAddressId: sender.id, quoteId: createQuote.quote.id },
    });
    expect(createOutgoingPayment.payment).toMatchObject({ state: 'FUNDING', stateAttempts: 0, error: null, sentAmount: { value: '0' } });
    const paymentId = createOutgoingPayment.payment.id;
    expect(
      await data('DepositOutgoingPaymentLiquidity', docs.depositOutgoingPaymentLiquidity, { input: { outgoingPaymentId: paymentId, idempotencyKey: uuid() } }),
    ).toEqual({ depositOutgoingPaymentLiquidity: { success: true, __typename: 'LiquidityMutationResponse' } });
    await runPaymentWorker(mem);

    expect((await data('GetOutgoingPayment', docs.outgoingPayment, { id: paymentId })).outgoingPayment).toMatchObject({
      state: 'COMPLETED',
      quote: { id: createQuote.quote.id },
      receiveAmount: { value: '500' },
      sentAmount: { value: '500' },
    });
    const incomingId = createReceiver.receiver.id.split('/').pop();
    expect((await data('GetIncomingPayment', docs.incomingPayment, { id: incomingId })).incomingPayment).toMatchObject({
      id: incomingId,
      walletAddressId: receiving.id,
      state: 'COMPLETED',
      receivedAmount: { value: '500', assetCode: 'LCL', assetScale: 2 },
    });

    // Two payments of a fixed debit into one receiver without an amount, which stays PROCESSING.
    const open = (await data('CreateReceiver', docs.createReceiver, { input: { walletAddressUrl: receiving.address } })).createReceiver.receiver;
    for (let i = 0; i < 2; i++) {
      const { createOutgoingPaymentFromIncomingPayment: made } = await data(
        'CreateOutgoingPaymentFromIncomingPayment',
        docs.createOutgoingPaymentFromIncomingPayment,
        {
          input: { walletAddressId: sender.id, incomingPayment: open.id, debitAmount: { value: '500', assetCode: 'LCL', assetScale: 2 } },
        },
      );
      expect(made.payment).toMatchObject({ state: 'FUNDING', debitAmount: { value: '500' } });
      await data('DepositOutgoingPaymentLiquidity', docs.depositOutgoingPaymentLiquidity, {
        input: { outgoingPaymentId: made.payment.id, idempotencyKey: uuid() },
      });
      await runPaymentWorker(mem);
    }
    expect((await data('GetIncomingPayment', docs.incomingPayment, { id: open.id.split('/').pop() })).incomingPayment).toMatchObject({
      state: 'PROCESSING',
      receivedAmount: { value: '1000' },
    });
  });

  it('prices across currencies at the node’s rate', async () => {
    await pushRate(mem.node, { sourceAssetCode: 'XUS', destinationAssetCode: 'XEU', rate: 0.91, rateTtlSecs: 86400 } as never);
    const asset = async (code: string) => (await data('CreateAsset', docs.createAsset, { input: { code, scale: 2 } })).createAsset.asset.id;
    const [xus, xeu] = [await asset('XUS'), await asset('XEU')];
    const wallet = async (name: string, assetId: string) =>
      (await data('CreateWalletAddress', docs.createWalletAddress, { input: { assetId, address: `${mem.node.urls.walletAddresses}/${name}` } }))
        .createWalletAddress.walletAddress;
    const [from, to] = [await wallet('xus-sender', xus), await wallet('xeu-receiver', xeu)];
    const receiver = (
      await data('CreateReceiver', docs.createReceiver, {
        input: { walletAddressUrl: to.address, incomingAmount: { value: '500', assetCode: 'XEU', assetScale: 2 } },
      })
    ).createReceiver.receiver;
    const { createQuote } = await data('CreateQuote', docs.createQuote, { input: { walletAddressId: from.id, receiver: receiver.id } });
    expect(createQuote.quote).toMatchObject({ receiveAmount: { value: '500', assetCode: 'XEU' }, debitAmount: { value: '550', assetCode: 'XUS' } });
  });
});

describe('Rafiki Admin API refusals', () => {
  const errorOf = async (operationName: string, query: string, variables: Record<string, unknown>) => {
    const { result } = await gql(operationName, query, variables);
    return result.errors?.map((e) => ({ message: e.message, code: e.extensions?.code, problem: e.extensions?.problem }));
  };

  it('answers a domain refusal with Rafiki’s code beside this service’s, and changes nothing', async () => {
    await data('CreateAsset', docs.createAsset, { input: { code: 'DUP', scale: 2 } });
    expect(await errorOf('CreateAsset', docs.createAsset, { input: { code: 'DUP', scale: 2 } })).toEqual([
      { message: 'An asset with code DUP already exists', code: 'DUPLICATE', problem: 'asset_exists' },
    ]);
    expect(await errorOf('CreateAsset', docs.createAsset, { input: { code: 'lower', scale: 2 } })).toEqual([
      { message: expect.stringContaining('input.code must be 3 to 12 upper-case letters or digits'), code: 'BAD_USER_INPUT', problem: 'invalid_request' },
    ]);
    expect(
      await errorOf('DepositOutgoingPaymentLiquidity', docs.depositOutgoingPaymentLiquidity, { input: { outgoingPaymentId: uuid(), idempotencyKey: uuid() } }),
    ).toEqual([{ message: expect.stringMatching(/^No payment with id /), code: 'NOT_FOUND', problem: 'payment_not_found' }]);
    expect(
      await errorOf('CreatePeer', docs.createPeer, {
        input: {
          staticIlpAddress: 'test.x',
          assetId: (await data('GetAssetByCodeAndScale', docs.assetByCodeAndScale, { code: 'DUP', scale: 2 })).assetByCodeAndScale.id,
          http: { incoming: { authTokens: ['b'.repeat(20)] }, outgoing: { endpoint: 'http://x.example/ilp', authToken: 'a'.repeat(20) } },
          routes: ['test.y', 'nowhere'],
        },
      }),
    ).toEqual([{ message: expect.stringContaining('input.routes.1 must be an ILP address prefix'), code: 'BAD_USER_INPUT', problem: 'invalid_request' }]);
    expect(await data('GetAssetByCodeAndScale', docs.assetByCodeAndScale, { code: 'LOWER', scale: 2 })).toEqual({ assetByCodeAndScale: null });
  });

  it('refuses, before running anything, what breaks the schema, a scalar or a limit', async () => {
    const refused = async (query: string, variables: Record<string, unknown> = {}, introspection = false) => {
      const { refused, result } = await gql('Q', query, variables, introspection);
      expect(refused).toBe(true);
      return result.errors!.map((e) => e.message).join('; ');
    };
    expect(await refused('query Q { nope }')).toContain('Cannot query field "nope" on type "Query"');
    expect(await refused('query Q($s: UInt8!) { assetByCodeAndScale(code: "USD", scale: $s) { id } }', { s: 256 })).toContain(
      'UInt8 must be an integer from 0 to 255',
    );
    expect(
      await refused(docs.depositAssetLiquidity.replace('DepositAssetLiquidity', 'Q'), { input: { assetId: 'x', amount: -1, id: 'x', idempotencyKey: 'x' } }),
    ).toContain('UInt64 must be an integer');
    const deep = `query Q { peer(id: "x") { asset { sendingFee { id } } ${'http { outgoing { endpoint } } '.repeat(1)} } }`;
    expect((await gql('Q', deep)).refused).toBe(false); // within the depth
    // No field of the schema nests this deep yet; the limit is checked beside the schema's rules.
    const tooDeep = `query Q { peer(id: "x") { asset { a { b { c { d { e { f { g { h { i } } } } } } } } } } }`;
    expect(await refused(tooDeep)).toMatch(/Query depth limit of 10 exceeded/);
    const aliases = Array.from({ length: LIMITS.aliases + 1 }, (_, i) => `a${i}: asset(id: "x") { id }`).join(' ');
    expect(await refused(`query Q { ${aliases} }`)).toMatch(/aliases/i);
    expect(await refused('query Q { __schema { types { name } } }')).toMatch(/introspection/i);
    expect((await gql('Q', 'query Q { __schema { queryType { name } } }', {}, true)).refused).toBe(false);
  });
});

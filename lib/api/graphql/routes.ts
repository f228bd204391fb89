// The REST routes whose domain operations /graphql's resolvers call (./resolvers.ts): its function's
// role is the union of theirs (infra/serverless/admin-routes.cjs), so that it may do what they may
// and nothing more. A resolver that calls another route's operation adds that route here; the package
// test of the functions' roles fails on anything its bundle calls that this leaves out.
export const graphqlRouteIds = [
  'getAsset',
  'listAssets',
  'createAsset',
  'depositAssetLiquidity',
  'updateAsset',
  'getPeer',
  'listPeers',
  'createPeer',
  'depositPeerLiquidity',
  'getWalletAddress',
  'findWalletAddress',
  'createWalletAddress',
  'createWalletAddressKey',
  'getQuote',
  'createQuote',
  'getPayment',
  'createPayment',
  'fundPayment',
  'getPaymentIntent',
  'createReceiver',
  'getReceiver',
  'completeReceiver',
] as const;

// Rafiki's Admin API, as this service answers it at POST /graphql: the operations, types, fields,
// enums, argument shapes and scalars of Rafiki's backend schema (interledger/rafiki,
// packages/backend/src/graphql/schema.graphql), so that an FSP's clients and generated types written
// for Rafiki work unchanged. Written here; only what this service does is in it (each field is
// resolved by ./resolvers.ts through the domain operations that serve the REST routes), and
// docs/rafiki-compatibility.md lists what is left out and why.
export const typeDefs = /* GraphQL */ `
  "An integer from 0 to 255."
  scalar UInt8
  "An integer from 0 to 2^64 - 1, sent as a string (a number is accepted in input)."
  scalar UInt64
  "A JSON object."
  scalar JSONObject

  type Query {
    asset(id: String!): Asset
    assetByCodeAndScale(code: String!, scale: UInt8!): Asset
    peer(id: String!): Peer
    peerByAddressAndAsset(staticIlpAddress: String!, assetId: String!): Peer
    walletAddress(id: String!): WalletAddress
    walletAddressByUrl(url: String!): WalletAddress
    quote(id: String!): Quote
    outgoingPayment(id: String!): OutgoingPayment
    incomingPayment(id: String!): IncomingPayment
    receiver(id: String!): Receiver
  }

  type Mutation {
    createAsset(input: CreateAssetInput!): AssetMutationResponse!
    depositAssetLiquidity(input: DepositAssetLiquidityInput!): LiquidityMutationResponse
    setFee(input: SetFeeInput!): SetFeeResponse!
    createPeer(input: CreatePeerInput!): CreatePeerMutationResponse!
    depositPeerLiquidity(input: DepositPeerLiquidityInput!): LiquidityMutationResponse
    createWalletAddress(input: CreateWalletAddressInput!): CreateWalletAddressMutationResponse!
    createWalletAddressKey(input: CreateWalletAddressKeyInput!): CreateWalletAddressKeyMutationResponse
    createReceiver(input: CreateReceiverInput!): CreateReceiverResponse!
    completeReceiver(input: CompleteReceiverInput!): CompleteReceiverResponse!
    createQuote(input: CreateQuoteInput!): QuoteResponse!
    createOutgoingPayment(input: CreateOutgoingPaymentInput!): OutgoingPaymentResponse!
    createOutgoingPaymentFromIncomingPayment(input: CreateOutgoingPaymentFromIncomingPaymentInput!): OutgoingPaymentResponse!
    depositOutgoingPaymentLiquidity(input: DepositOutgoingPaymentLiquidityInput!): LiquidityMutationResponse
  }

  interface Model {
    id: ID!
    createdAt: String!
  }

  interface BasePayment {
    id: ID!
    walletAddressId: ID!
    metadata: JSONObject
    createdAt: String!
    client: String
  }

  type Amount {
    value: UInt64!
    assetCode: String!
    assetScale: UInt8!
  }

  input AmountInput {
    value: UInt64!
    assetCode: String!
    assetScale: UInt8!
  }

  type Asset implements Model {
    id: ID!
    code: String!
    scale: UInt8!
    liquidity: UInt64
    withdrawalThreshold: UInt64
    liquidityThreshold: UInt64
    sendingFee: Fee
    receivingFee: Fee
    createdAt: String!
  }

  enum FeeType {
    SENDING
    RECEIVING
  }

  type Fee implements Model {
    id: ID!
    assetId: ID!
    type: FeeType!
    fixed: UInt64!
    basisPoints: Int!
    createdAt: String!
  }

  input CreateAssetInput {
    code: String!
    scale: UInt8!
    withdrawalThreshold: UInt64
    liquidityThreshold: UInt64
    idempotencyKey: String
    tenantId: ID
  }

  type AssetMutationResponse {
    asset: Asset
  }

  input DepositAssetLiquidityInput {
    assetId: String!
    amount: UInt64!
    id: String!
    idempotencyKey: String!
  }

  type LiquidityMutationResponse {
    success: Boolean!
  }

  input FeeDetails {
    fixed: UInt64!
    basisPoints: Int!
  }

  input SetFeeInput {
    assetId: ID!
    type: FeeType!
    fee: FeeDetails!
    idempotencyKey: String
  }

  type SetFeeResponse {
    fee: Fee
  }

  type Peer implements Model {
    id: ID!
    maxPacketAmount: UInt64
    http: Http!
    asset: Asset!
    staticIlpAddress: String!
    name: String
    liquidityThreshold: UInt64
    liquidity: UInt64
    createdAt: String!
    routes: [String!]!
  }

  type Http {
    outgoing: HttpOutgoing!
  }

  type HttpOutgoing {
    authToken: String!
    endpoint: String!
  }

  input HttpIncomingInput {
    authTokens: [String!]!
  }

  input HttpOutgoingInput {
    authToken: String!
    endpoint: String!
  }

  input HttpInput {
    incoming: HttpIncomingInput
    outgoing: HttpOutgoingInput!
  }

  input CreatePeerInput {
    maxPacketAmount: UInt64
    http: HttpInput!
    assetId: String!
    staticIlpAddress: String!
    name: String
    liquidityThreshold: UInt64
    initialLiquidity: UInt64
    idempotencyKey: String
    routes: [String!]
  }

  type CreatePeerMutationResponse {
    peer: Peer
  }

  input DepositPeerLiquidityInput {
    peerId: String!
    amount: UInt64!
    id: String!
    idempotencyKey: String!
  }

  enum WalletAddressStatus {
    INACTIVE
    ACTIVE
  }

  type AdditionalProperty {
    key: String!
    value: String!
    visibleInOpenPayments: Boolean!
  }

  type WalletAddress implements Model {
    id: ID!
    asset: Asset!
    liquidity: UInt64
    address: String!
    publicName: String
    createdAt: String!
    status: WalletAddressStatus!
    additionalProperties: [AdditionalProperty]
  }

  input AdditionalPropertyInput {
    key: String!
    value: String!
    visibleInOpenPayments: Boolean!
  }

  input CreateWalletAddressInput {
    tenantId: ID
    assetId: String!
    address: String!
    publicName: String
    idempotencyKey: String
    additionalProperties: [AdditionalPropertyInput!]
  }

  type CreateWalletAddressMutationResponse {
    walletAddress: WalletAddress
  }

  enum Alg {
    EdDSA
  }

  enum Kty {
    OKP
  }

  enum Crv {
    Ed25519
  }

  type Jwk {
    kid: String!
    x: String!
    alg: Alg!
    kty: Kty!
    crv: Crv!
  }

  input JwkInput {
    kid: String!
    x: String!
    alg: Alg!
    kty: Kty!
    crv: Crv!
  }

  type WalletAddressKey implements Model {
    id: ID!
    walletAddressId: ID!
    jwk: Jwk!
    revoked: Boolean!
    createdAt: String!
  }

  input CreateWalletAddressKeyInput {
    walletAddressId: String!
    jwk: JwkInput!
    idempotencyKey: String
  }

  type CreateWalletAddressKeyMutationResponse {
    walletAddressKey: WalletAddressKey
  }

  enum IncomingPaymentState {
    PENDING
    PROCESSING
    COMPLETED
    EXPIRED
  }

  type IncomingPayment implements BasePayment & Model {
    id: ID!
    url: String!
    walletAddressId: ID!
    client: String
    liquidity: UInt64
    state: IncomingPaymentState!
    expiresAt: String!
    incomingAmount: Amount
    receivedAmount: Amount!
    metadata: JSONObject
    createdAt: String!
    cancellationReason: String
    cancelledAt: String
  }

  type Receiver {
    id: String!
    walletAddressUrl: String!
    completed: Boolean!
    incomingAmount: Amount
    receivedAmount: Amount!
    expiresAt: String
    metadata: JSONObject
    createdAt: String!
  }

  input CreateReceiverInput {
    walletAddressUrl: String!
    expiresAt: String
    incomingAmount: AmountInput
    metadata: JSONObject
    idempotencyKey: String
  }

  type CreateReceiverResponse {
    receiver: Receiver
  }

  input CompleteReceiverInput {
    incomingPaymentUrl: String!
  }

  type CompleteReceiverResponse {
    receiver: Receiver
  }

  type Quote {
    id: ID!
    tenantId: ID!
    walletAddressId: ID!
    receiver: String!
    debitAmount: Amount!
    receiveAmount: Amount!
    createdAt: String!
    expiresAt: String!
    estimatedExchangeRate: Float
  }

  input CreateQuoteInput {
    walletAddressId: String!
    debitAmount: AmountInput
    receiveAmount: AmountInput
    receiver: String!
    idempotencyKey: String
  }

  type QuoteResponse {
    quote: Quote
  }

  enum OutgoingPaymentState {
    FUNDING
    SENDING
    COMPLETED
    FAILED
    CANCELLED
  }

  type OutgoingPayment implements BasePayment & Model {
    id: ID!
    walletAddressId: ID!
    client: String
    liquidity: UInt64
    state: OutgoingPaymentState!
    error: String
    stateAttempts: Int!
    debitAmount: Amount!
    receiveAmount: Amount!
    receiver: String!
    metadata: JSONObject
    quote: Quote
    sentAmount: Amount!
    createdAt: String!
    grantId: String
  }

  input CreateOutgoingPaymentInput {
    walletAddressId: String!
    quoteId: String!
    metadata: JSONObject
    idempotencyKey: String
  }

  input CreateOutgoingPaymentFromIncomingPaymentInput {
    walletAddressId: String!
    incomingPayment: String!
    debitAmount: AmountInput
    metadata: JSONObject
    idempotencyKey: String
  }

  type OutgoingPaymentResponse {
    payment: OutgoingPayment
  }

  input DepositOutgoingPaymentLiquidityInput {
    outgoingPaymentId: String!
    idempotencyKey: String!
    dataToTransmit: String
  }
`;

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
    assets(after: String, before: String, first: Int, last: Int, sortOrder: SortOrder, tenantId: String): AssetsConnection!
    peers(after: String, before: String, first: Int, last: Int, sortOrder: SortOrder, tenantId: ID): PeersConnection!
    walletAddresses(after: String, before: String, first: Int, last: Int, sortOrder: SortOrder, tenantId: String): WalletAddressesConnection!
    outgoingPayments(
      after: String
      before: String
      first: Int
      last: Int
      sortOrder: SortOrder
      filter: OutgoingPaymentFilter
      tenantId: String
    ): OutgoingPaymentConnection!
    incomingPayments(
      after: String
      before: String
      first: Int
      last: Int
      sortOrder: SortOrder
      filter: IncomingPaymentFilter
      tenantId: String
    ): IncomingPaymentConnection!
    webhookEvents(
      after: String
      before: String
      first: Int
      last: Int
      sortOrder: SortOrder
      filter: WebhookEventFilter
      tenantId: String
    ): WebhookEventsConnection!
    payments(after: String, before: String, first: Int, last: Int, sortOrder: SortOrder, filter: PaymentFilter, tenantId: String): PaymentConnection!
    accountingTransfers(id: String!, limit: Int): AccountingTransferConnection!
    tenant(id: String!): Tenant!
    tenants(after: String, before: String, first: Int, last: Int, sortOrder: SortOrder): TenantsConnection!
    whoami: WhoamiResponse!
    "Rafiki's auth Admin API, here on the same endpoint."
    grants(after: String, before: String, first: Int, last: Int, filter: GrantFilter, sortOrder: SortOrder, tenantId: ID): GrantsConnection!
    grant(id: ID!): Grant!
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
    updateAsset(input: UpdateAssetInput!): AssetMutationResponse!
    deleteAsset(input: DeleteAssetInput!): DeleteAssetMutationResponse!
    createAssetLiquidityWithdrawal(input: CreateAssetLiquidityWithdrawalInput!): LiquidityMutationResponse
    createOrUpdatePeerByUrl(input: CreateOrUpdatePeerByUrlInput!): CreateOrUpdatePeerByUrlMutationResponse!
    updatePeer(input: UpdatePeerInput!): UpdatePeerMutationResponse!
    deletePeer(input: DeletePeerInput!): DeletePeerMutationResponse!
    createPeerLiquidityWithdrawal(input: CreatePeerLiquidityWithdrawalInput!): LiquidityMutationResponse
    postLiquidityWithdrawal(input: PostLiquidityWithdrawalInput!): LiquidityMutationResponse
    voidLiquidityWithdrawal(input: VoidLiquidityWithdrawalInput!): LiquidityMutationResponse
    updateWalletAddress(input: UpdateWalletAddressInput!): UpdateWalletAddressMutationResponse!
    revokeWalletAddressKey(input: RevokeWalletAddressKeyInput!): RevokeWalletAddressKeyMutationResponse
    createTenantSettings(input: CreateTenantSettingsInput!): CreateTenantSettingsMutationResponse
    createIncomingPayment(input: CreateIncomingPaymentInput!): IncomingPaymentResponse!
    updateIncomingPayment(input: UpdateIncomingPaymentInput!): IncomingPaymentResponse!
    cancelOutgoingPayment(input: CancelOutgoingPaymentInput!): OutgoingPaymentResponse!
    depositEventLiquidity(input: DepositEventLiquidityInput!): LiquidityMutationResponse @deprecated(reason: "Use depositOutgoingPaymentLiquidity")
    withdrawEventLiquidity(input: WithdrawEventLiquidityInput!): LiquidityMutationResponse
      @deprecated(reason: "Use createOutgoingPaymentWithdrawal or createIncomingPaymentWithdrawal")
    createIncomingPaymentWithdrawal(input: CreateIncomingPaymentWithdrawalInput!): LiquidityMutationResponse
    createOutgoingPaymentWithdrawal(input: CreateOutgoingPaymentWithdrawalInput!): LiquidityMutationResponse
    createWalletAddressWithdrawal(input: CreateWalletAddressWithdrawalInput!): WalletAddressWithdrawalMutationResponse
    triggerWalletAddressEvents(input: TriggerWalletAddressEventsInput!): TriggerWalletAddressEventsMutationResponse!
    approveIncomingPayment(input: ApproveIncomingPaymentInput!): ApproveIncomingPaymentResponse!
    cancelIncomingPayment(input: CancelIncomingPaymentInput!): CancelIncomingPaymentResponse!
    createTenant(input: CreateTenantInput!): TenantMutationResponse!
    updateTenant(input: UpdateTenantInput!): TenantMutationResponse!
    deleteTenant(id: String!): DeleteTenantMutationResponse!
    confirmPartialIncomingPayment(input: ConfirmPartialIncomingPaymentInput!): ConfirmPartialIncomingPaymentResponse!
    rejectPartialIncomingPayment(input: RejectPartialIncomingPaymentInput!): RejectPartialIncomingPaymentResponse!
    "Rafiki's auth Admin API, here on the same endpoint."
    revokeGrant(input: RevokeGrantInput!): RevokeGrantMutationResponse!
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

  enum SortOrder {
    ASC
    DESC
  }

  "Where a page starts and ends: pass endCursor as \`after\` for the next page."
  type PageInfo {
    endCursor: String
    hasNextPage: Boolean!
    hasPreviousPage: Boolean!
    startCursor: String
  }

  input FilterString {
    in: [String!]
    notIn: [String!]
  }

  type AssetsConnection {
    pageInfo: PageInfo!
    edges: [AssetEdge!]!
  }
  type AssetEdge {
    node: Asset!
    cursor: String!
  }
  type PeersConnection {
    pageInfo: PageInfo!
    edges: [PeerEdge!]!
  }
  type PeerEdge {
    node: Peer!
    cursor: String!
  }
  type WalletAddressesConnection {
    pageInfo: PageInfo!
    edges: [WalletAddressEdge!]!
  }
  type WalletAddressEdge {
    node: WalletAddress!
    cursor: String!
  }
  type OutgoingPaymentConnection {
    pageInfo: PageInfo!
    edges: [OutgoingPaymentEdge!]!
  }
  type OutgoingPaymentEdge {
    node: OutgoingPayment!
    cursor: String!
  }
  input OutgoingPaymentFilter {
    receiver: FilterString
    walletAddressId: FilterString
    state: FilterString
  }
  type IncomingPaymentConnection {
    pageInfo: PageInfo!
    edges: [IncomingPaymentEdge!]!
  }
  type IncomingPaymentEdge {
    node: IncomingPayment!
    cursor: String!
  }
  "Rafiki's initiatedBy, and (this service's) the wallet address by id, as outgoingPayments' filter has it."
  input IncomingPaymentFilter {
    initiatedBy: FilterString
    walletAddressId: FilterString
  }

  type WebhookEvent implements Model {
    id: ID!
    type: String!
    data: JSONObject!
    createdAt: String!
  }
  type WebhookEventsConnection {
    pageInfo: PageInfo!
    edges: [WebhookEventsEdge!]!
  }
  type WebhookEventsEdge {
    node: WebhookEvent!
    cursor: String!
  }
  input WebhookEventFilter {
    type: FilterString
  }

  enum PaymentType {
    INCOMING
    OUTGOING
  }
  type Payment implements BasePayment & Model {
    id: ID!
    type: PaymentType!
    walletAddressId: ID!
    client: String
    state: String!
    liquidity: UInt64
    metadata: JSONObject
    createdAt: String!
  }
  type PaymentConnection {
    pageInfo: PageInfo!
    edges: [PaymentEdge!]!
  }
  type PaymentEdge {
    node: Payment!
    cursor: String!
  }
  input PaymentFilter {
    type: FilterString
    walletAddressId: FilterString
  }

  enum TransferState {
    PENDING
    POSTED
    VOIDED
  }
  enum TransferType {
    DEPOSIT
    WITHDRAWAL
    TRANSFER
  }
  type AccountingTransfer implements Model {
    id: ID!
    debitAccountId: ID!
    creditAccountId: ID!
    amount: UInt64!
    transferType: TransferType!
    ledger: UInt8!
    createdAt: String!
    state: TransferState!
    expiresAt: String
  }
  type AccountingTransferConnection {
    debits: [AccountingTransfer!]!
    credits: [AccountingTransfer!]!
  }

  enum TenantSettingKey {
    EXCHANGE_RATES_URL
    WEBHOOK_URL
    WEBHOOK_TIMEOUT
    WEBHOOK_MAX_RETRY
    WALLET_ADDRESS_URL
    ILP_ADDRESS
  }
  type TenantSetting {
    key: TenantSettingKey!
    value: String!
  }
  input TenantSettingInput {
    key: TenantSettingKey!
    value: String!
  }
  "apiSecret and idpSecret are answered once, by createTenant: this service makes them and keeps them in its secret store."
  type Tenant implements Model {
    id: ID!
    email: String
    apiSecret: String
    idpConsentUrl: String
    idpSecret: String
    publicName: String
    createdAt: String!
    deletedAt: String
    settings: [TenantSetting!]!
  }
  type TenantsConnection {
    pageInfo: PageInfo!
    edges: [TenantEdge!]!
  }
  type TenantEdge {
    node: Tenant!
    cursor: String!
  }
  "apiSecret and idpSecret are made by this service (and answered once): input that sets them is refused."
  input CreateTenantInput {
    id: ID
    email: String
    apiSecret: String
    idpConsentUrl: String
    idpSecret: String
    publicName: String
    settings: [TenantSettingInput!]
  }
  input UpdateTenantInput {
    id: ID!
    email: String
    apiSecret: String
    idpConsentUrl: String
    idpSecret: String
    publicName: String
  }
  type TenantMutationResponse {
    tenant: Tenant!
  }
  type DeleteTenantMutationResponse {
    success: Boolean!
  }
  input CreateTenantSettingsInput {
    settings: [TenantSettingInput!]!
  }
  type CreateTenantSettingsMutationResponse {
    settings: [TenantSetting!]!
  }
  type WhoamiResponse {
    id: String!
    isOperator: Boolean!
  }

  input UpdateAssetInput {
    id: String!
    withdrawalThreshold: UInt64
    liquidityThreshold: UInt64
    idempotencyKey: String
  }
  input DeleteAssetInput {
    id: ID!
    idempotencyKey: String
  }
  type DeleteAssetMutationResponse {
    asset: Asset
  }
  input CreateAssetLiquidityWithdrawalInput {
    assetId: String!
    amount: UInt64!
    id: String!
    idempotencyKey: String!
    timeoutSeconds: UInt64!
  }
  input CreatePeerLiquidityWithdrawalInput {
    peerId: String!
    amount: UInt64!
    id: String!
    idempotencyKey: String!
    timeoutSeconds: UInt64!
  }
  input PostLiquidityWithdrawalInput {
    withdrawalId: String!
    idempotencyKey: String!
  }
  input VoidLiquidityWithdrawalInput {
    withdrawalId: String!
    idempotencyKey: String!
  }
  input CreateOrUpdatePeerByUrlInput {
    maxPacketAmount: UInt64
    assetId: String!
    peerUrl: String!
    name: String
    liquidityThreshold: UInt64
    liquidityToDeposit: UInt64
    idempotencyKey: String
  }
  type CreateOrUpdatePeerByUrlMutationResponse {
    peer: Peer
  }
  input UpdatePeerInput {
    id: String!
    maxPacketAmount: UInt64
    http: HttpInput
    staticIlpAddress: String
    name: String
    liquidityThreshold: UInt64
    idempotencyKey: String
    routes: [String!]
  }
  type UpdatePeerMutationResponse {
    peer: Peer
  }
  input DeletePeerInput {
    id: ID!
    idempotencyKey: String
  }
  type DeletePeerMutationResponse {
    success: Boolean!
  }

  input UpdateWalletAddressInput {
    id: ID!
    publicName: String
    status: WalletAddressStatus
    idempotencyKey: String
    additionalProperties: [AdditionalPropertyInput!]
  }
  type UpdateWalletAddressMutationResponse {
    walletAddress: WalletAddress
  }
  input RevokeWalletAddressKeyInput {
    id: String!
    idempotencyKey: String
  }
  type RevokeWalletAddressKeyMutationResponse {
    walletAddressKey: WalletAddressKey
  }
  input CreateWalletAddressWithdrawalInput {
    walletAddressId: String!
    id: String!
    idempotencyKey: String!
    timeoutSeconds: UInt64!
  }
  type WalletAddressWithdrawal {
    id: ID!
    amount: UInt64!
    walletAddress: WalletAddress!
  }
  type WalletAddressWithdrawalMutationResponse {
    withdrawal: WalletAddressWithdrawal
  }
  input TriggerWalletAddressEventsInput {
    limit: Int!
    idempotencyKey: String
  }
  type TriggerWalletAddressEventsMutationResponse {
    count: Int
  }

  input CreateIncomingPaymentInput {
    walletAddressId: String!
    expiresAt: String
    metadata: JSONObject
    incomingAmount: AmountInput
    idempotencyKey: String
    isCardPayment: Boolean
    senderWalletAddress: String
  }
  input UpdateIncomingPaymentInput {
    id: ID!
    metadata: JSONObject!
  }
  type IncomingPaymentResponse {
    payment: IncomingPayment
  }
  input ApproveIncomingPaymentInput {
    id: ID!
  }
  type ApproveIncomingPaymentResponse {
    payment: IncomingPayment
  }
  input CancelIncomingPaymentInput {
    id: ID!
    cancellationReason: String
  }
  type CancelIncomingPaymentResponse {
    payment: IncomingPayment
  }
  input ConfirmPartialIncomingPaymentInput {
    incomingPaymentId: ID!
    partialIncomingPaymentId: ID!
  }
  type ConfirmPartialIncomingPaymentResponse {
    success: Boolean!
  }
  input RejectPartialIncomingPaymentInput {
    incomingPaymentId: ID!
    partialIncomingPaymentId: ID!
    reason: String
  }
  type RejectPartialIncomingPaymentResponse {
    success: Boolean!
  }
  enum CardPaymentFailureReason {
    invalid_signature
    invalid_request
  }
  input CancelOutgoingPaymentInput {
    id: ID!
    reason: String
    cardPaymentFailureReason: CardPaymentFailureReason
  }
  input DepositEventLiquidityInput {
    eventId: String!
    idempotencyKey: String!
  }
  input WithdrawEventLiquidityInput {
    eventId: String!
    idempotencyKey: String!
  }
  input CreateIncomingPaymentWithdrawalInput {
    incomingPaymentId: String!
    idempotencyKey: String!
    timeoutSeconds: UInt64!
  }
  input CreateOutgoingPaymentWithdrawalInput {
    outgoingPaymentId: String!
    idempotencyKey: String!
    timeoutSeconds: UInt64!
  }

  enum GrantState {
    PROCESSING
    PENDING
    APPROVED
    FINALIZED
  }
  enum GrantFinalization {
    ISSUED
    REVOKED
    REJECTED
  }
  input FilterGrantState {
    in: [GrantState!]
    notIn: [GrantState!]
  }
  input FilterFinalizationReason {
    in: [GrantFinalization!]
    notIn: [GrantFinalization!]
  }
  input GrantFilter {
    identifier: FilterString
    state: FilterGrantState
    finalizationReason: FilterFinalizationReason
  }
  type PaymentAmount {
    value: UInt64!
    assetCode: String!
    assetScale: UInt8!
  }
  type LimitData {
    receiver: String
    debitAmount: PaymentAmount
    receiveAmount: PaymentAmount
    interval: String
  }
  type Access implements Model {
    id: ID!
    identifier: String
    type: String!
    actions: [String]!
    limits: LimitData
    createdAt: String!
  }
  type SubjectItem implements Model {
    id: ID!
    subId: String!
    subIdFormat: String!
    createdAt: String!
  }
  type Subject {
    sub_ids: [SubjectItem!]!
  }
  type Grant implements Model {
    id: ID!
    client: String
    access: [Access!]!
    subject: Subject
    state: GrantState!
    finalizationReason: GrantFinalization
    createdAt: String!
    tenantId: ID!
  }
  type GrantsConnection {
    pageInfo: PageInfo!
    edges: [GrantEdge!]!
  }
  type GrantEdge {
    node: Grant!
    cursor: String!
  }
  input RevokeGrantInput {
    grantId: String!
  }
  type RevokeGrantMutationResponse {
    id: ID!
  }
`;

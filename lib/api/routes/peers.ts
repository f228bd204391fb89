// The Admin API's routes of the tag Peers, each declared once (./route.ts says what a declaration holds).

import * as z from 'zod';
import { assetErrors } from '../../assets/errors';
import { liquidityBody, liquidityWithdrawalBody } from '../../assets/schemas';
import { ledgerErrors } from '../../ledger/errors';
import { liquidityWithdrawal } from '../../liquidity-withdrawals/schemas';
import { peerErrors } from '../../peers/errors';
import { createPeerBody, peer, peerByUrlBody, peerWithLiquidity, reconciliation, reconciliationQuery, updatePeerBody } from '../../peers/schemas';
import { pageQuery } from '../../shared/values';
import { ADMIN_API_SECRETS } from './roles';
import { declareRoutes, type FunctionRoles, idParams, page } from './route';

export const peerPage = page(peer);
export const peerLiquidityWithdrawn = z.union([peerWithLiquidity, liquidityWithdrawal]);

export const peersRoutes = declareRoutes({
  createPeer: {
    tag: 'Peers',
    method: 'post',
    path: '/peers',
    summary: 'Create a peer',
    description:
      'Incoming tokens are never echoed. The outgoing endpoint may not be, or resolve to, an internal address (loopback, private, ' +
      'link-local) unless the deployment allows the tenant (`ALLOW_PRIVATE_PEERS`).',
    body: createPeerBody,
    status: 201,
    response: peer,
    problems: [peerErrors.exists, peerErrors.tokenInUse, peerErrors.internalEndpoint, assetErrors.unknown],
    transactional: true,
    functionName: 'peersCreate',
    handler: 'peers/create',
    role: 'AdminCreateRole',
    operation: { domain: 'peers', name: 'createPeer' },
  },
  createOrUpdatePeerByUrl: {
    tag: 'Peers',
    method: 'post',
    path: '/peers/by-url',
    summary: 'Peer with another node by its peering URL',
    description:
      "Rafiki's auto-peering: sends the node at `url` (its peering endpoint: ours is `/peering` on the connector's API, Rafiki's its " +
      'auto-peering server) a peering request, then makes, or changes, the peer at the address it answers, in the asset, and deposits ' +
      '`liquidityToDeposit` on it. Sent again, it changes the same peer, with new tokens on both sides. Off unless `AUTO_PEERING_ENABLED` ' +
      '(403). A `url` at an internal address is refused unless `ALLOW_PRIVATE_PEERS` names the tenant; the other node unreachable, ' +
      'refusing or answering what is not an answer is 502, and nothing is changed here.',
    body: peerByUrlBody,
    status: 200,
    response: peerWithLiquidity,
    problems: [
      peerErrors.autoPeeringOff,
      peerErrors.peeringFailed,
      peerErrors.peeringAnswerInvalid,
      peerErrors.internalEndpoint,
      peerErrors.tokenInUse,
      peerErrors.changed,
      assetErrors.unknown,
      ledgerErrors.balanceTooLarge,
    ],
    transactional: true,
    functionName: 'peersByUrl',
    handler: 'peers/by-url',
    role: 'PeersByUrlRole',
    operation: { domain: 'peers', name: 'peerByUrl' },
  },
  listPeers: {
    tag: 'Peers',
    method: 'get',
    path: '/peers',
    summary: 'List peers, newest first',
    query: pageQuery,
    status: 200,
    response: peerPage,
    functionName: 'peersList',
    handler: 'peers/list',
    role: 'AdminListRole',
  },
  getPeer: {
    tag: 'Peers',
    method: 'get',
    path: '/peers/{id}',
    summary: 'Get a peer and its liquidity',
    params: idParams,
    status: 200,
    response: peerWithLiquidity,
    problems: [peerErrors.notFound],
    functionName: 'peersGet',
    handler: 'peers/get',
    role: 'AdminBalanceReadRole',
    operation: { domain: 'peers', name: 'getPeer' },
  },
  updatePeer: {
    tag: 'Peers',
    method: 'patch',
    path: '/peers/{id}',
    summary: 'Change a peer',
    description: 'Its name, tokens, endpoint (as `POST /peers` takes it), `maxPacketAmount` or `liquidityThreshold`.',
    params: idParams,
    body: updatePeerBody,
    status: 200,
    response: peer,
    problems: [peerErrors.notFound, peerErrors.changed, peerErrors.tokenInUse, peerErrors.internalEndpoint],
    transactional: true,
    functionName: 'peersUpdate',
    handler: 'peers/update',
    role: 'PeersUpdateRole',
    operation: { domain: 'peers', name: 'updatePeer' },
  },
  deletePeer: {
    tag: 'Peers',
    method: 'delete',
    path: '/peers/{id}',
    summary: 'Delete a peer that holds no liquidity',
    params: idParams,
    status: 204,
    problems: [peerErrors.notFound, peerErrors.hasLiquidity, peerErrors.changed],
    transactional: true,
    functionName: 'peersDelete',
    handler: 'peers/delete',
    role: 'PeersDeleteRole',
  },
  depositPeerLiquidity: {
    tag: 'Peers',
    method: 'post',
    path: '/peers/{id}/liquidity',
    summary: 'Deposit peer liquidity',
    description: 'The credit line extended to the peer.',
    params: idParams,
    body: liquidityBody,
    status: 200,
    response: peerWithLiquidity,
    problems: [peerErrors.notFound, ledgerErrors.balanceTooLarge],
    transactional: true,
    functionName: 'peersLiquidityDeposit',
    handler: 'peers/liquidity-deposit',
    role: 'AdminLiquidityRole',
  },
  getPeerReconciliation: {
    tag: 'Peers',
    method: 'get',
    path: '/peers/{id}/reconciliation',
    summary: 'List the packets sent to a peer that got no answer',
    description:
      'Packets this node sent the peer whose answer never came before they expired, booked as not paid (Interledger: the sender owes a packet ' +
      'only when its fulfillment arrives in time), by expiry in [from, to) (default: the last 24 hours; at most 31 days), newest first, with ' +
      'the total of the whole window. Compare with what the peer credited from this node: a packet it credited is a fulfillment lost in flight.',
    params: idParams,
    query: reconciliationQuery,
    status: 200,
    response: reconciliation,
    problems: [peerErrors.notFound],
    functionName: 'peersReconciliation',
    handler: 'peers/reconciliation',
    role: 'AdminListReadRole',
    operation: { domain: 'payments', name: 'peerReconciliation' },
  },
  withdrawPeerLiquidity: {
    tag: 'Peers',
    method: 'post',
    path: '/peers/{id}/liquidity-withdrawals',
    summary: 'Withdraw peer liquidity',
    description:
      "The amount is at the peer's asset's scale. Answers the peer with its liquidity after it; with `twoPhase: true`, the " +
      'withdrawal, `pending`, as for an asset.',
    params: idParams,
    body: liquidityWithdrawalBody,
    status: 200,
    response: peerLiquidityWithdrawn,
    problems: [peerErrors.notFound, ledgerErrors.insufficientLiquidity, ledgerErrors.balanceTooLarge, ledgerErrors.concurrentWithdrawal],
    transactional: true,
    functionName: 'peersLiquidityWithdraw',
    handler: 'peers/liquidity-withdraw',
    role: 'AdminLiquidityRole',
  },
});

// The roles of these routes' own functions (those they share are in ./roles.ts).
export const peersRoles = {
  // POST a peer
  AdminCreateRole: {
    MainTable: ['GetItem', 'PutItem'],
    IdempotencyTable: ['GetItem', 'PutItem', 'UpdateItem', 'DeleteItem'],
    secrets: ADMIN_API_SECRETS,
  },
  // POST /peers/by-url: a peer made or changed, and a deposit on it
  PeersByUrlRole: {
    MainTable: ['GetItem', 'BatchGetItem', 'PutItem', 'UpdateItem', 'DeleteItem'],
    IdempotencyTable: ['GetItem', 'PutItem', 'UpdateItem', 'DeleteItem'],
    secrets: ADMIN_API_SECRETS,
  },
  PeersUpdateRole: {
    MainTable: ['GetItem', 'PutItem', 'DeleteItem'],
    secrets: ADMIN_API_SECRETS,
  },
  PeersDeleteRole: {
    MainTable: ['GetItem', 'PutItem', 'DeleteItem', 'ConditionCheckItem'],
    secrets: ADMIN_API_SECRETS,
  },
} satisfies FunctionRoles;

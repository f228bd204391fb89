// The Admin API's routes of the tag Wallet addresses, each declared once (./route.ts says what a declaration holds).

import * as z from 'zod';
import { assetErrors } from '../../assets/errors';
import { walletAddressErrors } from '../../wallet-addresses/errors';
import {
  createWalletAddressBody,
  ed25519Jwk,
  keyParams,
  updateWalletAddressBody,
  walletAddress,
  walletAddressesQuery,
  walletAddressKey,
} from '../../wallet-addresses/schemas';
import { ADMIN_API_SECRETS } from './roles';
import { declareRoutes, type FunctionRoles, idParams, page } from './route';

export const walletAddressPage = page(walletAddress);
export const walletAddressOrPage = z.union([walletAddress, walletAddressPage]);
export const walletAddressKeyList = z.object({ items: z.array(walletAddressKey) });

export const walletAddressesRoutes = declareRoutes({
  createWalletAddress: {
    tag: 'Wallet addresses',
    method: 'post',
    path: '/wallet-addresses',
    summary: 'Create a wallet address',
    body: createWalletAddressBody,
    status: 201,
    response: walletAddress,
    problems: [walletAddressErrors.exists, walletAddressErrors.underTenant, walletAddressErrors.baseChanged, assetErrors.unknown],
    transactional: true,
    functionName: 'walletAddressesCreate',
    handler: 'wallet-addresses/create',
    role: 'AdminChangeRole',
    operation: { domain: 'wallet-addresses', name: 'createWalletAddress' },
  },
  findWalletAddress: {
    tag: 'Wallet addresses',
    method: 'get',
    path: '/wallet-addresses',
    summary: 'List wallet addresses, newest first, or find one by its URL',
    description:
      'Without `address`: a page of wallet addresses (`limit`, `cursor`). With `address`: the wallet address at that URL, matched in any ' +
      'letter case (it takes no `limit` or `cursor`).',
    query: walletAddressesQuery,
    status: 200,
    response: walletAddressOrPage,
    problems: [walletAddressErrors.notFound],
    functionName: 'walletAddressesFind',
    handler: 'wallet-addresses/find',
    role: 'AdminListReadRole',
  },
  getWalletAddress: {
    tag: 'Wallet addresses',
    method: 'get',
    path: '/wallet-addresses/{id}',
    summary: 'Get a wallet address',
    params: idParams,
    status: 200,
    response: walletAddress,
    problems: [walletAddressErrors.notFound],
    functionName: 'walletAddressesGet',
    handler: 'wallet-addresses/get',
    role: 'AdminReadRole',
    operation: { domain: 'wallet-addresses', name: 'getWalletAddress' },
  },
  updateWalletAddress: {
    tag: 'Wallet addresses',
    method: 'patch',
    path: '/wallet-addresses/{id}',
    summary: "Change a wallet address's public name, status, or whether its new payment intents wait for approval",
    description:
      'An `inactive` wallet address takes no new payment intents, quotes, payments, fundings, grants or packets ' +
      '(`wallet_address_inactive`); what is in flight finishes as it would. Each change emits `wallet_address.updated`.',
    params: idParams,
    body: updateWalletAddressBody,
    status: 200,
    response: walletAddress,
    problems: [walletAddressErrors.notFound],
    transactional: true,
    functionName: 'walletAddressesUpdate',
    handler: 'wallet-addresses/update',
    role: 'WalletAddressesUpdateRole',
    operation: { domain: 'wallet-addresses', name: 'updateWalletAddress' },
  },
  createWalletAddressKey: {
    tag: 'Wallet addresses',
    method: 'post',
    path: '/wallet-addresses/{id}/keys',
    summary: 'Register an Ed25519 public key',
    description: 'A public JWK (RFC 8037). A wallet address keeps at most 20 unrevoked keys.',
    params: idParams,
    body: ed25519Jwk,
    status: 201,
    response: walletAddressKey,
    problems: [walletAddressErrors.notFound, walletAddressErrors.keyExists, walletAddressErrors.tooManyKeys],
    transactional: true,
    functionName: 'walletAddressKeysCreate',
    handler: 'wallet-addresses/keys-create',
    role: 'AdminChangeRole',
    operation: { domain: 'wallet-addresses', name: 'addKey' },
  },
  listWalletAddressKeys: {
    tag: 'Wallet addresses',
    method: 'get',
    path: '/wallet-addresses/{id}/keys',
    summary: "List a wallet address's keys",
    description: 'Revoked keys included.',
    params: idParams,
    status: 200,
    response: walletAddressKeyList,
    problems: [walletAddressErrors.notFound],
    functionName: 'walletAddressKeysList',
    handler: 'wallet-addresses/keys-list',
    role: 'WalletAddressKeysListRole',
  },
  revokeWalletAddressKey: {
    tag: 'Wallet addresses',
    method: 'post',
    path: '/wallet-addresses/{id}/keys/{kid}/revoke',
    summary: 'Revoke a key',
    description: 'Revoking a revoked key changes nothing.',
    params: keyParams,
    status: 200,
    response: walletAddressKey,
    problems: [walletAddressErrors.notFound, walletAddressErrors.keyNotFound],
    transactional: true,
    functionName: 'walletAddressKeysRevoke',
    handler: 'wallet-addresses/keys-revoke',
    role: 'AdminChangeRole',
    operation: { domain: 'wallet-addresses', name: 'revokeKey' },
  },
});

// The roles of these routes' own functions (those they share are in ./roles.ts).
export const walletAddressesRoles = {
  WalletAddressesUpdateRole: {
    MainTable: ['GetItem', 'PutItem', 'UpdateItem'],
    secrets: ADMIN_API_SECRETS,
  },
  WalletAddressKeysListRole: {
    MainTable: ['GetItem', 'Query'],
    secrets: ADMIN_API_SECRETS,
  },
} satisfies FunctionRoles;

import { createPrivateKey } from 'node:crypto';
import { generateJwk } from '@interledger/http-signature-utils';
import { derivedKey } from '../platform/secrets';
import type { Node } from '../shared/node';
import { canonicalBase } from '../shared/wallet-address-url';
import { publishServiceIdentity } from '../wallet-addresses';

// This service's own identity as an Open Payments client, for the calls it makes to other nodes'
// servers: an Ed25519 key derived from the OPEN_PAYMENTS_CLIENT_SECRET secret, published (with
// jwks.json, as any wallet address's keys) under the reserved address
// {WALLET_ADDRESS_URL}/.well-known/pay, which no FSP wallet address can take.
export const SERVICE_ADDRESS_PATH = '.well-known/pay';
const PUBLIC_NAME = 'Payment service';
// An Ed25519 private key in PKCS #8 is this prefix and the 32-byte seed.
const PKCS8_ED25519 = Buffer.from('302e020100300506032b657004220420', 'hex');

export const serviceWalletAddress = (node: Node) => `${canonicalBase(node.urls.walletAddresses)}/${SERVICE_ADDRESS_PATH}`;

// The key and its JWK, published under the tenant's service address (its reader, in ./client.ts,
// keeps them for the container).
export async function serviceIdentity(node: Node) {
  const seed = await derivedKey(node, 'OPEN_PAYMENTS_CLIENT_SECRET', 'ed25519');
  const privateKey = createPrivateKey({ key: Buffer.concat([PKCS8_ED25519, seed]), format: 'der', type: 'pkcs8' });
  const probe = generateJwk({ privateKey, keyId: 'probe' });
  const jwk = generateJwk({ privateKey, keyId: `service-${probe.x.slice(0, 12)}` });
  // Published before first use, so that an authorization server can find the key.
  await publishServiceIdentity(node, serviceWalletAddress(node), PUBLIC_NAME, jwk as never);
  return { privateKey, jwk };
}

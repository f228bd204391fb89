import { createPrivateKey, createPublicKey, type KeyObject } from 'node:crypto';
import { derivedKey, secret } from '../platform/secrets';
import type { Node } from '../shared/node';
import { canonicalBase } from '../shared/wallet-address-url';
import { publishedKeys, publishServiceIdentity } from '../wallet-addresses';
import type { Ed25519Jwk } from '../wallet-addresses/schemas';

// This service's own identity as an Open Payments client, for the calls it makes to other nodes'
// servers, published (with jwks.json, as any wallet address's keys) under the reserved address
// {WALLET_ADDRESS_URL}/.well-known/pay, which no FSP wallet address can take. Its key: the
// OPEN_PAYMENTS_CLIENT_SECRET secret itself when it holds an Ed25519 private key in PEM (an FSP
// that registers its node's key with others, as Rafiki's PRIVATE_KEY_FILE), else an Ed25519 key
// derived from it; its key id: OPEN_PAYMENTS_CLIENT_KEY_ID, else one made from the key.
export const SERVICE_ADDRESS_PATH = '.well-known/pay';
const PUBLIC_NAME = 'Payment service';
// An Ed25519 private key in PKCS #8 is this prefix and the 32-byte seed.
const PKCS8_ED25519 = Buffer.from('302e020100300506032b657004220420', 'hex');

export const serviceWalletAddress = (node: Node) => `${canonicalBase(node.urls.walletAddresses)}/${SERVICE_ADDRESS_PATH}`;

// The public JWK of an Ed25519 key, as Open Payments publishes keys (node's own export: the wallet
// address's function, which publishes it when asked, carries no JOSE library).
function jwkOf(privateKey: KeyObject, kid: string): Ed25519Jwk {
  const { x } = createPublicKey(privateKey).export({ format: 'jwk' });
  return { kid, alg: 'EdDSA', kty: 'OKP', crv: 'Ed25519', x: x! };
}

async function privateKeyOf(node: Node): Promise<KeyObject> {
  const value = await secret(node, 'OPEN_PAYMENTS_CLIENT_SECRET');
  if (!value.trimStart().startsWith('-----BEGIN')) {
    const seed = await derivedKey(node, 'OPEN_PAYMENTS_CLIENT_SECRET', 'ed25519');
    return createPrivateKey({ key: Buffer.concat([PKCS8_ED25519, seed]), format: 'der', type: 'pkcs8' });
  }
  let key: KeyObject | undefined;
  try {
    key = createPrivateKey(value);
  } catch {
    // Its text is not told: it is a private key.
  }
  if (key?.asymmetricKeyType !== 'ed25519') throw new Error('OPEN_PAYMENTS_CLIENT_SECRET holds a PEM that is not an Ed25519 private key');
  return key;
}

// The key and its JWK, published under the tenant's service address; made once per container and
// tenant (its reader, in ./client.ts, and the wallet address's GET share it).
const identities = new Map<string, ReturnType<typeof makeIdentity>>();

export function serviceIdentity(node: Node) {
  let identity = identities.get(node.tenant.id);
  if (!identity) {
    identity = makeIdentity(node);
    identities.set(node.tenant.id, identity);
    identity.catch(() => identities.delete(node.tenant.id));
  }
  return identity;
}

async function makeIdentity(node: Node) {
  const privateKey = await privateKeyOf(node);
  const keyId = node.openPaymentsClientKeyId ?? `service-${jwkOf(privateKey, 'probe').x.slice(0, 12)}`;
  const jwk = jwkOf(privateKey, keyId);
  // Published before first use, so that an authorization server can find the key; a key set that
  // already holds it is left as it is.
  const address = serviceWalletAddress(node);
  const published = await publishedKeys(node, address);
  if (!published?.keys.some((k) => k.kid === jwk.kid && k.x === jwk.x)) await publishServiceIdentity(node, address, PUBLIC_NAME, jwk);
  return { privateKey, jwk };
}

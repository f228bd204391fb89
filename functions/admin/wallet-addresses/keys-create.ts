import { adminRoute, created } from '../../../lib/http/admin';
import { idParams } from '../../../lib/http/schemas';
import { addKey } from '../../../lib/wallet-addresses';
import { ed25519Jwk } from '../../../lib/wallet-addresses/schemas';

export const handler = adminRoute({ params: idParams, body: ed25519Jwk }, async ({ params, body, node }) => created(await addKey(node, params.id, body)));

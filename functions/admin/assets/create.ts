import { createAsset } from '../../../lib/assets';
import { createAssetBody } from '../../../lib/assets/schemas';
import { adminRoute, created } from '../../../lib/http/admin';

export const handler = adminRoute({ body: createAssetBody, transactional: true }, async ({ body, node }) => created(await createAsset(node, body)));

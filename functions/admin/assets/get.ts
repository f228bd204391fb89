import { getAssetWithLiquidity } from '../../../lib/assets';
import { idParams } from '../../../lib/http/schemas';
import { adminRoute, ok } from '../../../lib/http/admin';

export const handler = adminRoute({ params: idParams }, async ({ params }) => ok(await getAssetWithLiquidity(params.id)));

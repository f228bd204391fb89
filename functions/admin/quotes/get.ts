import { adminRoute, ok } from '../../../lib/http/admin';
import { idParams } from '../../../lib/http/schemas';
import { getQuote } from '../../../lib/quotes';

export const handler = adminRoute({ params: idParams }, async ({ params, node }) => ok(await getQuote(node, params.id)));

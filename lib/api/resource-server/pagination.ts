import * as z from 'zod';
import { commonErrors } from '../../shared/errors';
import type { Node } from '../../shared/node';
import { findWalletRecordByUrl } from '../../wallet-addresses';
import { walletAddressErrors } from '../../wallet-addresses/errors';
import { json, type OpReply, type OpRequest } from '../http/open-payments';
import { authorize, type Caller, reachesAll } from './access';

// Open Payments' cursor pagination of a wallet address's resources, newest first: `first`
// (default 20) after `cursor`, or `last` before it. A cursor is the base64url of the listing's
// sort key (createdAt#id), opaque to clients.
const pageSize = z
  .string()
  .regex(/^[1-9]\d{0,2}$/, 'must be a whole number from 1 to 100')
  .transform(Number)
  .refine((n) => n <= 100, 'must be at most 100');
const listQuery = z
  .strictObject({
    'wallet-address': z.string().min(1).max(512),
    first: pageSize.optional(),
    last: pageSize.optional(),
    cursor: z
      .string()
      .max(512)
      .transform((c) => Buffer.from(c, 'base64url').toString('utf8'))
      .refine((c) => /^\d{4}-\d\d-\d\dT[\d:.]+Z#[0-9a-f-]{36}$/.test(c), 'is not a cursor this list returned')
      .optional(),
  })
  .refine((q) => !(q.first && q.last), { message: 'first and last cannot be given together', path: ['last'] })
  .refine((q) => !q.last || q.cursor, { message: 'last needs a cursor', path: ['last'] });

// The query of a list route: its wallet address, and the page asked for.
function listQueryOf(req: OpRequest) {
  const parsed = listQuery.safeParse(req.query);
  if (!parsed.success) throw commonErrors.invalidRequest(parsed.error.issues.map((i) => `${i.path.join('.') || 'query'} ${i.message}`).join('; '));
  const q = parsed.data;
  return { walletAddress: q['wallet-address'], size: q.last ?? q.first ?? 20, direction: q.last ? ('newer' as const) : ('older' as const), cursor: q.cursor };
}

// The answer: the page's items as shown, with its cursors (none on an empty page) and ends.
function pageAnswer<T>(page: { records: T[]; hasNextPage: boolean; hasPreviousPage: boolean }, sortKeyOf: (r: T) => string, view: (r: T) => unknown) {
  const cursor = (r: T) => Buffer.from(sortKeyOf(r)).toString('base64url');
  const [first, last] = [page.records[0], page.records.at(-1)];
  return {
    pagination: {
      ...(first && { startCursor: cursor(first), endCursor: cursor(last!) }),
      hasNextPage: page.hasNextPage,
      hasPreviousPage: page.hasPreviousPage,
    },
    result: page.records.map(view),
  };
}

type TwoWayPage<T> = { records: T[]; hasNextPage: boolean; hasPreviousPage: boolean };
type PageOpts = { size: number; direction: 'older' | 'newer'; cursor?: string; client?: string };

// A list route of a wallet address's resources of `type`: with `list`, those the client created;
// with `list-all` (consented), all of them, another client's without its metadata.
export async function listRoute<T>(
  node: Node,
  req: OpRequest,
  type: 'incoming-payment' | 'outgoing-payment',
  resources: {
    page: (walletAddressId: string, opts: PageOpts) => Promise<TwoWayPage<T>>;
    sortKeyOf: (r: T) => string;
    view: (r: T, caller: Caller) => unknown; // as the caller is shown it (access.ts shownTo)
  },
): Promise<OpReply> {
  const { walletAddress, ...q } = listQueryOf(req);
  const caller = await authorize(node, req, [{ type, actions: ['list'], identifier: walletAddress }]);
  const wallet = await findWalletRecordByUrl(node, walletAddress);
  if (!wallet) throw walletAddressErrors.notFound(walletAddress);
  const page = await resources.page(wallet.id, { ...q, client: reachesAll(caller, 'list') ? undefined : caller.client });
  return json(
    200,
    pageAnswer(page, resources.sortKeyOf, (r) => resources.view(r, caller)),
  );
}

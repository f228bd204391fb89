import * as z from 'zod';
import { createQuote } from '../../payments/methods/quote';
import { findQuote } from '../../quotes';
import type { QuoteRecord } from '../../quotes/schemas';
import { amount } from '../../shared/amounts';
import { commonErrors } from '../../shared/errors';
import type { Node } from '../../shared/node';
import { isResourceId, quoteUrl } from '../../shared/resources';
import { json, type OpReply, type OpRequest, parseJson } from '../http/open-payments';
import { authorize, forbidden, reachesAll } from './access';

// Open Payments quotes, on the resource server: the same quotes as the Admin API's (same pricing,
// same record), asked for by an app with a `quote` grant for the sending wallet address, and kept
// with the client that asked, which alone may read it (or a token with `read-all`). The receiver
// is an incoming payment's URL, on this node or another.
const createBody = z.strictObject({
  walletAddress: z.string().max(512),
  receiver: z
    .string()
    .max(512)
    .regex(/^https?:\/\/.+\/incoming-payments\/.+$/i, "must be an incoming payment's URL"),
  method: z.literal('ilp').optional(), // the only payment method; the specification requires it, clients may omit it
  debitAmount: amount.optional(),
  receiveAmount: amount.optional(),
});

// The quote as Open Payments shows it (its schema allows nothing more).
const view = (node: Node, r: QuoteRecord) => ({
  id: quoteUrl(node, r.id),
  walletAddress: r.walletAddress,
  receiver: r.receiver,
  debitAmount: r.debitAmount,
  receiveAmount: r.receiveAmount,
  method: 'ilp' as const,
  expiresAt: r.expiresAt,
  createdAt: r.createdAt,
});

export async function createOpQuote(node: Node, req: OpRequest): Promise<OpReply> {
  const { method, ...body } = parseJson(req, createBody);
  const caller = await authorize(node, req, [{ type: 'quote', actions: ['create'], identifier: body.walletAddress }]);
  return json(201, view(node, await createQuote(node, body, caller.client)));
}

export async function getOpQuote(node: Node, req: OpRequest): Promise<OpReply> {
  const quote = isResourceId(req.params.id) ? await findQuote(node, req.params.id) : undefined;
  if (!quote) throw commonErrors.notFound(`No quote ${req.params.id}`);
  const caller = await authorize(node, req, [{ type: 'quote', actions: ['read'], identifier: quote.walletAddress }]);
  if (quote.client !== caller.client && !reachesAll(caller, 'read'))
    throw forbidden(node, `Quote ${req.params.id} was not created by this client, and the access token reaches only those it did`);
  return json(200, view(node, quote));
}

import { getOne, type Lookup, recordKey } from '../platform/store';
import type { Write } from '../platform/tx';
import type { Node } from '../shared/node';
import { withMethodFields } from './method';
import type { QuoteRecord } from './schemas';

// A quote is one item under its id. It pays for one payment, whose id it names (lib/payments): a
// payment takes it by its own put, and the quote is not written again. (Before, taking it set
// `paymentId` here, which a quote taken then still holds.)
const quoteKey = (node: Node, id: string) => recordKey(node, 'QUOTE', id);

// A new quote, where none is: so that a create whose id is its request's replay guard holds it (lib/platform/tx).
export const putQuote = (node: Node, r: QuoteRecord): Write => ({
  Put: { TableName: node.tables.main, Item: { ...quoteKey(node, r.id), ...r }, ConditionExpression: 'attribute_not_exists(pk)' },
});

export const quoteLookup = (node: Node, id: string): Lookup<QuoteRecord> => ({
  table: node.tables.main,
  key: quoteKey(node, id),
  read: ({ pk, sk, ...record }) => withMethodFields(record) as QuoteRecord,
});
export const findQuote = (node: Node, id: string) => getOne(quoteLookup(node, id));

import { notOffered } from './errors';

// Rafiki's cursor pagination over this service's lists, which page forward only, in the REST
// route's order: `first` is the page's size (1 to 100, 20 when not given) and `after` the previous
// page's pageInfo.endCursor (the REST list's nextCursor). `last`, `before` and `sortOrder` have no
// counterpart and are refused by name; an edge's cursor is its node's id, not a place to page from.
export interface PageArgs {
  after?: string | null;
  before?: string | null;
  first?: number | null;
  last?: number | null;
  sortOrder?: string | null;
}

const isSet = <T>(v: T | null | undefined): v is T => v !== null && v !== undefined;

// The REST list's query (its route's schema checks it): `limit` as the query string sends it.
export function pageQueryOf(operation: string, a: PageArgs): { limit?: string; cursor?: string } {
  if (isSet(a.last) || isSet(a.before)) throw notOffered(`${operation} with last or before`, 'lists page forward only, by first and after');
  if (isSet(a.sortOrder)) throw notOffered(`${operation} with sortOrder`, 'each list comes in one order, its REST route’s');
  return { ...(isSet(a.first) && { limit: String(a.first) }), ...(isSet(a.after) && { cursor: a.after }) };
}

export function connection<T extends { id: string }, O>(page: { items: T[]; nextCursor: string | null }, after: string | null | undefined, out: (t: T) => O) {
  return {
    edges: page.items.map((item) => ({ node: out(item), cursor: item.id })),
    pageInfo: {
      startCursor: after ?? null,
      endCursor: page.nextCursor,
      hasNextPage: page.nextCursor !== null,
      hasPreviousPage: isSet(after),
    },
  };
}

// A FilterString this service can apply: one value `in`, nothing `notIn` (undefined: no filter).
export function oneOf(operation: string, field: string, filter: { in?: string[] | null; notIn?: string[] | null } | null | undefined): string | undefined {
  if (!filter) return undefined;
  if (filter.notIn?.length || (filter.in && filter.in.length !== 1)) {
    throw notOffered(`${operation} with filter.${field} other than one value in "in"`, 'lists filter on one value of a field');
  }
  return filter.in?.[0];
}

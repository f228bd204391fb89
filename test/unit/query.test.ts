import { describe, expect, it } from 'vitest';
import { entriesOf, sentQueries } from '../../lib/api/http/query';

// What a REST API hands the function: the query decoded, values grouped by name.
function decoded(raw: string) {
  const params = new URLSearchParams(raw);
  return entriesOf(Object.fromEntries([...new Set(params.keys())].map((k) => [k, params.getAll(k)])));
}

describe('the ways a decoded query may have been sent', () => {
  it('include the query as each common client writes it', () => {
    for (const raw of [
      'limit=10',
      'type=payment.completed&resourceId=7d3c0d2e-2b1a-4c8e-9f00-1a2b3c4d5e6f',
      'url=https://wallet.example/alice', // typed, or fetch() of a string URL
      'url=https%3A%2F%2Fwallet.example%2Falice', // URLSearchParams, encodeURIComponent
      'name=a%20b', // encodeURIComponent
      'name=a+b', // URLSearchParams
      'name=%C3%A9t%C3%A9', // non-ASCII, escaped by every client
      'name=O%27Brien', // fetch() escapes a quote in a query
      'q=50%25%20off&x=a%26b', // escapes that carry structure
      'cursor=%%%', // a lone % reaches the function as it is
    ]) {
      expect(sentQueries(decoded(raw)), raw).toContain(raw);
    }
  });

  it('give nothing for no query, and one string when every way agrees', () => {
    expect(sentQueries([])).toEqual(['']);
    expect(sentQueries(decoded('limit=10&cursor=abc_-'))).toEqual(['limit=10&cursor=abc_-']);
  });

  it('never read another query into these parameters', () => {
    const forms = sentQueries(decoded('a=1&b=2'));
    expect(forms).not.toContain('b=2&a=1');
    expect(forms).not.toContain('a=1%26b%3D2');
    expect(sentQueries(decoded('a=1%26b%3D2'))).not.toContain('a=1&b=2');
  });

  it('survive a value no client could have encoded', () => {
    expect(sentQueries([['q', '\ud800']])).toEqual([new URLSearchParams([['q', '\ud800']]).toString()]);
  });
});

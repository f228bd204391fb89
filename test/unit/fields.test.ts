import { describe, expect, it } from 'vitest';
import { queryNewestFirst } from '../../lib/platform/store';

// A domain names the fields of its own operation; where a field came from in a request (the
// query's `cursor`: `query.cursor`) is the adapter's to say (lib/api/http/admin.ts).
describe("a domain's field errors", () => {
  it('name the cursor a list was given, not the query it came in', async () => {
    const list = { table: 't', index: 'i', partitionKey: 'p', sortKey: 's', partitions: ['x'], limit: 1, cursor: 'not a cursor!' };
    await expect(queryNewestFirst(list)).rejects.toMatchObject({ code: 'invalid_cursor', fields: [{ field: 'cursor' }] });
  });
});

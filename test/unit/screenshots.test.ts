import { describe, expect, it } from 'vitest';
import { testPortsIn } from '../browser/screenshots';

// The docs' screenshots show the nodes' default ports, which the README's URLs are, never a test's.
describe("the docs' screenshots", () => {
  it("find a test's port in what a page shows, and no default one", () => {
    // The payments list the README showed: Alice's wallet address on a test's resource server.
    expect(testPortsIn('completed 100.00 USD 92.00 EUR http://localhost:34637/alice 24/11/2026 Trace')).toEqual(['34637']);
    expect(testPortsIn('http://localhost:3002/alice POST localhost:3001/payments http://localhost:4002/bob http://localhost/assets')).toEqual([]);
  });
});

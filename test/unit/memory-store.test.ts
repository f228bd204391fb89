import { describe } from 'vitest';
import { inMemory } from '../harness/in-memory';
import { storeCases } from '../harness/store-cases';

// The store cases on the in-memory database; test/integration/store-cases.test.ts runs the same on
// DynamoDB Local.
describe('the in-memory database', () => {
  const mem = inMemory();
  storeCases(() => mem.node);
});

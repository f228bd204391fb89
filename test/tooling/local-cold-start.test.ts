import { describe, expect, it } from 'vitest';
import { startTestStack } from '../harness/stack';
import { ok } from '../harness/world';

// `npm start` loads every function's module once it is up (infra/local/emulators/lambda.ts, preload), as
// Lambda initializes a container before its first request: a first request locally waited for
// the import of its module (the TypeScript compiled, the AWS SDK and lib/ evaluated, on the thread
// every request shares), which raised the template's p99 latency alarm on a loaded machine.
describe('the local runtime, preloading', () => {
  it('has loaded a function before its first request, which is then no cold start', async () => {
    const s = await startTestStack({}, { preload: true, traces: true });
    try {
      await s.preloaded;
      await ok(s.admin('GET', '/assets'), 200);
      const [request] = s.traces!.recent(1);
      expect(request.name).toBe('GET /assets');
      const invocation = s.traces!.trace(request.id)!.documents.find((d) => d.name === 'assetsList');
      expect(invocation?.annotations).toMatchObject({ ColdStart: false });
    } finally {
      await s.stop();
    }
  });
});

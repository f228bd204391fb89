import { execFile } from 'node:child_process';
import { describe, expect, it } from 'vitest';

// Ports picked for servers that listen later (a test's stack, its FSP simulator): two test workers
// picking at once, each holding its picks unheard, must never be given the same port (a CI run
// failed with EADDRINUSE when they were).
const EACH = 150;
const picks = () =>
  new Promise<number[]>((ok, fail) =>
    execFile(
      process.execPath,
      [
        '--import',
        'tsx',
        '-e',
        `import(${JSON.stringify(new URL('../../infra/local/emulators/emulators.ts', import.meta.url).pathname)}).then(async ({ freePort }) =>
          console.log(JSON.stringify(await Promise.all(Array.from({ length: ${EACH} }, freePort)))))`,
      ],
      (error, stdout) => (error ? fail(error) : ok(JSON.parse(stdout))),
    ),
  );

describe('freePort', () => {
  it('gives no port twice, to two processes picking at once, none listening yet', async () => {
    const [one, two] = await Promise.all([picks(), picks()]);
    expect([one.length, two.length]).toEqual([EACH, EACH]);
    expect(new Set([...one, ...two]).size).toBe(2 * EACH);
  });
});

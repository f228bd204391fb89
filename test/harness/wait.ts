// Polls `probe` every `intervalMs` until it returns a value, or fails naming what it waited for.
// The timeout is a backstop for a condition that never comes, not a clock the test runs on: far
// beyond what a loaded 2-core machine needs (two test runs at once), and under the test's own
// backstop (vitest.config.ts), so that the failure names what it waited for.
export async function waitFor<T>(what: string, probe: () => Promise<T | undefined>, timeoutMs = 180_000, intervalMs = 20): Promise<T> {
  const deadline = performance.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (performance.now() > deadline) throw new Error(`Timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, intervalMs));
  }
}

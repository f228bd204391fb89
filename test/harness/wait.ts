// Polls `probe` until it returns a value, or fails naming what it waited for. The timeout is a
// backstop for a condition that never comes, not a clock the test runs on: far beyond what a loaded
// 2-core machine needs (two test runs at once), and under the test's own backstop
// (vitest.config.ts), so that the failure names what it waited for.
// The first probe comes at once, the next after `intervalMs`, and each pause after that is half as
// long again, up to SLOWEST_MS (or `intervalMs`, if longer): a probe is a request through the stack,
// which takes CPU from the very work it waits for, so a wait of seconds probes a few dozen times, not
// hundreds, and a quick one is still seen within milliseconds.
const SLOWEST_MS = 250;
export async function waitFor<T>(what: string, probe: () => Promise<T | undefined>, timeoutMs = 180_000, intervalMs = 20): Promise<T> {
  const deadline = performance.now() + timeoutMs;
  const slowest = Math.max(intervalMs, SLOWEST_MS);
  for (let pause = intervalMs; ; pause = Math.min(slowest, pause * 1.5)) {
    const value = await probe();
    if (value !== undefined) return value;
    if (performance.now() > deadline) throw new Error(`Timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, pause));
  }
}

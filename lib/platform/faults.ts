import { injectedFaults } from './runtime';

// Named points where the payment path can be made to crash on purpose (PAYMENT_FAULTS=a,b), to
// prove that a crash there loses nothing. Unset in every real deployment.
export function crashPoint(name: string): void {
  if (injectedFaults().includes(name)) throw new Error(`Injected crash at ${name}`);
}

// Named points where work can be made to stop on purpose (PAYMENT_FAULTS=hold:<name>): it waits
// there for ever, so that a test can kill the process with the work cut at that point (e.g. a
// funding whose Idempotency-Key is taken and whose transaction has not run).
export async function holdPoint(name: string): Promise<void> {
  if (injectedFaults().includes(`hold:${name}`)) await new Promise<never>(() => undefined);
}

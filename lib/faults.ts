import { injectedFaults } from './runtime';

// Named points where the payment path can be made to crash on purpose (PAYMENT_FAULTS=a,b), to
// prove that a crash there loses nothing. Unset in every real deployment.
export function crashPoint(name: string): void {
  if (injectedFaults().includes(name)) throw new Error(`Injected crash at ${name}`);
}

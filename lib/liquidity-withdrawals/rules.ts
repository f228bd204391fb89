import type { WithdrawalState } from './schemas';

// How a pending withdrawal ends: posted or voided on request, or voided by its timeout. Only a
// pending one ends; a post only before its timeout, the timeout only from then on (./store.ts
// writes the same rule as the condition of the change, so that of racing ends exactly one commits).
export type Ending = 'post' | 'void' | 'timeout';

export function mayEnd(w: { state: WithdrawalState; expiresAt: string }, ending: Ending, now: string): boolean {
  if (w.state !== 'pending') return false;
  if (ending === 'post') return w.expiresAt > now;
  if (ending === 'timeout') return w.expiresAt <= now;
  return true;
}

export const stateAfter = (ending: Ending): WithdrawalState => (ending === 'post' ? 'posted' : 'voided');

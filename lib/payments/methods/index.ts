import type { MethodName } from '../../quotes/method';
import type { Node } from '../../shared/node';
import type { PaymentMessage } from '../schemas';
import { ilp } from './ilp';
import { local } from './local';
import type { Sending } from './method';

// The payment methods' sending halves, by the name a quote stores (lib/quotes/method.ts) and its
// payment carries; their quoting halves are in ./quote.ts. Code outside the methods knows none of them.
export const sending: Record<MethodName, Sending<any>> = { local, ilp };

// What each method reads ahead from a payment's message (most: nothing), by its name.
export async function readAhead(node: Node, message: PaymentMessage): Promise<Partial<Record<MethodName, unknown>>> {
  const read = await Promise.all(Object.entries(sending).map(async ([name, m]) => [name, await m.readAhead?.(node, message)] as const));
  return Object.fromEntries(read);
}

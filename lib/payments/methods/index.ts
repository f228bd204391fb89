import type { Node } from '../../node';
import type { MethodName } from '../../quotes/method';
import type { PaymentMessage } from '../schemas';
import { ilp } from './ilp';
import { local } from './local';
import type { PaymentMethod } from './method';

// The payment methods by the name a quote stores (lib/quotes/method.ts). Quoting picks one by the
// receiver (./quote.ts); everything after reads it from the quote, or from the payment it was
// carried to. Code outside the methods knows none of them.
export const methods: Record<MethodName, PaymentMethod<any>> = { local, ilp };

// What each method reads ahead from a payment's message (most: nothing), by its name.
export async function readAhead(node: Node, message: PaymentMessage): Promise<Partial<Record<MethodName, unknown>>> {
  const read = await Promise.all(Object.entries(methods).map(async ([name, m]) => [name, await m.readAhead?.(node, message)] as const));
  return Object.fromEntries(read);
}

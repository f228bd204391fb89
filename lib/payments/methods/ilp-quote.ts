import { ilpErrors } from '../../ilp/errors';
import { probe, routeFor } from '../../ilp/quote';
import { readReceiver } from '../../open-payments/client';
import { ilpAmounts } from '../../quotes/pricing';
import type { CreateQuote } from '../../quotes/schemas';
import { amountOf } from '../../shared/amounts';
import type { Node } from '../../shared/node';
import { checkAmounts, type Priced, type Quoting, type Receiver, type Sender, sourceOf, target } from './method';

// The Interledger payment method's quoting (its sending: ./ilp.ts): the incoming payment read over Open Payments,
// the route through the peer towards it probed with @interledger/pay (lib/ilp/quote.ts), priced at the
// rates the probe found by the node's QUOTE_PRICING (lib/quotes/pricing.ts).
// The sender is read before the receiver: reading a remote receiver costs a grant and a read on
// its node, and the probe round trips, which a quote for an unknown wallet address must not.
async function quoteIlp(node: Node, input: CreateQuote, sender: Promise<Sender>): Promise<Priced> {
  const src = sourceOf(await sender);
  const remote = await readReceiver(node, input.receiver);
  if (remote.state !== 'open') throw ilpErrors.receiverNotOpen(`The incoming payment at ${remote.url} is ${remote.state}; it cannot receive payments`);
  const receiver: Receiver = { asset: remote.asset, remaining: remote.incoming === null ? null : remote.incoming - remote.received };
  const wanted = target(input, src, receiver);
  if (wanted.receive !== undefined) checkAmounts(1n, wanted.receive, src, receiver); // before the probe: it costs round trips
  const probed = await probe(node, src, remote, await routeFor(node, remote, src), wanted);
  const fraction = ([num, den]: [string, string]) => ({ num: BigInt(num), den: BigInt(den) });
  const { debit, receive } = ilpAmounts(node.quotePricing, wanted, { low: fraction(probed.details.lowRate), min: fraction(probed.details.minRate) });
  checkAmounts(debit, receive, src, receiver);
  return {
    receiver: remote.url,
    debitAmount: amountOf(debit, src),
    receiveAmount: amountOf(receive, remote.asset),
    estimatedExchangeRate: probed.estimatedExchangeRate,
    method: 'ilp',
    ilp: probed.details,
    ...(remote.expiresAt && { expiresBy: remote.expiresAt }),
  };
}

export const ilpQuoting: Quoting = { quote: quoteIlp };

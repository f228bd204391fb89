import { ilpErrors } from '../../ilp/errors';
import { probe, routeFor } from '../../ilp/quote';
import { paymentPointerUrl, quoteSpsp } from '../../ilp/spsp-pay';
import { readReceiver } from '../../open-payments/client';
import { quoteErrors } from '../../quotes/errors';
import { ilpAmounts } from '../../quotes/pricing';
import type { CreateQuote } from '../../quotes/schemas';
import { amountOf } from '../../shared/amounts';
import type { Node } from '../../shared/node';
import { checkAmounts, type Priced, type Quoting, type Receiver, type Sender, sourceOf, target } from './method';

// The Interledger payment method's quoting (its sending: ./ilp.ts): the incoming payment read over Open Payments
// (or a payment pointer's STREAM connection, over SPSP: lib/ilp/spsp.ts), the route through the peer towards it
// probed with @interledger/pay (lib/ilp/quote.ts), priced at the rates the probe found by the node's
// QUOTE_PRICING (lib/quotes/pricing.ts).
// The sender is read before the receiver: reading a remote receiver costs a grant and a read on
// its node, and the probe round trips, which a quote for an unknown wallet address must not.
async function quoteIlp(node: Node, input: CreateQuote, sender: Promise<Sender>): Promise<Priced> {
  const src = sourceOf(await sender);
  const spsp = paymentPointerUrl(input.receiver); // a malformed pointer is 400, before any round trip
  // A payment pointer asks for no amount: the sender must name one (checked before the round trips).
  if (spsp && !input.debitAmount && !input.receiveAmount) throw quoteErrors.amountRequired();
  const { remote, route } = spsp ? await quoteSpsp(node, spsp, src) : await incomingPayment(node, input.receiver, src);
  const receiver: Receiver = { asset: remote.asset, remaining: remote.incoming === null ? null : remote.incoming - remote.received };
  const wanted = target(input, src, receiver);
  if (wanted.receive !== undefined) checkAmounts(1n, wanted.receive, src, receiver); // before the probe: it costs round trips
  const probed = await probe(node, src, remote, route, wanted);
  const fraction = ([num, den]: [string, string]) => ({ num: BigInt(num), den: BigInt(den) });
  const { debit, receive } = ilpAmounts(node.quotePricing, wanted, { low: fraction(probed.details.lowRate), min: fraction(probed.details.minRate) });
  checkAmounts(debit, receive, src, receiver);
  return {
    receiver: remote.url,
    debitAmount: amountOf(debit, src),
    receiveAmount: amountOf(receive, remote.asset),
    estimatedExchangeRate: probed.estimatedExchangeRate,
    method: 'ilp',
    ilp: { ...probed.details, ...(spsp && { spsp: true as const }) },
    ...(remote.expiresAt && { expiresBy: remote.expiresAt }),
  };
}

// An incoming payment on another node, open, and the route to it.
async function incomingPayment(node: Node, receiver: string, src: { code: string; scale: number }) {
  const remote = await readReceiver(node, receiver);
  if (remote.state !== 'open') throw ilpErrors.receiverNotOpen(`The incoming payment at ${remote.url} is ${remote.state}; it cannot receive payments`);
  return { remote, route: await routeFor(node, remote, src) };
}

export const ilpQuoting: Quoting = { quote: quoteIlp };

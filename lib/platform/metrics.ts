import { Metrics, MetricUnit } from '@aws-lambda-powertools/metrics';
import { logger, serviceName } from './log';

// The service's CloudWatch metrics, written as EMF log lines by Powertools Metrics, in the
// namespace PaymentService (the service's own, as its name is: lib/platform/log.ts), each with the
// dimension `service`. Domain code calls the helpers below. Plain counts are stored and published
// once, at the end of each invocation (withMetrics); payments, which carry dimensions of their own,
// are published at once, each as its own EMF document, because dimensions apply to a whole
// document and one invocation ends payments in several ways. POWERTOOLS_METRICS_DISABLED=true keeps them
// all quiet (the local run, the tests).

// Every metric's name (the dashboard and its test read them here).
export const METRICS = {
  payments: 'Payments',
  paymentsReceived: 'PaymentsReceived',
  webhookAttempts: 'WebhookAttempts',
  webhookAttemptsFailed: 'WebhookAttemptsFailed',
  webhookEventsParked: 'WebhookEventsParked',
  ratePulls: 'RatePulls',
  ratePullsFailed: 'RatePullsFailed',
  ledgerConflictsRetried: 'LedgerConflictsRetried',
} as const;

// Made at the first metric, not at import: Powertools reads POWERTOOLS_METRICS_DISABLED when it is
// made, and the local run sets that after importing this module.
let instance: Metrics | undefined;
const metrics = () => (instance ??= new Metrics({ namespace: 'PaymentService', serviceName, logger }));

const count = (name: string) => metrics().addMetric(name, MetricUnit.Count, 1);
// The one single-metric instance, kept: each addMetric publishes its document at once and clears
// its dimensions, so the next starts bare; a new one per payment (Powertools' singleMetric()) read
// the environment and made a Console each time.
let kept: Metrics | undefined;
const singleMetric = () => (kept ??= metrics().singleMetric());

// A payment's end: completed or failed by the worker (a failure with its reason, a fixed code),
// or cancelled before it was funded. Payments by `outcome`, and failed ones by `reason` too.
export function countPayment(outcome: 'completed' | 'failed' | 'cancelled', reason?: string): void {
  const single = singleMetric();
  single.addDimension('outcome', outcome);
  if (reason) single.addDimensions({ reason });
  single.addMetric(METRICS.payments, MetricUnit.Count, 1);
}

// A payment received: a payment intent credited by a local payment, or by the first packet of an
// Interledger payment (its later packets are the same payment). By `via`, on the node that receives.
export function countPaymentReceived(via: 'local' | 'interledger'): void {
  const single = singleMetric();
  single.addDimension('via', via);
  single.addMetric(METRICS.paymentsReceived, MetricUnit.Count, 1);
}

// One POST of an event to the FSP's webhook URL; `delivered` when it answered 2xx.
export function countWebhookAttempt(delivered: boolean): void {
  count(METRICS.webhookAttempts);
  if (!delivered) count(METRICS.webhookAttemptsFailed);
}

// An event put on the parking queue: its retries are used up, or its sender gave up on it.
export const countWebhookParked = () => count(METRICS.webhookEventsParked);

// One GET of the FSP's rates endpoint; `ok` when it answered a valid rates document.
export function countRatePull(ok: boolean): void {
  count(METRICS.ratePulls);
  if (!ok) count(METRICS.ratePullsFailed);
}

// A transaction cancelled for a conflict with another one, about to be retried.
export const countLedgerConflict = () => count(METRICS.ledgerConflictsRetried);

// Publishes what this invocation stored; nothing (and no Powertools warning) when it stored none.
function flushMetrics(): void {
  if (instance?.hasStoredMetrics()) instance.publishStoredMetrics();
}

// A Lambda handler that flushes the metrics at the end of every invocation, even a failed one.
export const withMetrics =
  <E, C, R>(handler: (event: E, context: C) => Promise<R>) =>
  async (event: E, context: C): Promise<R> => {
    try {
      return await handler(event, context);
    } finally {
      flushMetrics();
    }
  };

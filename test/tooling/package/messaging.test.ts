import { beforeAll, describe, expect, it } from 'vitest';
import { loadService } from '../../../infra/local/start/serverless-config';
import { OUTBOX_RETENTION_SECS } from '../../../lib/platform/events';
import { PAYMENTS_MAX_RECEIVES, WEBHOOK_MAX_RECEIVES } from '../../../lib/shared/limits';
import { alarmsOf, BACKSTOP_MS, calledFunction, functionId, loadPackaged, ofType, refusal, STAGE, STAGE_KEY, template } from './packaged';

// The queues, the bus, the schedules and the outbox relay's stream: who feeds what, retries, dead letters and the limits the code relies on.
// The production template is packaged once for the run (./packaged.ts).

beforeAll(loadPackaged, BACKSTOP_MS);

describe('queues, the bus and the stream', () => {
  it('reserves concurrency for the payment worker and the outbox relay', () => {
    const fns = Object.fromEntries(ofType('AWS::Lambda::Function'));
    expect(fns.PaymentsWorkerLambdaFunction.Properties.ReservedConcurrentExecutions).toBe(50);
    expect(fns.OutboxRelayLambdaFunction.Properties.ReservedConcurrentExecutions).toBe(30);
  });

  it("gives each queue a visibility timeout of at least six times its consumer's timeout, and each consumer a maximum concurrency", () => {
    const functions = Object.fromEntries(ofType('AWS::Lambda::Function'));
    const queues = Object.fromEntries(ofType('AWS::SQS::Queue'));
    const mappings = ofType('AWS::Lambda::EventSourceMapping')
      .map(([, m]) => m.Properties)
      .filter((m) => m.EventSourceArn['Fn::GetAtt'][1] === 'Arn');
    expect(mappings).toHaveLength(2);
    for (const m of mappings) {
      const queue = m.EventSourceArn['Fn::GetAtt'][0];
      const fn = functions[calledFunction(m.FunctionName)!];
      expect(queues[queue].Properties.VisibilityTimeout, queue).toBeGreaterThanOrEqual(6 * fn.Properties.Timeout);
      expect(m.ScalingConfig?.MaximumConcurrency, queue).toBeGreaterThanOrEqual(2);
    }
  });

  it('parks webhook events that used up their retries on a queue of their own, apart from the dead-letter queues', () => {
    const queues = Object.fromEntries(ofType('AWS::SQS::Queue'));
    const redriveTargets = Object.values(queues).flatMap((q) =>
      q.Properties.RedrivePolicy ? [q.Properties.RedrivePolicy.deadLetterTargetArn['Fn::GetAtt'][0]] : [],
    );
    expect(queues.WebhookParkingQueue).toBeDefined();
    expect(redriveTargets).not.toContain('WebhookParkingQueue');
    const sender = Object.fromEntries(ofType('AWS::Lambda::Function')).WebhooksDeliverLambdaFunction;
    expect(sender.Properties.Environment.Variables.WEBHOOK_PARKING_QUEUE_URL).toEqual({ Ref: 'WebhookParkingQueue' });
  });

  it("retries the webhook rule's target for a day, then dead-letters it; and archives every event", () => {
    const rules = Object.fromEntries(ofType('AWS::Events::Rule'));
    const [target] = rules.WebhookRule.Properties.Targets;
    expect(target.RetryPolicy).toEqual({ MaximumRetryAttempts: 185, MaximumEventAgeInSeconds: 86400 });
    expect(target.DeadLetterConfig).toEqual({ Arn: { 'Fn::GetAtt': ['EventsDeadLetterQueue', 'Arn'] } });
    const policies = ofType('AWS::SQS::QueuePolicy').map(([, p]) => p.Properties);
    expect(
      policies.some((p) => p.Queues[0].Ref === 'EventsDeadLetterQueue' && p.PolicyDocument.Statement[0].Principal.Service === 'events.amazonaws.com'),
    ).toBe(true);
    const [[, archive]] = ofType('AWS::Events::Archive');
    expect(archive.Properties).toMatchObject({ SourceArn: { 'Fn::GetAtt': ['EventBus', 'Arn'] }, RetentionDays: 30 });
  });

  it("stops every API function before API Gateway's 29 s, and keeps every failed scheduled run on a queue that alarms", () => {
    const fns = Object.fromEntries(ofType('AWS::Lambda::Function'));
    const service = loadService(STAGE);
    for (const fn of service.functions.filter((f) => f.events.some((e) => e.http) || /^(openPayments|auth|ilpConnector)/.test(f.name))) {
      const id = functionId(fn.name);
      expect(fns[id].Properties.Timeout, fn.name).toBeLessThanOrEqual(25);
    }
    const scheduled = service.functions.filter((f) => f.events.some((e) => e.schedule)).map((f) => functionId(f.name));
    expect(scheduled.sort()).toEqual([
      'AuditTrailLambdaFunction', // its daily digest
      'LiquidityWithdrawalsExpireLambdaFunction',
      'PaymentIntentsExpireLambdaFunction',
      'PaymentsExpireLambdaFunction',
      'RatesRefreshLambdaFunction',
    ]);
    const configs = ofType('AWS::Lambda::EventInvokeConfig').map(([, c]) => c.Properties);
    for (const fn of scheduled) {
      const config = configs.find((c) => c.FunctionName.Ref === fn);
      expect(config?.DestinationConfig.OnFailure.Destination, fn).toEqual({ 'Fn::GetAtt': ['ScheduledFailuresQueue', 'Arn'] });
    }
  });

  it('has every work queue with a dead-letter queue', () => {
    const queues = Object.fromEntries(ofType('AWS::SQS::Queue'));
    for (const name of ['PaymentsQueue', 'WebhookQueue']) {
      const target = queues[name].Properties.RedrivePolicy.deadLetterTargetArn['Fn::GetAtt'][0];
      expect(queues[target], `${name} → ${target}`).toBeDefined();
    }
  });

  it('has the event bus and the rule that feeds the webhook queue', () => {
    const [[busId]] = ofType('AWS::Events::EventBus');
    const rules = Object.fromEntries(ofType('AWS::Events::Rule'));
    expect(rules.WebhookRule.Properties.EventBusName).toEqual({ Ref: busId });
    expect(rules.WebhookRule.Properties.Targets[0].Arn).toEqual({ 'Fn::GetAtt': ['WebhookQueue', 'Arn'] });
  });

  it('schedules the rate refresher and the intent, withdrawal and funding expirers every minute, and the audit digest daily', () => {
    const schedules = ofType('AWS::Events::Rule').filter(([, r]) => r.Properties.ScheduleExpression);
    expect(schedules.map(([, r]) => r.Properties.ScheduleExpression).sort()).toEqual(['cron(30 0 * * ? *)', ...Array(4).fill('rate(1 minute)')]);
  });

  it('triggers the payment worker and the webhook sender from their queues, with partial batch responses', () => {
    const mappings = ofType('AWS::Lambda::EventSourceMapping').map(([, m]) => m.Properties);
    const queues = mappings.filter((m) => m.EventSourceArn['Fn::GetAtt'][1] === 'Arn');
    expect(queues.map((m) => m.EventSourceArn['Fn::GetAtt'][0]).sort()).toEqual(['PaymentsQueue', 'WebhookQueue']);
    // (The audit trail writes a stream batch as one object, whole or not at all.)
    for (const m of mappings.filter((m) => calledFunction(m.FunctionName) !== functionId('auditTrail')))
      expect(m.FunctionResponseTypes).toEqual(['ReportBatchItemFailures']);
  });

  it("feeds the outbox relay from the main table's stream, filtered to new outbox items, and lets it read the stream", () => {
    const tables = Object.fromEntries(ofType('AWS::DynamoDB::Table'));
    expect(tables.MainTable.Properties.StreamSpecification).toMatchObject({ StreamViewType: 'NEW_AND_OLD_IMAGES' }); // the audit trail reads the old images; and its resource policy (separated-duties.test.ts)
    const streams = ofType('AWS::Lambda::EventSourceMapping')
      .map(([, m]) => m.Properties)
      .filter((m) => m.EventSourceArn['Fn::GetAtt'][1] === 'StreamArn');
    // A DynamoDB stream serves at most two readers per shard: the relay and the audit trail.
    expect(streams.map((m) => calledFunction(m.FunctionName)).sort()).toEqual(['AuditTrailLambdaFunction', 'OutboxRelayLambdaFunction']);
    const relay = streams.find((m) => calledFunction(m.FunctionName) === 'OutboxRelayLambdaFunction')!;
    expect(relay.EventSourceArn).toEqual({ 'Fn::GetAtt': ['MainTable', 'StreamArn'] });
    expect(calledFunction(relay.FunctionName)).toBe('OutboxRelayLambdaFunction');
    expect(relay.BisectBatchOnFunctionError).toBe(true);
    expect(relay.FunctionResponseTypes).toEqual(['ReportBatchItemFailures']);
    expect(relay.FilterCriteria.Filters.map((f: { Pattern: string }) => JSON.parse(f.Pattern))).toEqual([
      { eventName: ['INSERT'], dynamodb: { NewImage: { sk: { S: [{ prefix: 'OUT#' }] } } } },
    ]);
    const statements = ofType('AWS::IAM::Role').flatMap(([, r]) => (r.Properties.Policies ?? []).flatMap((p: any) => p.PolicyDocument.Statement));
    const allows = (action: string, resource: unknown) =>
      statements.some((st: any) => st.Action.includes(action) && st.Resource.some((r: unknown) => JSON.stringify(r) === JSON.stringify(resource)));
    expect(allows('dynamodb:GetRecords', { 'Fn::GetAtt': ['MainTable', 'StreamArn'] })).toBe(true);
    expect(allows('events:PutEvents', { 'Fn::GetAtt': ['EventBus', 'Arn'] })).toBe(true);
    expect(allows('sqs:SendMessage', { 'Fn::GetAtt': ['PaymentsQueue', 'Arn'] })).toBe(true);
  });

  // A record the relay reported failed was retried until the stream dropped it after 24 hours, and
  // held up its shard meanwhile; nothing alarmed.
  it("bounds the relay's retries and record age and parks what it could not send on a queue of its own, which alarms and only Lambda feeds", () => {
    const [relay] = ofType('AWS::Lambda::EventSourceMapping')
      .map(([, m]) => m.Properties)
      .filter((m) => m.EventSourceArn['Fn::GetAtt'][1] === 'StreamArn');
    expect(relay).toMatchObject({ MaximumRetryAttempts: 100, MaximumRecordAgeInSeconds: 3600, BisectBatchOnFunctionError: true });
    expect(relay.DestinationConfig).toEqual({ OnFailure: { Destination: { 'Fn::GetAtt': ['RelayFailuresQueue', 'Arn'] } } });
    const queue = template.Resources.RelayFailuresQueue.Properties;
    expect(queue).toMatchObject({ MessageRetentionPeriod: 1209600, KmsMasterKeyId: STAGE_KEY });
    // The outbox items a parked record points at outlive it: a record parked on its last day can still be re-driven.
    expect(OUTBOX_RETENTION_SECS).toBeGreaterThan(queue.MessageRetentionPeriod);
    expect(
      alarmsOf()
        .map(([, a]) => a.Properties)
        .find((a) => a.Dimensions?.[0].Value['Fn::GetAtt']?.[0] === 'RelayFailuresQueue'),
    ).toMatchObject({
      MetricName: 'ApproximateNumberOfMessagesVisible',
      Threshold: 1,
      ComparisonOperator: 'GreaterThanOrEqualToThreshold',
    });
    // Lambda parks the records with the relay's role: the only principal the queue's policy lets send.
    const policy = ofType('AWS::SQS::QueuePolicy')
      .map(([, p]) => p.Properties)
      .find((p) => p.Queues.some((q: any) => q.Ref === 'RelayFailuresQueue'));
    expect(policy.PolicyDocument.Statement).toContainEqual(
      expect.objectContaining({ Effect: 'Deny', Condition: { ArnNotEquals: { 'aws:PrincipalArn': [{ 'Fn::GetAtt': ['OutboxRelayRole', 'Arn'] }] } } }),
    );
    const refused = refusal({ RELAY_MAX_RETRY_ATTEMPTS: '-1', RELAY_MAX_RECORD_AGE_SECS: '172800' });
    expect(refused).toContain('RELAY_MAX_RETRY_ATTEMPTS: must be a whole number from 0 to 10000');
    expect(refused).toContain('RELAY_MAX_RECORD_AGE_SECS: must be a whole number from 60 to 86400');
  });

  // Its reservation (30) was below its parallelization factor (10) times the 4 or more shards of a
  // new on-demand table's stream: throttled, and the stream lagging, under load.
  it("reserves the outbox relay enough concurrency for its parallelization on every shard of a new table's stream, and refuses less", () => {
    const [mapping] = ofType('AWS::Lambda::EventSourceMapping').filter(([, m]) => m.Properties.EventSourceArn['Fn::GetAtt'][1] === 'StreamArn');
    const relay = template.Resources.OutboxRelayLambdaFunction.Properties;
    expect(mapping[1].Properties.ParallelizationFactor).toBe(2);
    expect(relay.ReservedConcurrentExecutions).toBeGreaterThanOrEqual(mapping[1].Properties.ParallelizationFactor * 4);
    expect(refusal({ RELAY_RESERVED_CONCURRENCY: '7' })).toContain(
      "RELAY_RESERVED_CONCURRENCY: 7 is below 8, the parallelization factor 2 times a new table stream's 4 shards",
    );
  });
});

describe('failure queues', () => {
  it('keeps every message 14 days, in every queue', () => {
    for (const [id, q] of ofType('AWS::SQS::Queue')) expect(q.Properties.MessageRetentionPeriod, id).toBe(1209600);
  });
});

describe('limits the code relies on', () => {
  it('gives up on a message on the last receive its queue allows', () => {
    const queues = Object.fromEntries(ofType('AWS::SQS::Queue'));
    expect(queues.PaymentsQueue.Properties.RedrivePolicy.maxReceiveCount).toBe(PAYMENTS_MAX_RECEIVES);
    expect(queues.WebhookQueue.Properties.RedrivePolicy.maxReceiveCount).toBe(WEBHOOK_MAX_RECEIVES);
  });
});

'use strict';

// Alarms and one dashboard, made from the packaged template itself, so that every function, queue
// and API has them without a list to keep in step with serverless.yml:
// - each function: any error, any throttle, over 5 minutes;
// - each dead-letter queue (one that a queue's RedrivePolicy, a rule's target, a function's failed
//   async invocations or a stream mapping's failed records send to) and each
//   queue named in custom.alarms.parkingQueues: any message in it (it waits for a person);
// - each queue that has a dead-letter queue (the work queues): its oldest message older than
//   custom.alarms.oldestMessageSecs (work is stuck or too slow);
// - each REST API: any 5xx answer over 5 minutes, and a p99 latency over custom.alarms.apiP99Ms;
// - each function fed by a DynamoDB stream (the outbox relay): its iterator age over
//   custom.alarms.iteratorAgeSecs (the relay is stalled or behind, and every event waits);
// - each table: any read or write throttled.
// Every alarm notifies AlarmTopic (infra/resources.yml), or the topic custom.alarms.topicArn names. The dashboard adds the service's own
// metrics (lib/metrics.ts: Powertools EMF in POWERTOOLS_METRICS_NAMESPACE) to the AWS ones.
const PERIOD = 300;

class Alarms {
  constructor(serverless, options) {
    this.hooks = {
      'after:aws:package:finalize:mergeCustomProviderResources': () => {
        const resources = serverless.service.provider.compiledCloudFormationTemplate.Resources;
        const settings = serverless.service.custom?.alarms ?? {};
        const stage = options.stage ?? serverless.service.provider.stage;
        // The namespace the functions write their metrics to.
        const namespace = serverless.service.provider.environment.POWERTOOLS_METRICS_NAMESPACE;
        build(resources, {
          stage,
          namespace,
          parkingQueues: settings.parkingQueues ?? [],
          oldestMessageSecs: Number(settings.oldestMessageSecs ?? 600),
          iteratorAgeSecs: Number(settings.iteratorAgeSecs ?? 60),
          apiP99Ms: Number(settings.apiP99Ms ?? 2000),
          topic: settings.topicArn ? settings.topicArn : { Ref: 'AlarmTopic' },
        });
      },
    };
  }
}

function build(resources, { stage, namespace, parkingQueues, oldestMessageSecs, iteratorAgeSecs, apiP99Ms, topic }) {
  const ids = (type) => Object.keys(resources).filter((id) => resources[id].Type === type);
  const functions = ids('AWS::Lambda::Function');
  const queues = ids('AWS::SQS::Queue');
  const apis = ids('AWS::ApiGateway::RestApi').map((id) => ({ id, name: resources[id].Properties.Name }));
  const arnOf = (v) => (v?.['Fn::GetAtt']?.[1] === 'Arn' ? v['Fn::GetAtt'][0] : undefined);
  const deadLetter = new Set([
    ...queues.map((id) => arnOf(resources[id].Properties.RedrivePolicy?.deadLetterTargetArn)),
    ...ids('AWS::Events::Rule').flatMap((id) => (resources[id].Properties.Targets ?? []).map((t) => arnOf(t.DeadLetterConfig?.Arn))),
    ...ids('AWS::Lambda::EventInvokeConfig').map((id) => arnOf(resources[id].Properties.DestinationConfig?.OnFailure?.Destination)),
    ...ids('AWS::Lambda::EventSourceMapping').map((id) => arnOf(resources[id].Properties.DestinationConfig?.OnFailure?.Destination)),
  ]);
  const holding = queues.filter((id) => deadLetter.has(id) || parkingQueues.includes(id));
  const working = queues.filter((id) => resources[id].Properties.RedrivePolicy);
  const tables = ids('AWS::DynamoDB::Table');
  const streamConsumers = ids('AWS::Lambda::EventSourceMapping')
    .map((id) => resources[id].Properties)
    .filter((m) => m.EventSourceArn?.['Fn::GetAtt']?.[1] === 'StreamArn')
    .map((m) => m.FunctionName['Fn::GetAtt'][0]);

  const alarm = (id, description, metric) => {
    resources[id] = {
      Type: 'AWS::CloudWatch::Alarm',
      Properties: {
        AlarmDescription: description,
        ComparisonOperator: 'GreaterThanOrEqualToThreshold',
        EvaluationPeriods: 1,
        Period: PERIOD,
        TreatMissingData: 'notBreaching',
        AlarmActions: [topic],
        OKActions: [topic],
        ...metric,
      },
    };
  };
  for (const fn of functions) {
    const dims = [{ Name: 'FunctionName', Value: { Ref: fn } }];
    alarm(`${fn}ErrorsAlarm`, `${fn} failed (an error or a timeout)`, {
      Namespace: 'AWS/Lambda',
      MetricName: 'Errors',
      Dimensions: dims,
      Statistic: 'Sum',
      Threshold: 1,
    });
    alarm(`${fn}ThrottlesAlarm`, `${fn} was throttled`, { Namespace: 'AWS/Lambda', MetricName: 'Throttles', Dimensions: dims, Statistic: 'Sum', Threshold: 1 });
  }
  for (const q of holding) {
    alarm(`${q}DepthAlarm`, `Messages wait in ${q} for a person to look at them`, {
      Namespace: 'AWS/SQS',
      MetricName: 'ApproximateNumberOfMessagesVisible',
      Dimensions: [{ Name: 'QueueName', Value: { 'Fn::GetAtt': [q, 'QueueName'] } }],
      Statistic: 'Maximum',
      Threshold: 1,
    });
  }
  for (const q of working) {
    alarm(`${q}OldestMessageAlarm`, `The oldest message in ${q} is older than ${oldestMessageSecs} s`, {
      Namespace: 'AWS/SQS',
      MetricName: 'ApproximateAgeOfOldestMessage',
      Dimensions: [{ Name: 'QueueName', Value: { 'Fn::GetAtt': [q, 'QueueName'] } }],
      Statistic: 'Maximum',
      Threshold: oldestMessageSecs,
    });
  }
  const apiDims = (api) => [
    { Name: 'ApiName', Value: api.name },
    { Name: 'Stage', Value: stage },
  ];
  for (const api of apis) {
    alarm(`${api.id}ServerErrorsAlarm`, `${api.id} answered with a 5xx`, {
      Namespace: 'AWS/ApiGateway',
      MetricName: '5XXError',
      Dimensions: apiDims(api),
      Statistic: 'Sum',
      Threshold: 1,
    });
    alarm(`${api.id}LatencyAlarm`, `${api.id}'s p99 latency is over ${apiP99Ms} ms`, {
      Namespace: 'AWS/ApiGateway',
      MetricName: 'Latency',
      Dimensions: apiDims(api),
      ExtendedStatistic: 'p99',
      Threshold: apiP99Ms,
    });
  }
  for (const fn of streamConsumers) {
    alarm(`${fn}IteratorAgeAlarm`, `${fn} is more than ${iteratorAgeSecs} s behind its stream: events and messages wait`, {
      Namespace: 'AWS/Lambda',
      MetricName: 'IteratorAge',
      Dimensions: [{ Name: 'FunctionName', Value: { Ref: fn } }],
      Statistic: 'Maximum',
      Threshold: iteratorAgeSecs * 1000,
    });
  }
  for (const table of tables) {
    for (const kind of ['Read', 'Write']) {
      alarm(`${table}${kind}ThrottlesAlarm`, `${table} throttled ${kind.toLowerCase()}s`, {
        Namespace: 'AWS/DynamoDB',
        MetricName: `${kind}ThrottleEvents`,
        Dimensions: [{ Name: 'TableName', Value: { Ref: table } }],
        Statistic: 'Sum',
        Threshold: 1,
      });
    }
  }

  // The dashboard's body is one Fn::Sub: ${LogicalId} and ${LogicalId.QueueName} name resources.
  const metric = (namespace, name, dims, extra) => [namespace, name, ...dims.flatMap((d) => [d.Name, d.Value]), ...(extra ? [extra] : [])];
  const api = (name, stat) =>
    apis.map((a) =>
      metric(
        'AWS/ApiGateway',
        name,
        [
          { Name: 'ApiName', Value: a.name },
          { Name: 'Stage', Value: stage },
        ],
        { label: `${a.id} ${name}`, stat },
      ),
    );
  const fnMetric = (name, stat) => functions.map((fn) => metric('AWS/Lambda', name, [{ Name: 'FunctionName', Value: `\${${fn}}` }], { label: fn, stat }));
  const queueMetric = (list, name) =>
    list.map((q) => metric('AWS/SQS', name, [{ Name: 'QueueName', Value: `\${${q}.QueueName}` }], { label: q, stat: 'Maximum' }));
  const own = (title, metricNames) => ({
    title,
    // Any dimensions (payments carry their outcome and reason).
    metrics: metricNames.map((m, i) => [{ expression: `SEARCH('Namespace="${namespace}" MetricName="${m}"', 'Sum', ${PERIOD})`, id: `e${i}` }]),
  });
  const widgets = [
    { title: 'API requests', metrics: api('Count', 'Sum') },
    { title: 'API 4xx and 5xx answers', metrics: [...api('4XXError', 'Sum'), ...api('5XXError', 'Sum')] },
    { title: 'API latency (p99, ms)', metrics: api('Latency', 'p99') },
    own('Payments by outcome', ['Payments']),
    own('Webhook attempts, failures and parked events', ['WebhookAttempts', 'WebhookAttemptsFailed', 'WebhookEventsParked']),
    own('Rate pulls and failures', ['RatePulls', 'RatePullsFailed']),
    own('Ledger conflicts retried', ['LedgerConflictsRetried']),
    { title: 'Messages waiting', metrics: queueMetric(queues, 'ApproximateNumberOfMessagesVisible') },
    { title: 'Oldest message (s)', metrics: queueMetric(working, 'ApproximateAgeOfOldestMessage') },
    { title: 'Function errors', metrics: fnMetric('Errors', 'Sum') },
    { title: 'Function throttles', metrics: fnMetric('Throttles', 'Sum') },
    { title: 'Function duration (p99, ms)', metrics: fnMetric('Duration', 'p99') },
  ].map(({ title, metrics }) => ({
    type: 'metric',
    width: 12,
    height: 6,
    // biome-ignore lint/suspicious/noTemplateCurlyInString: Fn::Sub's substitution, not JavaScript's
    properties: { title, metrics, region: '${AWS::Region}', period: PERIOD, view: 'timeSeries', stacked: false },
  }));
  resources.Dashboard = {
    Type: 'AWS::CloudWatch::Dashboard',
    Properties: { DashboardName: `payment-service-${stage}`, DashboardBody: { 'Fn::Sub': JSON.stringify({ widgets }) } },
  };
}

module.exports = Alarms;
module.exports.build = build;

'use strict';

// Alarms and one dashboard, made from the packaged template itself, so that every function, queue
// and API has them without a list to keep in step with serverless.yml:
// - each function: any error over 5 minutes; a run that took 80% of its timeout or more (the next
//   may time out); any throttle, summed over groups of ten functions (metric math: an alarm takes
//   at most ten metrics);
// - each dead-letter queue (one that a queue's RedrivePolicy, a rule's target, a function's failed
//   async invocations or a stream mapping's failed records send to) and each
//   queue named in custom.alarms.parkingQueues: any message in it (it waits for a person);
// - each queue that has a dead-letter queue (the work queues): its oldest message older than
//   custom.alarms.oldestMessageSecs (work is stuck or too slow);
// - each REST API: any 5xx answer over 5 minutes, custom.alarms.api4xx 4xx answers (a spike of
//   refused requests: a client gone wrong, or an attack), and a p99 latency over custom.alarms.apiP99Ms;
// - each function fed by a DynamoDB stream (the outbox relay): its iterator age over
//   custom.alarms.iteratorAgeSecs (the relay is stalled or behind, and every event waits);
// - each table: any read or write throttled;
// - what the business sees, from the service's own metrics (lib/platform/metrics.ts): custom.alarms.paymentsFailed
//   payments failed, custom.alarms.webhookFailures webhook attempts the FSP did not take (its
//   events that used up their retries wait on the parking queue, which alarms at one);
// - silence that means failure (missing data breaches): each scheduled function that has not run in
//   5 minutes (its schedule stopped: a heartbeat), each backup vault with no backup completed in a day;
// - each backup vault: any backup or copy job failed or aborted;
// - each event bus rule: an event it could deliver neither to its target nor to its dead-letter queue
//   (the webhook events' delivery to their queue);
// - the stage's KMS keys: any of them disabled, scheduled for deletion or its rotation turned off
//   (KeyStateRule, a rule on CloudTrail's record of those calls: the account needs a trail).
// Every alarm notifies AlarmTopic (infra/resources.yml), or the topic custom.alarms.topicArn names. The dashboard is
// ./dashboard.cjs's, which the local console draws too; the local run evaluates these alarms (infra/local/emulators/cloudwatch.ts).
// The deploy puts them in a stack of their own (./nested-stacks.cjs).
const { PERIOD, WIDGETS, watched, expand, calledFunction } = require('./dashboard.cjs');

const MAX_ALARM_METRICS = 10; // in one metric math alarm (a hard limit of CloudWatch's)
const NEAR_TIMEOUT = 0.8;
const DAY = 86400;

class Alarms {
  constructor(serverless, options) {
    this.hooks = {
      'after:aws:package:finalize:mergeCustomProviderResources': () => {
        const { custom, provider } = serverless.service;
        build(provider.compiledCloudFormationTemplate.Resources, settingsOf(custom, options.stage ?? provider.stage, provider.environment));
      },
    };
  }
}

// build's settings from serverless.yml's custom.alarms, its stage and provider.environment (the
// namespace the functions write their metrics to).
function settingsOf(custom, stage, environment) {
  const settings = custom?.alarms ?? {};
  return {
    stage,
    namespace: environment.POWERTOOLS_METRICS_NAMESPACE,
    parkingQueues: settings.parkingQueues ?? [],
    oldestMessageSecs: Number(settings.oldestMessageSecs ?? 600),
    iteratorAgeSecs: Number(settings.iteratorAgeSecs ?? 60),
    apiP99Ms: Number(settings.apiP99Ms ?? 2000),
    api4xx: Number(settings.api4xx ?? 500),
    paymentsFailed: Number(settings.paymentsFailed ?? 1),
    webhookFailures: Number(settings.webhookFailures ?? 10),
    serviceName: environment.POWERTOOLS_SERVICE_NAME,
    topic: settings.topicArn ? settings.topicArn : { Ref: 'AlarmTopic' },
  };
}

function build(resources, s) {
  const { stage, namespace, parkingQueues, oldestMessageSecs, iteratorAgeSecs, apiP99Ms, api4xx, topic } = s;
  const ids = (type) => Object.keys(resources).filter((id) => resources[id].Type === type);
  const sets = watched(resources);
  const { functions, queues, workQueues: working, apis, streamConsumers } = sets;
  const arnOf = (v) => (v?.['Fn::GetAtt']?.[1] === 'Arn' ? v['Fn::GetAtt'][0] : undefined);
  const deadLetter = new Set([
    ...queues.map((id) => arnOf(resources[id].Properties.RedrivePolicy?.deadLetterTargetArn)),
    ...ids('AWS::Events::Rule').flatMap((id) => (resources[id].Properties.Targets ?? []).map((t) => arnOf(t.DeadLetterConfig?.Arn))),
    ...ids('AWS::Lambda::EventInvokeConfig').map((id) => arnOf(resources[id].Properties.DestinationConfig?.OnFailure?.Destination)),
    ...ids('AWS::Lambda::EventSourceMapping').map((id) => arnOf(resources[id].Properties.DestinationConfig?.OnFailure?.Destination)),
  ]);
  const holding = queues.filter((id) => deadLetter.has(id) || parkingQueues.includes(id));
  const tables = ids('AWS::DynamoDB::Table');

  const alarm = (id, description, metric) => {
    resources[id] = {
      Type: 'AWS::CloudWatch::Alarm',
      Properties: {
        AlarmDescription: description,
        ComparisonOperator: 'GreaterThanOrEqualToThreshold',
        EvaluationPeriods: 1,
        ...(!metric.Metrics && { Period: PERIOD }), // a metric math alarm gives each metric's period
        TreatMissingData: 'notBreaching',
        AlarmActions: [topic],
        OKActions: [topic],
        ...metric,
      },
    };
  };
  const ofFunction = (fn) => [{ Name: 'FunctionName', Value: { Ref: fn } }];
  for (const fn of functions) {
    alarm(`${fn}ErrorsAlarm`, `${fn} failed (an error or a timeout)`, {
      Namespace: 'AWS/Lambda',
      MetricName: 'Errors',
      Dimensions: ofFunction(fn),
      Statistic: 'Sum',
      Threshold: 1,
    });
    const timeoutMs = resources[fn].Properties.Timeout * 1000;
    alarm(`${fn}NearTimeoutAlarm`, `${fn} ran ${NEAR_TIMEOUT * 100}% of its ${timeoutMs / 1000} s timeout or more`, {
      Namespace: 'AWS/Lambda',
      MetricName: 'Duration',
      Dimensions: ofFunction(fn),
      Statistic: 'Maximum',
      Threshold: NEAR_TIMEOUT * timeoutMs,
    });
  }
  const sorted = [...functions].sort();
  for (let g = 0; g * MAX_ALARM_METRICS < sorted.length; g++) {
    const group = sorted.slice(g * MAX_ALARM_METRICS, (g + 1) * MAX_ALARM_METRICS);
    alarm(`FunctionThrottles${g + 1}Alarm`, `One of ${group.join(', ')} was throttled (the dashboard's Function throttles says which)`, {
      Metrics: [
        ...group.map((fn, i) => ({
          Id: `m${i}`,
          MetricStat: { Metric: { Namespace: 'AWS/Lambda', MetricName: 'Throttles', Dimensions: ofFunction(fn) }, Period: PERIOD, Stat: 'Sum' },
          ReturnData: false,
        })),
        { Id: 'throttles', Expression: `SUM([${group.map((_, i) => `m${i}`).join(',')}])`, ReturnData: true },
      ],
      Threshold: 1,
    });
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
    alarm(`${api.id}ClientErrorsAlarm`, `${api.id} answered ${api4xx} or more 4xx in 5 minutes`, {
      Namespace: 'AWS/ApiGateway',
      MetricName: '4XXError',
      Dimensions: apiDims(api),
      Statistic: 'Sum',
      Threshold: api4xx,
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

  const own = (name, dimensions) => ({
    Namespace: namespace,
    MetricName: name,
    Dimensions: Object.entries(dimensions).map(([Name, Value]) => ({ Name, Value })),
  });
  alarm('PaymentsFailedAlarm', `${s.paymentsFailed} or more payments failed in 5 minutes (the dashboard's Payments by outcome has their reasons)`, {
    ...own('Payments', { service: s.serviceName, outcome: 'failed' }),
    Statistic: 'Sum',
    Threshold: s.paymentsFailed,
  });
  alarm('WebhookAttemptsFailedAlarm', `The FSP's webhook endpoint failed ${s.webhookFailures} or more attempts in 5 minutes (they are retried)`, {
    ...own('WebhookAttemptsFailed', { service: s.serviceName }),
    Statistic: 'Sum',
    Threshold: s.webhookFailures,
  });

  // Silence that means failure: a schedule that stopped, a day without a backup.
  // (Every minute's: a daily schedule, the audit digest, is silent most of any 5 minutes.)
  const scheduled = ids('AWS::Events::Rule')
    .filter((id) => resources[id].Properties.ScheduleExpression === 'rate(1 minute)')
    .flatMap((id) => (resources[id].Properties.Targets ?? []).map((t) => calledFunction(resources, t.Arn)))
    .filter((fn) => resources[fn]?.Type === 'AWS::Lambda::Function');
  for (const fn of scheduled) {
    alarm(`${fn}HeartbeatAlarm`, `${fn} has not run in 5 minutes: its schedule stopped`, {
      Namespace: 'AWS/Lambda',
      MetricName: 'Invocations',
      Dimensions: ofFunction(fn),
      Statistic: 'Sum',
      ComparisonOperator: 'LessThanThreshold',
      Threshold: 1,
      TreatMissingData: 'breaching',
    });
  }
  for (const vault of ids('AWS::Backup::BackupVault')) {
    const ofVault = (name) => ({ Namespace: 'AWS/Backup', MetricName: name, Dimensions: [{ Name: 'BackupVaultName', Value: { Ref: vault } }] });
    const failures = ['NumberOfBackupJobsFailed', 'NumberOfBackupJobsAborted', 'NumberOfCopyJobsFailed'];
    alarm(`${vault}JobsFailedAlarm`, `A backup or copy job of ${vault} failed or was aborted`, {
      Metrics: [
        ...failures.map((name, i) => ({ Id: `m${i}`, MetricStat: { Metric: ofVault(name), Period: PERIOD, Stat: 'Sum' }, ReturnData: false })),
        { Id: 'failed', Expression: `SUM([${failures.map((_, i) => `m${i}`).join(',')}])`, ReturnData: true },
      ],
      Threshold: 1,
    });
    alarm(`${vault}NoBackupAlarm`, `No backup into ${vault} completed in a day`, {
      ...ofVault('NumberOfBackupJobsCompleted'),
      Statistic: 'Sum',
      Period: DAY,
      ComparisonOperator: 'LessThanThreshold',
      Threshold: 1,
      TreatMissingData: 'breaching',
    });
  }
  // Events a bus rule could put neither on its target nor on its dead-letter queue: lost.
  for (const rule of ids('AWS::Events::Rule').filter((id) => resources[id].Properties.EventBusName)) {
    const { EventBusName } = resources[rule].Properties;
    // A custom bus's rule is `<bus>|<rule>` by Ref; its metrics name the rule alone.
    const dims = [
      { Name: 'EventBusName', Value: EventBusName },
      { Name: 'RuleName', Value: { 'Fn::Select': [1, { 'Fn::Split': ['|', { Ref: rule }] }] } },
    ];
    const lost = ['FailedInvocations', 'InvocationsFailedToBeSentToDlq'];
    alarm(`${rule}DeliveryFailedAlarm`, `${rule} could not deliver an event to its target nor to its dead-letter queue`, {
      Metrics: [
        ...lost.map((name, i) => ({
          Id: `m${i}`,
          MetricStat: { Metric: { Namespace: 'AWS/Events', MetricName: name, Dimensions: dims }, Period: PERIOD, Stat: 'Sum' },
          ReturnData: false,
        })),
        { Id: 'lost', Expression: `SUM([${lost.map((_, i) => `m${i}`).join(',')}])`, ReturnData: true },
      ],
      Threshold: 1,
    });
  }
  const keys = ids('AWS::KMS::Key');
  if (keys.length) {
    resources.KeyStateRule = {
      Type: 'AWS::Events::Rule',
      Properties: {
        Description: "A call that disables one of the stage's keys, schedules its deletion or stops its rotation",
        State: 'ENABLED',
        EventPattern: {
          source: ['aws.kms'],
          'detail-type': ['AWS API Call via CloudTrail'],
          detail: {
            eventSource: ['kms.amazonaws.com'],
            eventName: ['DisableKey', 'ScheduleKeyDeletion', 'DisableKeyRotation'],
            resources: { ARN: keys.map((k) => ({ 'Fn::GetAtt': [k, 'Arn'] })) },
          },
        },
      },
    };
    alarm('KeyStateAlarm', `A key of the stage (${keys.join(', ')}) was disabled, scheduled for deletion or stopped rotating`, {
      Namespace: 'AWS/Events',
      MetricName: 'TriggeredRules',
      Dimensions: [{ Name: 'RuleName', Value: { Ref: 'KeyStateRule' } }],
      Statistic: 'Sum',
      Threshold: 1,
    });
  }

  // The dashboard's body is one Fn::Sub: ${LogicalId} and ${LogicalId.QueueName} name resources.
  const cloudWatch = (m, i) => {
    // Any dimensions (payments carry their outcome and reason).
    if (m.own) return [{ expression: `SEARCH('Namespace="${namespace}" MetricName="${m.own}"', 'Sum', ${PERIOD})`, id: `e${i}` }];
    const { namespace: ns, name, stat, resource } = m;
    if (ns === 'AWS/ApiGateway') return [ns, name, 'ApiName', resource.name, 'Stage', stage, { label: `${resource.id} ${name}`, stat }];
    if (ns === 'AWS/SQS') return [ns, name, 'QueueName', `\${${resource}.QueueName}`, { label: resource, stat }];
    return [ns, name, 'FunctionName', `\${${resource}}`, { label: resource, stat }];
  };
  const widgets = WIDGETS.map((w) => ({
    type: 'metric',
    width: 12,
    height: 6,
    // biome-ignore lint/suspicious/noTemplateCurlyInString: Fn::Sub's substitution, not JavaScript's
    properties: { title: w.title, metrics: expand(w, sets).map(cloudWatch), region: '${AWS::Region}', period: PERIOD, view: 'timeSeries', stacked: false },
  }));
  resources.Dashboard = {
    Type: 'AWS::CloudWatch::Dashboard',
    Properties: { DashboardName: `payment-service-${stage}`, DashboardBody: { 'Fn::Sub': JSON.stringify({ widgets }) } },
  };
}

module.exports = Alarms;
module.exports.build = build;
module.exports.settingsOf = settingsOf;

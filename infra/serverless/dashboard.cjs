'use strict';

// The service's one dashboard, as data: alarms.cjs writes it into the template as CloudWatch's
// dashboard, and the local run's console (infra/local/emulators/cloudwatch.ts) draws it from the metrics it
// collects. A widget added here appears in both.
//
// Each widget lists metrics. An AWS metric names the resources it is drawn for (`of`: every
// function, every queue, the work queues, every REST API, the functions fed by a DynamoDB stream),
// its name and statistic; `own` is a metric of lib/platform/metrics.ts (Powertools EMF in
// POWERTOOLS_METRICS_NAMESPACE), drawn at every dimension it has, summed.
const PERIOD = 300;

const NAMESPACES = { functions: 'AWS/Lambda', streamConsumers: 'AWS/Lambda', queues: 'AWS/SQS', workQueues: 'AWS/SQS', apis: 'AWS/ApiGateway' };

const fn = (name, stat) => ({ of: 'functions', name, stat });
const api = (name, stat) => ({ of: 'apis', name, stat });
const own = (...names) => names.map((name) => ({ own: name }));

const WIDGETS = [
  { title: 'API requests', metrics: [api('Count', 'Sum')] },
  { title: 'API 4xx and 5xx answers', metrics: [api('4XXError', 'Sum'), api('5XXError', 'Sum')] },
  { title: 'API latency (p99, ms)', metrics: [api('Latency', 'p99')] },
  { title: 'Payments by outcome', metrics: own('Payments', 'PaymentsReceived') },
  { title: 'Webhook attempts, failures and parked events', metrics: own('WebhookAttempts', 'WebhookAttemptsFailed', 'WebhookEventsParked') },
  { title: 'Rate pulls and failures', metrics: own('RatePulls', 'RatePullsFailed') },
  { title: 'Ledger conflicts retried', metrics: own('LedgerConflictsRetried') },
  { title: 'Messages waiting', metrics: [{ of: 'queues', name: 'ApproximateNumberOfMessagesVisible', stat: 'Maximum' }] },
  { title: 'Oldest message (s)', metrics: [{ of: 'workQueues', name: 'ApproximateAgeOfOldestMessage', stat: 'Maximum' }] },
  { title: 'Stream readers iterator age (ms): the outbox relay, the audit trail', metrics: [{ of: 'streamConsumers', name: 'IteratorAge', stat: 'Maximum' }] },
  { title: 'Function invocations', metrics: [fn('Invocations', 'Sum')] },
  { title: 'Function errors', metrics: [fn('Errors', 'Sum')] },
  { title: 'Function throttles', metrics: [fn('Throttles', 'Sum')] },
  { title: 'Function duration (p99, ms)', metrics: [fn('Duration', 'p99')] },
];

// The resources of a CloudFormation template that the dashboard (and the alarms) watch, by logical
// id; `apis` with their names, which their metrics carry.
function watched(resources) {
  const ids = (type) => Object.keys(resources).filter((id) => resources[id].Type === type);
  const queues = ids('AWS::SQS::Queue');
  return {
    functions: ids('AWS::Lambda::Function'),
    queues,
    workQueues: queues.filter((id) => resources[id].Properties.RedrivePolicy),
    apis: ids('AWS::ApiGateway::RestApi').map((id) => ({ id, name: resources[id].Properties.Name })),
    streamConsumers: ids('AWS::Lambda::EventSourceMapping')
      .map((id) => resources[id].Properties)
      .filter((m) => m.EventSourceArn?.['Fn::GetAtt']?.[1] === 'StreamArn')
      .map((m) => calledFunction(resources, m.FunctionName)),
  };
}

// The function a reference calls (`Fn::GetAtt [Fn, Arn]`, or a `Ref`): itself, or the one its alias
// is of (./safe-deploy.cjs: named as its function is), in a template read after the aliases are made.
const calledFunction = (resources, ref) => {
  const id = ref?.['Fn::GetAtt']?.[1] === 'Arn' ? ref['Fn::GetAtt'][0] : ref?.Ref;
  if (resources[id]?.Type !== 'AWS::Lambda::Alias') return id;
  const name = JSON.stringify(resources[id].Properties.FunctionName);
  return Object.keys(resources).find((f) => resources[f].Type === 'AWS::Lambda::Function' && JSON.stringify(resources[f].Properties.FunctionName) === name);
};

// A widget's metrics, one per resource it is drawn for: { namespace, name, stat, resource } (an
// API's resource is { id, name }), or { own } for the service's own.
const expand = (widget, sets) =>
  widget.metrics.flatMap((m) => (m.own ? [m] : sets[m.of].map((resource) => ({ namespace: NAMESPACES[m.of], name: m.name, stat: m.stat, resource }))));

module.exports = { PERIOD, WIDGETS, watched, expand, calledFunction };

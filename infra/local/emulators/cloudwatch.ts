import { createRequire } from 'node:module';
import { GetQueueAttributesCommand } from '@aws-sdk/client-sqs';
import type { ServiceDef } from '../start/serverless-config';
import { type Dimensions, type MetricStore, MINUTE_MS, minuteOf, type Statistic, seriesKey } from './metrics';
import type { Refs } from './provision';
import { logicalIdOf } from './rest-apis';
import { expressionOf } from './schedules';
import type { SqsSender } from './sqs';

// The template's dashboard and alarms on the local run's metrics. infra/serverless/alarms.cjs
// builds them from the packaged template; here it builds them from the parts of that template it
// reads, made from serverless.yml as the Serverless Framework would make them (the functions,
// their stream mappings and failure destinations, and the Admin API), so that every alarm it
// deploys is evaluated locally, and the dashboard is ./dashboard.cjs's, drawn per minute.
type Resources = Record<string, { Type: string; Properties?: Record<string, any> }>;
type Reference = string | { Ref: string } | { 'Fn::GetAtt': [string, string] } | { 'Fn::Select': unknown };

interface DashboardMetric {
  namespace?: string;
  name?: string;
  stat?: Statistic;
  resource?: string | { id: string; name: string };
  own?: string;
}
// The serverless plugin and the definition it shares with this module, in CommonJS, loaded as
// the Serverless Framework loads them (one instance of the definition for both).
const require = createRequire(import.meta.url);
const alarmsPlugin = require('../../serverless/alarms.cjs');
const { WIDGETS, watched, expand } = require('../../serverless/dashboard.cjs') as {
  WIDGETS: Array<{ title: string }>;
  watched(resources: Resources): Record<string, unknown[]>;
  expand(widget: { title: string }, sets: Record<string, unknown[]>): DashboardMetric[];
};

type AlarmState = 'OK' | 'ALARM' | 'INSUFFICIENT_DATA';

export interface LocalAlarm {
  id: string;
  description: string;
  metric: string; // "AWS/Lambda Errors paymentsWorker", for people
  state: AlarmState;
  value?: number; // the statistic over the last evaluated period
  threshold: number;
}

// A metric of a local widget: at `dimensions`, or (an own metric) at every dimension set it has.
export interface LocalMetric {
  namespace: string;
  name: string;
  stat: Statistic;
  dimensions?: Dimensions;
  label?: string;
}

interface LocalWidget {
  title: string;
  metrics: LocalMetric[];
}

export interface LocalDashboard {
  start: number; // epoch ms of the first minute
  minutes: number;
  widgets: Array<{ title: string; series: Array<{ label: string; stat: Statistic; values: Array<number | null> }> }>;
}

// What alarms.cjs reads of a packaged template, from serverless.yml and infra/resources.yml.
export function templateOf(service: ServiceDef): Resources {
  const resources: Resources = { ...service.resources, ApiGatewayRestApi: { Type: 'AWS::ApiGateway::RestApi', Properties: { Name: service.apiName } } };
  for (const fn of service.functions) {
    const id = logicalIdOf(fn);
    resources[id] = { Type: 'AWS::Lambda::Function', Properties: { Timeout: fn.timeout } };
    fn.events.forEach((e, i) => {
      // A schedule: its function has a heartbeat alarm.
      if (e.schedule) {
        const Properties = { ScheduleExpression: expressionOf(e.schedule), Targets: [{ Arn: { 'Fn::GetAtt': [id, 'Arn'] } }] };
        resources[`${id}EventsRuleSchedule${i + 1}`] = { Type: 'AWS::Events::Rule', Properties };
      }
      if (e.stream) {
        // Its on-failure queue counts as a dead-letter queue (the relay's parked records).
        const onFailure = e.stream.destinations?.onFailure;
        const Properties = {
          EventSourceArn: e.stream.arn,
          FunctionName: { 'Fn::GetAtt': [id, 'Arn'] },
          ...(onFailure && { DestinationConfig: { OnFailure: { Destination: typeof onFailure === 'string' ? onFailure : onFailure.arn } } }),
        };
        resources[`${id}EventSourceMapping${i}`] = { Type: 'AWS::Lambda::EventSourceMapping', Properties };
      }
    });
    if (fn.destinations?.onFailure?.arn) {
      const Properties = { DestinationConfig: { OnFailure: { Destination: fn.destinations.onFailure.arn } } };
      resources[`${id}EventInvokeConfig`] = { Type: 'AWS::Lambda::EventInvokeConfig', Properties };
    }
  }
  return resources;
}

// The dimensions under which the local run records each resource's metrics: a function by its
// name in serverless.yml, a queue and a table by their local names, an API by its name and stage.
export function localDimensions(service: ServiceDef, refs: Refs) {
  const functions = new Map(service.functions.map((fn) => [logicalIdOf(fn), fn.name]));
  const queueName = (id: string) => refs[id]?.ref.split('/').pop() ?? id;
  // A dimension's value as the template writes it (a name, Ref, Fn::GetAtt QueueName), locally.
  const resolve = (value: Reference): string | undefined => {
    if (typeof value === 'string') return value;
    if ('Ref' in value) return functions.get(value.Ref) ?? refs[value.Ref]?.ref;
    if (!('Fn::GetAtt' in value)) return undefined; // another intrinsic (an event rule's name)
    const [id, attribute] = value['Fn::GetAtt'];
    return attribute === 'QueueName' ? queueName(id) : undefined;
  };
  return {
    resolve,
    functionName: (id: string) => functions.get(id) ?? id,
    function: (name: string): Dimensions => ({ FunctionName: name }),
    queue: (id: string): Dimensions => ({ QueueName: queueName(id) }),
    api: (name: string): Dimensions => ({ ApiName: name, Stage: service.stage }),
  };
}

const COMPARE: Record<string, (v: number, t: number) => boolean> = {
  GreaterThanOrEqualToThreshold: (v, t) => v >= t,
  GreaterThanThreshold: (v, t) => v > t,
  LessThanThreshold: (v, t) => v < t,
  LessThanOrEqualToThreshold: (v, t) => v <= t,
};

// `startedAt`: when the local run began (its alarms' missing data counts from then).
export function localCloudWatch(service: ServiceDef, refs: Refs, store: MetricStore, startedAt = Date.now()) {
  const names = localDimensions(service, refs);
  const resources = templateOf(service);
  const namespace = String(service.environment.POWERTOOLS_METRICS_NAMESPACE);
  alarmsPlugin.build(resources, alarmsPlugin.settingsOf(service.custom, service.stage, service.environment));
  const sets = watched(resources);

  // One metric of an alarm: its series here (undefined when a dimension does not resolve locally).
  const seriesOfAlarm = (m: { Namespace: string; MetricName: string; Dimensions?: Array<{ Name: string; Value: Reference }> }) => {
    const resolved = (m.Dimensions ?? []).map((d) => [d.Name, names.resolve(d.Value)] as const);
    const dimensions = resolved.every(([, v]) => v !== undefined) ? Object.fromEntries(resolved) : undefined;
    return {
      metric: `${m.Namespace} ${m.MetricName} ${resolved.map(([, v]) => v).join(' ')}`.trim(),
      key: dimensions && seriesKey(m.Namespace, m.MetricName, dimensions as Dimensions),
    };
  };
  // An alarm watches one metric's statistic, or (metric math) the SUM of several; any other
  // expression is one the local run does not evaluate.
  const alarmDefs = Object.entries(resources)
    .filter(([, r]) => r.Type === 'AWS::CloudWatch::Alarm')
    .map(([id, { Properties: p }]) => {
      const common = {
        id,
        description: String(p!.AlarmDescription),
        periods: Number(p!.EvaluationPeriods ?? 1),
        threshold: Number(p!.Threshold),
        breaches: COMPARE[p!.ComparisonOperator],
        missingBreaches: p!.TreatMissingData === 'breaching',
      };
      if (!p!.Metrics) {
        const { metric, key } = seriesOfAlarm(p as never);
        const stat = (p!.Statistic ?? p!.ExtendedStatistic) as Statistic;
        return { ...common, metric, periodMs: Number(p!.Period) * 1000, parts: key ? [{ key, stat }] : undefined };
      }
      const queries: Array<{ Id: string; Expression?: string; MetricStat?: { Metric: never; Period: number; Stat: Statistic } }> = p!.Metrics;
      const summed = /^SUM\(\[([\w,\s]+)\]\)$/
        .exec(queries.find((q) => q.Expression)?.Expression ?? '')?.[1]
        .split(',')
        .map((x) => x.trim());
      const stats = (summed ?? []).map((ref) => queries.find((q) => q.Id === ref)?.MetricStat);
      const series = stats.map((m) => m && { ...seriesOfAlarm(m.Metric), stat: m.Stat });
      const known = summed !== undefined && series.every((x) => x?.key !== undefined);
      return {
        ...common,
        metric: `SUM of ${series.map((x) => x?.metric).join(', ')}`,
        periodMs: Number(stats[0]?.Period) * 1000,
        parts: known ? series.map((x) => ({ key: x!.key!, stat: x!.stat })) : undefined,
      };
    });

  // Each alarm over its last evaluation periods, the current minute the last of them; a missing
  // datapoint breaches as its TreatMissingData says (only a heartbeat's does), and a sum misses only
  // when all its metrics do. INSUFFICIENT_DATA: a metric the local run cannot name (a dimension it does not
  // resolve), or an expression or comparison it does not know.
  const alarms = (now = Date.now()): LocalAlarm[] => {
    store.flush();
    return alarmDefs.map(({ parts, breaches, missingBreaches, periodMs, periods, ...a }) => {
      const base = { id: a.id, description: a.description, metric: a.metric, threshold: a.threshold };
      if (!parts || !breaches) return { ...base, state: 'INSUFFICIENT_DATA' };
      const end = minuteOf(now) + MINUTE_MS;
      const valueIn = (from: number, to: number) => {
        const values = parts.map((m) => store.statistic(m.key, m.stat, from, to)).filter((v) => v !== undefined);
        return values.length ? values.reduce((x, y) => x + y, 0) : undefined;
      };
      const values = Array.from({ length: periods }, (_, i) => valueIn(end - (i + 1) * periodMs, end - i * periodMs));
      // A period that began before the local run did has no datapoint to miss (a heartbeat is not
      // late for a schedule that has not had its first minute yet).
      const missing = (i: number) => missingBreaches && end - (i + 1) * periodMs >= minuteOf(startedAt);
      const state = values.every((v, i) => (v === undefined ? missing(i) : breaches(v, a.threshold))) ? 'ALARM' : 'OK';
      return { ...base, state, value: values[0] };
    });
  };

  // The dashboard's widgets, each metric as the local run records it: at a resource's local
  // dimensions, labelled as on CloudWatch (a function by its name here), or an own metric at any.
  const widgets: LocalWidget[] = WIDGETS.map((w) => ({
    title: w.title,
    metrics: expand(w, sets).map((m): LocalMetric => {
      if (m.own) return { namespace, name: m.own, stat: 'Sum' };
      const r = m.resource!;
      const [label, dimensions] =
        typeof r === 'object'
          ? [`${r.id} ${m.name}`, names.api(r.name)]
          : m.namespace === 'AWS/SQS'
            ? [r, names.queue(r)]
            : [names.functionName(r), names.function(names.functionName(r))];
      return { namespace: m.namespace!, name: m.name!, stat: m.stat!, dimensions, label };
    }),
  }));

  // The series a metric draws: its one, or one per dimension set an own metric has (SEARCH).
  const seriesOf = (m: LocalMetric) =>
    m.dimensions
      ? [{ key: seriesKey(m.namespace, m.name, m.dimensions), label: m.label!, stat: m.stat }]
      : store.find(m.namespace, m.name).map((s) => {
          const dims = Object.entries(s.dimensions).filter(([k]) => k !== 'service');
          return { key: seriesKey(s.namespace, s.name, s.dimensions), label: [m.name, ...dims.map(([k, v]) => `${k}=${v}`)].join(' '), stat: m.stat };
        });

  // The dashboard over the last `minutes`, one value per minute, with only the series that have
  // data in it (a Sum's missing minute is 0; another statistic's is a gap).
  const dashboard = (minutes = 60, now = Date.now()): LocalDashboard => {
    store.flush();
    const start = minuteOf(now) - (minutes - 1) * MINUTE_MS;
    return {
      start,
      minutes,
      widgets: widgets.map((w) => ({
        title: w.title,
        series: w.metrics
          .flatMap(seriesOf)
          .map(({ key, label, stat }) => ({
            label,
            stat,
            values: Array.from({ length: minutes }, (_, i) => store.statistic(key, stat, start + i * MINUTE_MS, start + (i + 1) * MINUTE_MS) ?? null),
          }))
          .filter((s) => s.values.some((v) => v !== null))
          .map((s) => (s.stat === 'Sum' ? { ...s, values: s.values.map((v) => v ?? 0) } : s)),
      })),
    };
  };

  return { store, widgets, alarms, dashboard };
}
export type LocalCloudWatch = ReturnType<typeof localCloudWatch>;

// What API Gateway reports of each answer (AWS/ApiGateway), for a local gateway's `observe`.
export function apiObserver(store: MetricStore, dimensions: Dimensions) {
  const [count, clientErrors, serverErrors, latency] = ['Count', '4XXError', '5XXError', 'Latency'].map((name) =>
    store.key('AWS/ApiGateway', name, dimensions),
  );
  return (status: number, ms: number) => {
    const at = Date.now();
    store.record(count, 1, at);
    store.record(clientErrors, status >= 400 && status < 500 ? 1 : 0, at);
    store.record(serverErrors, status >= 500 ? 1 : 0, at);
    store.record(latency, ms, at);
  };
}

// Samples every queue's depth and the age of its oldest message, as CloudWatch's AWS/SQS metrics
// (which are themselves samples, each minute).
export function queueSampler(service: ServiceDef, refs: Refs, sqs: SqsSender, store: MetricStore) {
  const names = localDimensions(service, refs);
  const ATTRIBUTES = {
    ApproximateNumberOfMessages: 'ApproximateNumberOfMessagesVisible',
    ApproximateNumberOfMessagesNotVisible: 'ApproximateNumberOfMessagesNotVisible',
    ApproximateNumberOfMessagesDelayed: 'ApproximateNumberOfMessagesDelayed',
    ApproximateAgeOfOldestMessage: 'ApproximateAgeOfOldestMessage',
  };
  const queues = Object.entries(service.resources)
    .filter(([id, r]) => r.Type === 'AWS::SQS::Queue' && refs[id])
    .map(([id]) => ({
      url: refs[id].ref,
      keys: Object.entries(ATTRIBUTES).map(([attribute, metric]) => [attribute, store.key('AWS/SQS', metric, names.queue(id))]),
    }));
  return async () => {
    await Promise.all(
      queues.map(async ({ url, keys }) => {
        const answer = await sqs.send(new GetQueueAttributesCommand({ QueueUrl: url, AttributeNames: Object.keys(ATTRIBUTES) as never }));
        const Attributes: Record<string, string> = answer.Attributes ?? {};
        const at = Date.now();
        for (const [attribute, key] of keys) if (Attributes[attribute] !== undefined) store.record(key, Number(Attributes[attribute]), at);
      }),
    );
  };
}

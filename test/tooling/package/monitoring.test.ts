import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { localCloudWatch } from '../../../infra/local/emulators/cloudwatch';
import { MetricStore } from '../../../infra/local/emulators/metrics';
import { loadService } from '../../../infra/local/start/serverless-config';
import { unzip } from '../../../infra/local/tools/zip';
import { METRICS } from '../../../lib/platform/metrics';
import { provisionedRefs } from '../../readers/refs';
import { alarmsOf, BACKSTOP_MS, byJson, functionRoles, loadPackaged, monitored, ofType, packagedDir, STAGE, template } from './packaged';

// The alarms, the dashboard and the traces.
// The production template is packaged once for the run (./packaged.ts).

beforeAll(loadPackaged, BACKSTOP_MS);

describe('monitoring', () => {
  it('alarms on every function error, throttle and run near its timeout, every dead-letter and parking queue, every stuck work queue, every API 5xx, 4xx spike and slow p99, a lagging stream relay, any table throttle, failed payments and failed webhook attempts, all to one topic', () => {
    const alarms = Object.fromEntries(alarmsOf());
    // What each alarm watches: its metric, or each metric its metric math sums.
    const metricsOf = (a: any) =>
      a.Properties.Metrics
        ? a.Properties.Metrics.filter((m: any) => m.MetricStat).map((m: any) => m.MetricStat.Metric)
        : [{ Namespace: a.Properties.Namespace, MetricName: a.Properties.MetricName, Dimensions: a.Properties.Dimensions }];
    const watched = (namespace: string, metric: string) =>
      Object.values(alarms)
        .flatMap(metricsOf)
        .filter((m) => m.Namespace === namespace && m.MetricName === metric)
        .map((m) => m.Dimensions[0].Value);
    const functions = ofType('AWS::Lambda::Function').map(([id]) => ({ Ref: id }));
    expect(watched('AWS/Lambda', 'Errors').sort(byJson)).toEqual(functions.sort(byJson));
    expect(watched('AWS/Lambda', 'Throttles').sort(byJson)).toEqual(functions.sort(byJson));
    // Throttles are summed ten functions to an alarm (the most metric math takes): each alarm
    // costs the stack a resource, and it has at most 500.
    const sums = Object.entries(alarms)
      .filter(([id]) => id.startsWith('FunctionThrottles'))
      .map(([, a]) => a);
    expect(sums).toHaveLength(Math.ceil(functions.length / 10));
    for (const a of sums) {
      const stats = a.Properties.Metrics.filter((m: any) => m.MetricStat);
      expect(stats.length).toBeLessThanOrEqual(10);
      expect(a.Properties.Metrics.filter((m: any) => m.ReturnData)).toEqual([
        { Id: 'throttles', Expression: `SUM([${stats.map((m: any) => m.Id).join(',')}])`, ReturnData: true },
      ]);
      expect(a.Properties).not.toHaveProperty('Period');
      expect(a.Properties.Threshold).toBe(1);
    }
    const queue = (id: string) => ({ 'Fn::GetAtt': [id, 'QueueName'] });
    expect(watched('AWS/SQS', 'ApproximateNumberOfMessagesVisible').sort(byJson)).toEqual(
      ['EventsDeadLetterQueue', 'PaymentsDeadLetterQueue', 'RelayFailuresQueue', 'ScheduledFailuresQueue', 'WebhookDeadLetterQueue', 'WebhookParkingQueue']
        .map(queue)
        .sort(byJson),
    );
    expect(watched('AWS/SQS', 'ApproximateAgeOfOldestMessage').sort(byJson)).toEqual(['PaymentsQueue', 'WebhookQueue'].map(queue).sort(byJson));
    const apiNames = ofType('AWS::ApiGateway::RestApi').map(([, api]) => api.Properties.Name);
    expect(watched('AWS/ApiGateway', '5XXError').sort()).toEqual(apiNames.sort());
    expect(watched('AWS/ApiGateway', 'Latency').sort()).toEqual(apiNames.sort());
    for (const [id, a] of Object.entries(alarms).filter(([, a]) => a.Properties.MetricName === 'Latency')) {
      expect(a.Properties, id).toMatchObject({ ExtendedStatistic: 'p99', Threshold: 2000 });
    }
    expect(watched('AWS/ApiGateway', '4XXError').sort()).toEqual(apiNames.sort());
    for (const [id, a] of Object.entries(alarms).filter(([, a]) => a.Properties.MetricName === '4XXError'))
      expect(a.Properties, id).toMatchObject({ Statistic: 'Sum', Threshold: 500 });
    // A run that took 80% of its function's timeout: the next may time out.
    expect(watched('AWS/Lambda', 'Duration').sort(byJson)).toEqual(functions.sort(byJson));
    for (const [id, fn] of ofType('AWS::Lambda::Function'))
      expect(alarms[`${id}NearTimeoutAlarm`].Properties, id).toMatchObject({ Statistic: 'Maximum', Threshold: 0.8 * fn.Properties.Timeout * 1000 });
    // What the business sees, from the service's own metrics (lib/platform/metrics.ts).
    expect(alarms.PaymentsFailedAlarm.Properties).toMatchObject({
      Namespace: 'PaymentService',
      MetricName: METRICS.payments,
      Dimensions: [
        { Name: 'service', Value: 'payment-service' },
        { Name: 'outcome', Value: 'failed' },
      ],
      Statistic: 'Sum',
      Threshold: 1,
    });
    expect(alarms.WebhookAttemptsFailedAlarm.Properties).toMatchObject({
      Namespace: 'PaymentService',
      MetricName: METRICS.webhookAttemptsFailed,
      Dimensions: [{ Name: 'service', Value: 'payment-service' }],
      Threshold: 10,
    });
    // The outbox relay, which every event and payment message rides: alarmed when it falls behind.
    expect(watched('AWS/Lambda', 'IteratorAge')).toEqual(expect.arrayContaining([{ Ref: 'OutboxRelayLambdaFunction' }, { Ref: 'AuditTrailLambdaFunction' }]));
    expect(watched('AWS/Lambda', 'IteratorAge')).toHaveLength(2);
    const tables = ofType('AWS::DynamoDB::Table').map(([id]) => ({ Ref: id }));
    expect(watched('AWS/DynamoDB', 'ReadThrottleEvents').sort(byJson)).toEqual(tables.sort(byJson));
    expect(watched('AWS/DynamoDB', 'WriteThrottleEvents').sort(byJson)).toEqual(tables.sort(byJson));
    for (const [id, a] of Object.entries(alarms)) {
      expect(a.Properties.AlarmActions, id).toEqual([{ Ref: 'AlarmTopic' }]);
      // Only a heartbeat's silence is a failure (./hardening.test.ts).
      expect(a.Properties.TreatMissingData, id).toBe(/HeartbeatAlarm$|NoBackupAlarm$/.test(id) ? 'breaching' : 'notBreaching');
    }
    expect(template.Resources.AlarmEmail.Properties).toMatchObject({ TopicArn: { Ref: 'AlarmTopic' }, Protocol: 'email' });
  });

  it('has the very alarms and dashboard that the local run evaluates and draws from serverless.yml', () => {
    const service = loadService(STAGE);
    const local = localCloudWatch(service, provisionedRefs(service), new MetricStore());
    const alarms = local.alarms();
    // But those on what the local run has none of: AWS Backup's vault and the KMS keys.
    const deployed = alarmsOf()
      .filter(([id]) => !/^(BackupVault|KeyState)/.test(id))
      .map(([id, a]) => [id, a.Properties.AlarmDescription, a.Properties.Threshold]);
    expect(alarms.map((a) => [a.id, a.description, a.threshold]).sort(byJson)).toEqual(deployed.sort(byJson));
    // Each one's metric named locally, but the bus's (no EventBridge metrics locally); with no data,
    // the heartbeats breach.
    expect(alarms.filter((a) => a.state === 'INSUFFICIENT_DATA').map((a) => a.id)).toEqual(['WebhookRuleDeliveryFailedAlarm']);
    expect(alarms.filter((a) => a.state === 'ALARM').every((a) => a.id.endsWith('HeartbeatAlarm'))).toBe(true);
    const [, dashboard] = Object.entries(monitored()).find(([, r]) => r.Type === 'AWS::CloudWatch::Dashboard')!;
    const { widgets } = JSON.parse(dashboard.Properties.DashboardBody['Fn::Sub']);
    expect(local.widgets.map((w) => [w.title, w.metrics.length])).toEqual(widgets.map((w: any) => [w.properties.title, w.properties.metrics.length]));
  });

  it("has one dashboard with the APIs, queues, functions and the service's own metrics", () => {
    const [[, dashboard], ...others] = Object.entries(monitored()).filter(([, r]) => r.Type === 'AWS::CloudWatch::Dashboard');
    expect(others).toEqual([]);
    const body = dashboard.Properties.DashboardBody['Fn::Sub'] as string;
    const { widgets } = JSON.parse(body);
    expect(widgets.length).toBeGreaterThanOrEqual(10);
    for (const [id] of ofType('AWS::Lambda::Function')) expect(body, id).toContain(`\${${id}}`);
    for (const [id] of ofType('AWS::SQS::Queue')) expect(body, id).toContain(`\${${id}.QueueName}`);
    // Every metric lib/platform/metrics.ts writes, in the namespace the functions write to.
    const expressions = widgets
      .flatMap((w: any) =>
        w.properties.metrics
          .flat()
          .map((m: any) => m.expression)
          .filter(Boolean),
      )
      .join('\n');
    for (const metric of Object.values(METRICS)) expect(expressions, metric).toContain(`Namespace="PaymentService" MetricName="${metric}"`);
    for (const [id, fn] of ofType('AWS::Lambda::Function')) expect(fn.Properties.Environment.Variables.POWERTOOLS_METRICS_NAMESPACE, id).toBe('PaymentService');
  });

  it('traces every function with X-Ray, and maps its stack traces to the sources', () => {
    for (const [id, fn] of ofType('AWS::Lambda::Function')) {
      expect(fn.Properties.TracingConfig, id).toEqual({ Mode: 'Active' });
      expect(fn.Properties.Environment.Variables.NODE_OPTIONS, id).toContain('--enable-source-maps');
    }
    for (const [id, role] of functionRoles()) {
      expect(JSON.stringify(role.Properties.ManagedPolicyArns), id).toContain('AWSXRayDaemonWriteAccess');
    }
    const files = unzip(join(packagedDir, 'assetsCreate.zip'));
    expect([...files.keys()].sort()).toEqual(['functions/admin/assets/create.js', 'functions/admin/assets/create.js.map']);
  });
});

import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';
import { localCloudWatch, localDimensions, templateOf } from '../../infra/local/emulators/cloudwatch';
import { MetricStore } from '../../infra/local/emulators/metrics';
import { loadService } from '../../infra/local/start/serverless-config';
import { METRICS } from '../../lib/platform/metrics';
import { provisionedRefs } from '../readers/refs';

const require = createRequire(import.meta.url);
const alarmsPlugin = require('../../infra/serverless/alarms.cjs');
const definition = require('../../infra/serverless/dashboard.cjs');

// The CloudWatch dashboard that the template deploys and the console's dashboard are drawn from
// one definition (infra/serverless/dashboard.cjs): the same widgets, in the same order, each with
// the same metrics, statistics and resources; a widget added to it appears in both.
const service = loadService('local');
const refs = provisionedRefs(service);
const names = localDimensions(service, refs);

type Drawn = [namespace: string, name: string, stat: string, dimensions: Record<string, string> | 'any'];

// The deployed dashboard's widgets, each metric with its dimensions resolved as the local run names them.
function cloudWatchWidgets(): Array<{ title: string; metrics: Drawn[] }> {
  const resources = structuredClone(templateOf(service));
  alarmsPlugin.build(resources, alarmsPlugin.settingsOf(service.custom, service.stage, service.environment));
  const { widgets } = JSON.parse(resources.Dashboard.Properties!.DashboardBody['Fn::Sub']);
  const resolve = (value: string) => {
    const sub = /^\$\{(\w+)(?:\.(QueueName))?\}$/.exec(value);
    if (!sub) return value;
    return names.resolve(sub[2] ? { 'Fn::GetAtt': [sub[1], sub[2]] } : { Ref: sub[1] })!;
  };
  return widgets.map((w: any) => ({
    title: w.properties.title,
    metrics: w.properties.metrics.map((m: any[]): Drawn => {
      if (m[0].expression) {
        const [, namespace, name] = /Namespace="([^"]+)" MetricName="([^"]+)"', 'Sum'/.exec(m[0].expression)!;
        return [namespace, name, 'Sum', 'any'];
      }
      const [namespace, name, ...rest] = m;
      const dims: Record<string, string> = {};
      for (let i = 0; i + 1 < rest.length; i += 2) dims[rest[i]] = resolve(rest[i + 1]);
      return [namespace, name, rest.at(-1).stat, dims];
    }),
  }));
}

const localWidgets = () =>
  localCloudWatch(service, refs, new MetricStore()).widgets.map((w) => ({
    title: w.title,
    metrics: w.metrics.map((m): Drawn => [m.namespace, m.name, m.stat, m.dimensions ?? 'any']),
  }));

describe('the dashboard', () => {
  it('is one definition: CloudWatch and the console draw the same widgets, metrics, statistics and resources', () => {
    const deployed = cloudWatchWidgets();
    expect(localWidgets()).toEqual(deployed);
    expect(deployed.map((w) => w.title)).toEqual(definition.WIDGETS.map((w: { title: string }) => w.title));
    // Every resource kind is there: each function, queue and REST API, and the stream's readers.
    const drawn = deployed.flatMap((w) => w.metrics);
    const drawnFor = (name: string) => drawn.filter((m) => m[1] === name).map((m) => m[3]);
    expect(drawnFor('Errors')).toHaveLength(service.functions.length);
    expect(drawnFor('ApproximateNumberOfMessagesVisible')).toHaveLength(Object.values(service.resources).filter((r) => r.Type === 'AWS::SQS::Queue').length);
    expect(drawnFor('Count')).toContainEqual({ ApiName: 'payment-service-local-admin', Stage: 'local' });
    expect(drawnFor('IteratorAge')).toEqual([{ FunctionName: 'outboxRelay' }, { FunctionName: 'auditTrail' }]);
    // And every metric lib/platform/metrics.ts publishes.
    for (const metric of Object.values(METRICS)) expect(drawn, metric).toContainEqual(['PaymentService', metric, 'Sum', 'any']);
  });

  it('gains a widget added to the definition on CloudWatch and in the console alike', () => {
    const added = { title: 'Stream readers duration (p50, ms)', metrics: [{ of: 'streamConsumers', name: 'Duration', stat: 'p50' }] };
    definition.WIDGETS.push(added);
    try {
      const deployed = cloudWatchWidgets();
      expect(deployed.at(-1)).toEqual({
        title: added.title,
        metrics: [
          ['AWS/Lambda', 'Duration', 'p50', { FunctionName: 'outboxRelay' }],
          ['AWS/Lambda', 'Duration', 'p50', { FunctionName: 'auditTrail' }],
        ],
      });
      expect(localWidgets()).toEqual(deployed);
    } finally {
      definition.WIDGETS.pop();
    }
  });
});

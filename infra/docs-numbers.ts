// The numbers the docs give about the production template (its resources, functions, roles, alarms
// and what it costs at idle), counted from the packaged template, not typed: each stands between
// `<!-- n:<name> -->` and `<!-- /n -->` in a doc of DOCS, and test/tooling/package/docs-numbers.test.ts
// fails when one disagrees with the production package. After a change to the template:
//   npx serverless package --stage prod --region eu-west-1   (with docs/deploy.md's settings)
//   npm run docs:numbers                                     (or -- <folder> for another package)
import { readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';

export const DOCS = ['docs/deploy.md', 'docs/local-run.md'];
const MARK = /<!-- n:([\w-]+) -->(.*?)<!-- \/n -->/g;

// The list prices docs/deploy.md ("What it costs") gives, in dollars a month.
const PRICE = {
  webAcl: 5,
  wafRule: 1,
  alarmMetric: 0.1,
  dashboard: 3,
  secret: 0.4,
  key: 1,
  // A function run every minute: 43,200 invocations of about 100 ms at 1 GB, its index reads, its logs.
  scheduledFunction: 0.2,
  // Lambda's long polls of a queue it reads (an SQS event source mapping).
  polledQueue: 0.25,
  // RatePulls and RatePullsFailed, which the rate refresher writes every minute: two custom metrics.
  rateMetrics: 0.6,
};

type Resource = { Type: string; Properties?: any };
type Template = { Resources: Record<string, Resource> };
const SERVICE_FILE = 'cloudformation-template-update-stack.json';
// The nested stacks, as ./serverless/nested-stacks.cjs makes them: each counted by its file's name.
const { STACKS } = createRequire(import.meta.url)('./serverless/nested-stacks.cjs') as { STACKS: { file: string }[] };

const dollars = (n: number) => `$${n.toFixed(2)}`;
const words = ['no', 'one', 'two', 'three', 'four', 'five', 'six', 'seven', 'eight', 'nine'];
const word = (n: number) => words[n] ?? String(n);

// Every number, by its name, as the docs write it, from the templates packaged into `dir`.
export function numbers(dir: string): Record<string, string> {
  const read = (file: string): Template => JSON.parse(readFileSync(join(dir, file), 'utf8'));
  const service = read(SERVICE_FILE);
  const nested = STACKS.map(({ file }) => [file.replace(/\.json$/, ''), read(file)] as const);
  const all: Record<string, Resource> = Object.assign({}, service.Resources, ...nested.map(([, t]) => t.Resources));
  const of = (type: string) => Object.entries(all).filter(([, r]) => r.Type === type);
  const roles = of('AWS::IAM::Role');
  const functionRoles = roles.filter(([, r]) => r.Properties.AssumeRolePolicyDocument.Statement[0].Principal.Service === 'lambda.amazonaws.com');
  const alarms = of('AWS::CloudWatch::Alarm');
  // CloudWatch charges a metric math alarm for each metric it reads.
  const metricsOf = (a: Resource) => (a.Properties.Metrics ? a.Properties.Metrics.filter((m: any) => m.MetricStat).length : 1);
  const alarmMetrics = alarms.reduce((n, [, a]) => n + metricsOf(a), 0);
  const wafRules = of('AWS::WAFv2::WebACL').reduce((n, [, acl]) => n + acl.Properties.Rules.length, 0);
  // The schedules of every minute (the audit trail's daily digest costs nothing to speak of).
  const scheduled = of('AWS::Events::Rule').filter(([, r]) => r.Properties.ScheduleExpression === 'rate(1 minute)').length;
  const queues = new Set(of('AWS::SQS::Queue').map(([id]) => id));
  const polled = of('AWS::Lambda::EventSourceMapping').filter(([, m]) => queues.has(m.Properties.EventSourceArn?.['Fn::GetAtt']?.[0])).length;
  const cost = {
    waf: of('AWS::WAFv2::WebACL').length * PRICE.webAcl + wafRules * PRICE.wafRule,
    alarms: alarmMetrics * PRICE.alarmMetric,
    dashboards: of('AWS::CloudWatch::Dashboard').length * PRICE.dashboard,
    secrets: of('AWS::SecretsManager::Secret').length * PRICE.secret,
    keys: of('AWS::KMS::Key').length * PRICE.key,
    scheduled: scheduled * PRICE.scheduledFunction,
    polls: polled * PRICE.polledQueue,
    rateMetrics: PRICE.rateMetrics,
  };
  const idle = Object.values(cost).reduce((a, b) => a + b, 0);
  return {
    'service-stack': String(Object.keys(service.Resources).length),
    ...Object.fromEntries(nested.map(([name, t]) => [name, String(Object.keys(t.Resources).length)])),
    functions: String(of('AWS::Lambda::Function').length),
    'function-roles': String(functionRoles.length),
    roles: String(roles.length),
    alarms: String(alarms.length),
    // (The others are the new versions' errors alarms, which CodeDeploy rolls a deploy back on.)
    'notifying-alarms': String(alarms.filter(([, a]) => a.Properties.AlarmActions?.length).length),
    'alarm-metrics': String(alarmMetrics),
    'idle-cost': `$${Math.round(idle)}`,
    'waf-cost': dollars(cost.waf),
    'waf-rules': String(wafRules),
    'alarms-cost': dollars(cost.alarms),
    'dashboard-cost': dollars(cost.dashboards),
    secrets: String(of('AWS::SecretsManager::Secret').length),
    'secrets-cost': dollars(cost.secrets),
    keys: String(of('AWS::KMS::Key').length),
    'keys-cost': dollars(cost.keys),
    'scheduled-functions': word(scheduled),
    'scheduled-invocations': (scheduled * 43_200).toLocaleString('en-US'),
    'scheduled-cost': dollars(cost.scheduled),
    'polled-queues': word(polled),
    'polls-cost': dollars(cost.polls),
  };
}

// `doc` with every marked number as `values` has it; `unknown`: the marks no value is computed for.
export function rendered(doc: string, values: Record<string, string>): { text: string; unknown: string[] } {
  const unknown: string[] = [];
  const text = doc.replace(MARK, (whole, name: string) => {
    if (values[name] === undefined) {
      unknown.push(name);
      return whole;
    }
    return `<!-- n:${name} -->${values[name]}<!-- /n -->`;
  });
  return { text, unknown };
}

// Each mark of `doc` whose number is not `values`'s: "name: written, not counted".
export function disagreements(doc: string, values: Record<string, string>): string[] {
  return [...doc.matchAll(MARK)].filter(([, name, written]) => values[name] !== written).map(([, name, written]) => `${name}: ${written}, not ${values[name]}`);
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const root = join(import.meta.dirname, '..');
  const values = numbers(process.argv[2] ?? join(root, '.serverless'));
  for (const file of DOCS) {
    const path = join(root, file);
    const { text, unknown } = rendered(readFileSync(path, 'utf8'), values);
    if (unknown.length) throw new Error(`${file}: no number is counted for ${unknown.join(', ')}`);
    writeFileSync(path, text);
  }
  console.log(
    Object.entries(values)
      .map(([name, value]) => `${name}: ${value}`)
      .join('\n'),
  );
}

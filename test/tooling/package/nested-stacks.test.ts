import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
// @ts-expect-error a serverless plugin, in CommonJS without types
import { nest, STACKS, stillHeld } from '../../../infra/serverless/nested-stacks.cjs';
import { BACKSTOP_MS, deployed, loadPackaged, nested, ofType, packagedDir, type Resource, STAGE, type Template, template, unnamed } from './packaged';

// The nested stacks (the Open Payments APIs' routes and stages; the alarms and the dashboard), and the resources CloudFormation allows a stack.
// The production template is packaged once for the run (./packaged.ts).

beforeAll(loadPackaged, BACKSTOP_MS);

describe('nested stacks', () => {
  // 462 of CloudFormation's 500 were used, and every route adds about five. The alarms and the
  // dashboard went to a stack of their own, nested, and the functions to one log group: 432. Then
  // the Open Payments APIs' routes and stages went to a nested stack too: 345.
  it('stays at or under 425 resources, with room for 15 more routes, the Open Payments routes and stages and the alarms and the dashboard in nested stacks', () => {
    const count = Object.keys(template.Resources).length;
    const counts = STACKS.map((s: { name: string }) => `${Object.keys(nested[s.name].Resources).length} in ${s.name}`).join(', ');
    console.log(`CloudFormation resources: ${count} in the service's stack (at most 425 here; CloudFormation takes 500); nested in it: ${counts}`);
    // 345, and the back office (its login, console and routes) adds about 30; GET /grants/{id} 4 (its function, permission, method and role);
    // POST /graphql 5 and the three receivers' routes 11 (their functions, permissions, methods, roles and path resources);
    // peering by URL 7 (POST /peers/by-url 5, the connector's POST /peering a path resource and a method): 417.
    expect(count).toBeLessThanOrEqual(425);
    // A route with a function of its own adds a function, its API permission, a method and a path
    // resource to this stack (its alarms go to the nested one): 15 more fit in CloudFormation's 500.
    expect(count + 15 * 4).toBeLessThanOrEqual(500);
    expect(Object.keys(nested.Monitoring.Resources).length + 15 * 3).toBeLessThanOrEqual(500);
    expect(Object.keys(nested.OpenPayments.Resources).length + 15 * 4).toBeLessThanOrEqual(500);
  });

  it("nests each set in a stack of its own: its template beside the service's, named by its hash, every parameter passed, nothing named that is not there", () => {
    for (const { name, file } of STACKS as { name: string; file: string }[]) {
      const stack = template.Resources[name];
      expect(stack.Type, name).toBe('AWS::CloudFormation::Stack');
      const hash = createHash('sha256')
        .update(readFileSync(join(packagedDir, file)))
        .digest('hex')
        .slice(0, 16);
      expect(stack.Metadata.Key, name).toBe(`serverless/payment-service/${STAGE}/nested/${hash}.json`);
      expect(JSON.stringify(stack.Properties.TemplateURL), name).toContain(`/${stack.Metadata.Key}`);
      expect(Object.keys(stack.Properties.Parameters).sort(), name).toEqual(Object.keys(nested[name].Parameters!).sort());
      expect(unnamed(nested[name]), name).toEqual([]);
    }
    expect(unnamed(template)).toEqual([]);
    // Open Payments: every route, deployment, stage, gateway response, permission, domain mapping
    // and WAF association of the resource server's and the authorization server's APIs, and nothing
    // else. The REST APIs stay in the service's stack (the resource server's roles name the
    // authorization server's), with every function.
    const openPayments = ['ResourceServerApi', 'AuthServerApi'];
    const held = Object.keys(nested.OpenPayments.Resources);
    const parts = Object.entries(deployed).filter(([, r]) =>
      /^AWS::(ApiGateway::(Resource|Method|Deployment|Stage|GatewayResponse|Authorizer|BasePathMapping)|Lambda::Permission|WAFv2::WebACLAssociation)$/.test(
        r.Type,
      ),
    );
    const ofOpenPayments = ([, r]: [string, Resource]) =>
      openPayments.some((api) => r.Properties.RestApiId?.Ref === api || JSON.stringify(r.Properties).includes(`\${${api}}`));
    expect(held.sort()).toEqual(
      parts
        .filter(ofOpenPayments)
        .map(([id]) => id)
        .sort(),
    );
    expect(Object.values(nested.OpenPayments.Resources).filter((r) => r.Type === 'AWS::ApiGateway::Stage')).toHaveLength(2);
    expect(Object.values(nested.OpenPayments.Resources).filter((r) => r.Type === 'AWS::ApiGateway::Method')).toHaveLength(25);
    for (const api of openPayments) expect(template.Resources[api].Type, api).toBe('AWS::ApiGateway::RestApi');
    expect(ofType('AWS::Lambda::Function').every(([id]) => template.Resources[id])).toBe(true);
    // The stages wait for API Gateway's account role (their access logs): the nested stack does.
    expect(template.Resources.OpenPayments.DependsOn).toEqual(['ApiGatewayAccountReady']);
    // Monitoring: every alarm and the dashboard, the key-state alarm's rule and WAF's log, and nothing else.
    expect(Object.keys(template.Resources).filter((id) => /^AWS::CloudWatch::/.test(template.Resources[id].Type))).toEqual([]);
    const watching = Object.entries(nested.Monitoring.Resources).filter(([, r]) => !/^AWS::CloudWatch::(Alarm|Dashboard)$/.test(r.Type));
    expect(watching.map(([id]) => id).sort()).toEqual(['KeyStateRule', 'WafLogging', 'WafLogs']);
  });

  it("gives the rest of the template what it names in a nested stack as that stack's outputs, and what waited for a moved resource waits for the stack", () => {
    const t: Template = {
      Conditions: {},
      Resources: {
        Api: { Type: 'AWS::ApiGateway::RestApi', Properties: {} },
        Ready: { Type: 'AWS::CloudFormation::WaitConditionHandle', Properties: {} },
        Logs: { Type: 'AWS::Logs::LogGroup', Properties: {} },
        Stage: { Type: 'AWS::ApiGateway::Stage', DependsOn: ['Ready'], Properties: { RestApiId: { Ref: 'Api' }, Logs: { 'Fn::GetAtt': ['Logs', 'Arn'] } } },
        Alarm: {
          Type: 'AWS::CloudWatch::Alarm',
          DependsOn: ['Stage'],
          Properties: { Dimensions: [{ Value: { Ref: 'Stage' } }], AlarmDescription: { 'Fn::Sub': `\${Stage.Arn} in \${AWS::Region}` } },
        },
        Waiter: { Type: 'AWS::CloudFormation::WaitConditionHandle', DependsOn: ['Stage'], Properties: {} },
      },
      Outputs: { StageName: { Value: { Ref: 'Stage' } } },
    };
    const stages = nest(t, { name: 'Stages', description: 'stages', holds: (r: Resource) => r.Type === 'AWS::ApiGateway::Stage' });
    expect(stages.Resources).toEqual({ Stage: { Type: 'AWS::ApiGateway::Stage', Properties: { RestApiId: { Ref: 'Api' }, Logs: { Ref: 'LogsArn' } } } });
    expect(stages.Parameters).toEqual({ Api: { Type: 'String' }, LogsArn: { Type: 'String' } });
    expect(stages.Outputs).toEqual({ Stage: { Value: { Ref: 'Stage' } }, StageArn: { Value: { 'Fn::GetAtt': ['Stage', 'Arn'] } } });
    expect(t.Resources.Stages).toEqual({
      Type: 'AWS::CloudFormation::Stack',
      DependsOn: ['Ready'],
      Properties: { TemplateURL: '', Parameters: { Api: { Ref: 'Api' }, LogsArn: { 'Fn::GetAtt': ['Logs', 'Arn'] } } },
    });
    // What names the stack's outputs waits for it already (cfn-lint W3005 on a DependsOn too).
    expect(t.Resources.Waiter.DependsOn).toEqual(['Stages']);
    expect(t.Resources.Alarm).toEqual({
      Type: 'AWS::CloudWatch::Alarm',
      Properties: {
        Dimensions: [{ Value: { 'Fn::GetAtt': ['Stages', 'Outputs.Stage'] } }],
        AlarmDescription: { 'Fn::Sub': `\${Stages.Outputs.StageArn} in \${AWS::Region}` },
      },
    });
    expect(t.Outputs.StageName.Value).toEqual({ 'Fn::GetAtt': ['Stages', 'Outputs.Stage'] });
    // A second nested stack gets the first one's outputs through the service's stack.
    const alarms = nest(t, { name: 'Alarms', description: 'alarms', holds: (r: Resource) => r.Type === 'AWS::CloudWatch::Alarm' });
    expect(alarms.Resources.Alarm.Properties).toEqual({
      Dimensions: [{ Value: { Ref: 'StagesOutputsStage' } }],
      AlarmDescription: { 'Fn::Sub': `\${StagesOutputsStageArn} in \${AWS::Region}` },
    });
    expect(t.Resources.Alarms.Properties.Parameters).toEqual({
      StagesOutputsStage: { 'Fn::GetAtt': ['Stages', 'Outputs.Stage'] },
      StagesOutputsStageArn: { 'Fn::GetAtt': ['Stages', 'Outputs.StageArn'] },
    });
    expect(t.Resources.Alarms.DependsOn).toBeUndefined(); // its parameters wait for Stages
    expect(Object.keys(t.Resources).sort()).toEqual(['Alarms', 'Api', 'Logs', 'Ready', 'Stages', 'Waiter']);
  });

  // Deployed over a stage whose own stack holds the Open Payments routes, the nested stack would
  // make them again: API Gateway refuses a path or stage twice, and the rollback would take the
  // APIs' gateway responses and WAF associations with it.
  it('refuses to deploy over a stage whose own stack still holds what goes to the Open Payments stack, naming it; the alarms move by themselves', () => {
    const summary = (id: string, type: string) => ({ LogicalResourceId: id, ResourceType: type });
    const madeOnce = Object.fromEntries((STACKS as { name: string; madeOnce?: boolean }[]).filter((s) => s.madeOnce).map((s) => [s.name, nested[s.name]]));
    expect(Object.keys(madeOnce)).toEqual(['OpenPayments']);
    const before = [
      summary('ResourceServerApi', 'AWS::ApiGateway::RestApi'),
      ...Object.entries(nested.OpenPayments.Resources).map(([id, r]) => summary(id, r.Type)),
    ];
    const [problem, ...others] = stillHeld(before, madeOnce);
    expect(others).toEqual([]);
    expect(problem).toContain(
      `The deployed stack holds ${Object.keys(nested.OpenPayments.Resources).length} resources itself that this deploy moves to the nested stack OpenPayments`,
    );
    // A stage deployed with the nested stack, or a new one: nothing held twice.
    const after = Object.entries(template.Resources).map(([id, r]) => summary(id, r.Type));
    expect(stillHeld(after, madeOnce)).toEqual([]);
    expect(stillHeld([summary('ServerlessDeploymentBucket', 'AWS::S3::Bucket')], madeOnce)).toEqual([]);
  });
});

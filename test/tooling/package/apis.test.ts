import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { restApis } from '../../../infra/local/emulators/rest-apis';
import { loadService, ROOT } from '../../../infra/local/start/serverless-config';
// @ts-expect-error a serverless plugin, in CommonJS without types
import { hashDeployments } from '../../../infra/serverless/api-deployments.cjs';
import { BACKSTOP_MS, deployed, loadPackaged, ofType, STAGE, template } from './packaged';

// The REST APIs: their routes, stages, deployments and gateway errors.
// The production template is packaged once for the run (./packaged.ts).

beforeAll(loadPackaged, BACKSTOP_MS);

describe('the APIs', () => {
  it('routes every Admin path through a REST API, and the resource and authorization servers and the connector through REST APIs of their own', () => {
    const resources = template.Resources;
    // A route's path from its API Gateway resources, as the template nests them.
    const pathOf = (id: any): string =>
      id?.['Fn::GetAtt']?.[1] === 'RootResourceId' ? '' : `${pathOf(resources[id.Ref].Properties.ParentId)}/${resources[id.Ref].Properties.PathPart}`;
    const routes = ofType('AWS::ApiGateway::Method')
      .filter(([, m]) => m.Properties.RestApiId.Ref === 'ApiGatewayRestApi')
      .map(([, m]) => `${m.Properties.HttpMethod} ${pathOf(m.Properties.ResourceId)}`);
    const declared = loadService(STAGE).functions.flatMap((f) => f.events.filter((e) => e.http).map((e) => `${e.http.method} ${e.http.path}`));
    expect(routes.sort()).toEqual(declared.sort());
    expect(ofType('AWS::ApiGatewayV2::Api')).toEqual([]); // no HTTP API: LocalStack's free image has none
    expect(
      ofType('AWS::ApiGateway::RestApi')
        .map(([id]) => id)
        .sort(),
    ).toEqual(['ApiGatewayRestApi', 'AuthServerApi', 'ConnectorApi', 'ResourceServerApi']);
    // The local run serves what the template declares: every method of both APIs reaches a function.
    const apis = restApis(loadService(STAGE));
    expect(
      apis
        .get('AuthServerApi')!
        .routes.map((r) => `${r.method} ${r.path} -> ${r.fn.name}`)
        .sort(),
    ).toEqual([
      'ANY / -> authServer',
      'ANY /grant/{proxy+} -> authInteraction',
      'ANY /interact/{proxy+} -> authInteraction',
      // A tenant's authorization server: the same routes under /t/<tenant id>.
      'ANY /t/{tenant} -> authServer',
      'ANY /t/{tenant}/grant/{proxy+} -> authInteraction',
      'ANY /t/{tenant}/interact/{proxy+} -> authInteraction',
      'ANY /t/{tenant}/{proxy+} -> authServer',
      'ANY /{proxy+} -> authServer',
      'POST /introspect -> authIntrospect',
      'POST /t/{tenant}/introspect -> authIntrospect',
    ]);
    expect(
      apis
        .get('ResourceServerApi')!
        .routes.map((r) => `${r.method} ${r.path} -> ${r.fn.name}`)
        .sort(),
    ).toEqual([
      'ANY /incoming-payments -> openPaymentsIncomingPayments',
      'ANY /incoming-payments/{proxy+} -> openPaymentsIncomingPayments',
      'ANY /outgoing-payment-grant -> openPaymentsOutgoingPayments',
      'ANY /outgoing-payments -> openPaymentsOutgoingPayments',
      'ANY /outgoing-payments/{proxy+} -> openPaymentsOutgoingPayments',
      'ANY /quotes -> openPaymentsQuotes',
      'ANY /quotes/{proxy+} -> openPaymentsQuotes',
      // A tenant's resource server: the same routes under /t/<tenant id> (its wallet addresses are under its prefix).
      'ANY /t/{tenant}/incoming-payments -> openPaymentsIncomingPayments',
      'ANY /t/{tenant}/incoming-payments/{proxy+} -> openPaymentsIncomingPayments',
      'ANY /t/{tenant}/outgoing-payment-grant -> openPaymentsOutgoingPayments',
      'ANY /t/{tenant}/outgoing-payments -> openPaymentsOutgoingPayments',
      'ANY /t/{tenant}/outgoing-payments/{proxy+} -> openPaymentsOutgoingPayments',
      'ANY /t/{tenant}/quotes -> openPaymentsQuotes',
      'ANY /t/{tenant}/quotes/{proxy+} -> openPaymentsQuotes',
      'ANY /{proxy+} -> openPaymentsWalletAddress',
    ]);
    expect(apis.get('ConnectorApi')!.routes.map((r) => `${r.method} ${r.path} -> ${r.fn.name}`)).toEqual([
      'POST /ilp -> ilpConnector',
      'POST /peering -> ilpConnector', // peering by URL, on the function peers already reach
    ]);
    expect(apis.get('ConnectorApi')!.binary).toBe(true); // ILP packets pass as bytes, whatever the peer's Accept header
  });

  const stages = () => Object.fromEntries(ofType('AWS::ApiGateway::Stage'));

  it("gives every API's stage JSON access logs, X-Ray tracing and throttling; the Admin API's stage is the one serverless deploys to", () => {
    expect(Object.keys(stages()).sort()).toEqual(['AdminApiStage', 'AuthServerStage', 'ConnectorStage', 'ResourceServerStage']);
    for (const [id, stage] of Object.entries(stages())) {
      const p = stage.Properties;
      expect(p.StageName, id).toBe(STAGE);
      expect(p.TracingEnabled, id).toBe(true);
      expect(p.AccessLogSetting.DestinationArn, id).toEqual({ 'Fn::GetAtt': ['ApiAccessLogs', 'Arn'] });
      expect(Object.keys(JSON.parse(p.AccessLogSetting.Format)), id).toEqual(
        expect.arrayContaining(['requestId', 'ip', 'method', 'path', 'status', 'latencyMs', 'error']),
      );
      expect(p.MethodSettings, id).toEqual([
        expect.objectContaining({ ResourcePath: '/*', HttpMethod: '*', ThrottlingRateLimit: expect.anything(), ThrottlingBurstLimit: expect.anything() }),
      ]);
      expect(deployed[p.DeploymentId.Ref].Type, id).toBe('AWS::ApiGateway::Deployment');
      expect(deployed[p.DeploymentId.Ref].Properties.RestApiId, id).toEqual(p.RestApiId);
    }
    // Each API's deployment id carries a hash of the API, so that a change to it is a new deployment
    // (the Admin API's was the time of packaging: a new deployment every time).
    for (const id of ['ApiGatewayDeployment', 'ResourceServerDeployment', 'AuthServerDeployment', 'ConnectorDeployment'])
      expect(
        Object.keys(deployed).filter((k) => new RegExp(`^${id}[0-9a-f]{12}$`).test(k)),
        id,
      ).toHaveLength(1);
    // No deployment makes a stage of its own (it would take the stage's name first, with no logs).
    for (const [id, d] of ofType('AWS::ApiGateway::Deployment')) expect(d.Properties.StageName, id).toBeUndefined();
  });

  it('makes a new deployment of an API when a route or integration of it changes, and only then', () => {
    // What the deploy makes with its hashes taken off, as the plugin saw it (before the nesting).
    const whole = { ...template, Resources: deployed };
    const unhashed = () => {
      const copy = JSON.parse(JSON.stringify(whole));
      for (const id of Object.keys(copy.Resources).filter((k) => /Deployment[0-9a-f]{12}$/.test(k))) {
        const base = id.slice(0, -12);
        copy.Resources[base] = copy.Resources[id];
        delete copy.Resources[id];
        const stage = base === 'ApiGatewayDeployment' ? 'AdminApiStage' : `${base.replace('Deployment', '')}Stage`;
        copy.Resources[stage].Properties.DeploymentId = { Ref: base };
      }
      return copy;
    };
    const deploymentOf = (t: typeof template, api: string) => Object.keys(t.Resources).find((k) => k.startsWith(`${api}Deployment`));
    const same = unhashed();
    hashDeployments(same);
    for (const api of ['ApiGateway', 'ResourceServer', 'AuthServer', 'Connector']) expect(deploymentOf(same, api)).toBe(deploymentOf(whole, api));

    const changed = unhashed();
    changed.Resources.ConnectorIlpPost.Properties.AuthorizationType = 'AWS_IAM'; // a method's auth changes
    changed.Resources.ResourceServerIncomingPayment.Properties.PathPart = '{payment}'; // a route changes
    changed.Resources.ApiGatewayRestApi.Properties.Policy.Statement[1].Condition.NotIpAddress['aws:SourceIp'].push('192.0.2.0/24'); // who may call
    hashDeployments(changed);
    expect(deploymentOf(changed, 'Connector')).not.toBe(deploymentOf(whole, 'Connector'));
    expect(deploymentOf(changed, 'ResourceServer')).not.toBe(deploymentOf(whole, 'ResourceServer'));
    expect(deploymentOf(changed, 'ApiGateway')).not.toBe(deploymentOf(whole, 'ApiGateway'));
    expect(deploymentOf(changed, 'AuthServer')).toBe(deploymentOf(whole, 'AuthServer')); // untouched
    expect(changed.Resources.ConnectorStage.Properties.DeploymentId).toEqual({ Ref: deploymentOf(changed, 'Connector') });
  });

  it("answers every API's gateway errors as problem+json from one definition, with no value a client sent in a body", () => {
    const definitions = JSON.parse(readFileSync(join(ROOT, 'infra/gateway-responses.json'), 'utf8'));
    const types = Object.keys(definitions).filter((t) => t !== '_');
    const apis = ofType('AWS::ApiGateway::RestApi').map(([id]) => id);
    expect(apis.sort()).toEqual(['ApiGatewayRestApi', 'AuthServerApi', 'ConnectorApi', 'ResourceServerApi']);
    const responses = ofType('AWS::ApiGateway::GatewayResponse').map(([, r]) => r.Properties);
    for (const api of apis) {
      const own = responses.filter((r) => r.RestApiId.Ref === api);
      expect(own.map((r) => r.ResponseType).sort(), api).toEqual(types.sort());
      for (const r of own) {
        expect(r.StatusCode, `${api} ${r.ResponseType}`).toBe(definitions[r.ResponseType].status?.toString());
        expect(r.ResponseParameters['gatewayresponse.header.Content-Type']).toBe("'application/problem+json'");
        const template = r.ResponseTemplates['application/json'];
        expect(template.match(/\$[a-z.]+/gi), r.ResponseType).toEqual(['$context.requestId']); // a UUID, never client input
        const body = JSON.parse(template);
        expect(body).toMatchObject({ code: definitions[r.ResponseType].code, title: expect.any(String), detail: expect.any(String) });
        if (r.StatusCode) expect(body.status).toBe(Number(r.StatusCode));
      }
    }
    expect(responses.find((r) => r.ResponseType === 'MISSING_AUTHENTICATION_TOKEN')).toMatchObject({ StatusCode: '404' });
  });
});

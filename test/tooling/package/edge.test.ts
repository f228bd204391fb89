import { beforeAll, describe, expect, it } from 'vitest';
import { BACKSTOP_MS, CERTIFICATE, deployed, loadPackaged, ofType, refusal, STAGE, template } from './packaged';

// Edge protection: the WAF, who may reach the Admin API and the connector, the custom domains.
// The production template is packaged once for the run (./packaged.ts).

beforeAll(loadPackaged, BACKSTOP_MS);

describe('edge protection', () => {
  const acl = () => template.Resources.WebAcl.Properties;
  const rule = (name: string) => acl().Rules.find((r: any) => r.Name === name);
  const hostIs = (host: string) => ({
    ByteMatchStatement: {
      FieldToMatch: { SingleHeader: { Name: 'host' } },
      PositionalConstraint: 'EXACTLY',
      SearchString: host,
      TextTransformations: [{ Priority: 0, Type: 'LOWERCASE' }],
    },
  });

  it("puts one WAF web ACL on every API's stage: AWS's managed rules, and a rate per client address on each public API, tighter on grant requests", () => {
    expect(acl()).toMatchObject({ Name: `payment-service-${STAGE}`, Scope: 'REGIONAL', DefaultAction: { Allow: {} } });
    const managed = acl()
      .Rules.filter((r: any) => r.Statement.ManagedRuleGroupStatement)
      .map((r: any) => r.Statement.ManagedRuleGroupStatement.Name);
    expect(managed.sort()).toEqual(['AWSManagedRulesAmazonIpReputationList', 'AWSManagedRulesCommonRuleSet', 'AWSManagedRulesKnownBadInputsRuleSet']);
    const associations = ofType('AWS::WAFv2::WebACLAssociation').map(([, a]) => a);
    expect(associations.map((a) => a.DependsOn![0]).sort()).toEqual(Object.keys(Object.fromEntries(ofType('AWS::ApiGateway::Stage'))).sort());
    for (const a of associations) {
      expect(a.Properties.WebACLArn).toEqual({ 'Fn::GetAtt': ['WebAcl', 'Arn'] });
      expect(a.Properties.ResourceArn['Fn::Sub']).toMatch(
        new RegExp(`^arn:\\$\\{AWS::Partition\\}:apigateway:\\$\\{AWS::Region\\}::/restapis/\\$\\{\\w+\\}/stages/${STAGE}$`),
      );
    }
    // Grant requests (the authorization server's POST at its root, on its custom domain): GRANT_RATE_LIMIT_PER_5MIN.
    expect(rule('GrantRequestsPerAddress')).toMatchObject({ Action: { Block: {} } });
    const grants = rule('GrantRequestsPerAddress').Statement.RateBasedStatement;
    expect(grants).toMatchObject({ Limit: 120, AggregateKeyType: 'IP', EvaluationWindowSec: 300 });
    expect(grants.ScopeDownStatement.AndStatement.Statements).toEqual([
      hostIs('auth.wallet.example.com'),
      {
        ByteMatchStatement: {
          FieldToMatch: { Method: {} },
          PositionalConstraint: 'EXACTLY',
          SearchString: 'POST',
          TextTransformations: [{ Priority: 0, Type: 'NONE' }],
        },
      },
      {
        ByteMatchStatement: {
          FieldToMatch: { UriPath: {} },
          PositionalConstraint: 'EXACTLY',
          SearchString: '/',
          TextTransformations: [{ Priority: 0, Type: 'NONE' }],
        },
      },
    ]);
    expect(rule('GrantRequestsPerAddress').Priority).toBeLessThan(rule('OpenPaymentsPerAddress').Priority);
    expect(rule('OpenPaymentsPerAddress').Statement.RateBasedStatement).toMatchObject({
      Limit: 3000,
      AggregateKeyType: 'IP',
      ScopeDownStatement: { OrStatement: { Statements: [hostIs('wallet.example.com'), hostIs('auth.wallet.example.com')] } },
    });
    expect(rule('ConnectorPerAddress').Statement.RateBasedStatement).toMatchObject({ Limit: 300000, ScopeDownStatement: hostIs('ilp.wallet.example.com') });
    // The common rules read bodies as text: not the connector's binary packets; bodies over WAF's 8 KB
    // are the functions' to refuse (64 KB).
    expect(rule('CommonRules').Statement.ManagedRuleGroupStatement).toMatchObject({
      ScopeDownStatement: { NotStatement: { Statement: hostIs('ilp.wallet.example.com') } },
      RuleActionOverrides: [{ Name: 'SizeRestrictions_BODY', ActionToUse: { Count: {} } }],
    });
    for (const r of acl().Rules)
      expect(r.VisibilityConfig, r.Name).toEqual({ SampledRequestsEnabled: true, CloudWatchMetricsEnabled: true, MetricName: r.Name });
  });

  it('lets the Admin API be reached only from ADMIN_ALLOWED_CIDRS, and the connector only from CONNECTOR_ALLOWED_CIDRS', () => {
    const only = (cidrs: string[]) => [
      { Effect: 'Allow', Principal: '*', Action: 'execute-api:Invoke', Resource: 'execute-api:/*' },
      { Effect: 'Deny', Principal: '*', Action: 'execute-api:Invoke', Resource: 'execute-api:/*', Condition: { NotIpAddress: { 'aws:SourceIp': cidrs } } },
    ];
    expect(template.Resources.ApiGatewayRestApi.Properties.Policy.Statement).toEqual(only(['203.0.113.0/24', '2001:db8::/32']));
    expect(template.Resources.ConnectorApi.Properties.Policy.Statement).toEqual(only(['198.51.100.0/24']));
    // The Open Payments servers are public by design (wallets, other nodes).
    for (const api of ['ResourceServerApi', 'AuthServerApi']) expect(template.Resources[api].Properties.Policy, api).toBeUndefined();
  });

  it('serves each API on its custom domain, and turns its default execute-api endpoint off', () => {
    const domains = Object.fromEntries(ofType('AWS::ApiGateway::DomainName').map(([id, d]) => [id, d.Properties]));
    const expected = {
      ApiGatewayRestApi: 'admin.wallet.example.com',
      ResourceServerApi: 'wallet.example.com',
      AuthServerApi: 'auth.wallet.example.com',
      ConnectorApi: 'ilp.wallet.example.com',
    };
    for (const [api, host] of Object.entries(expected)) {
      expect(domains[`${api}Domain`], api).toEqual({
        DomainName: host,
        RegionalCertificateArn: CERTIFICATE,
        EndpointConfiguration: { Types: ['REGIONAL'] },
        SecurityPolicy: 'SecurityPolicy_TLS13_1_2_PFS_PQ_2025_09',
        EndpointAccessMode: 'STRICT',
      });
      expect(deployed[`${api}DomainMapping`].Properties).toEqual({ DomainName: { Ref: `${api}Domain` }, RestApiId: { Ref: api }, Stage: STAGE });
      expect(template.Resources[api].Properties.DisableExecuteApiEndpoint, api).toBe(true);
      expect(template.Outputs[`${api}DomainTarget`].Value).toEqual({ 'Fn::GetAtt': [`${api}Domain`, 'RegionalDomainName'] });
    }
    expect(template.Outputs.ConnectorUrl.Value).toBe('https://ilp.wallet.example.com/ilp');
    expect(template.Outputs.AdminApiUrl.Value).toBe('https://admin.wallet.example.com');
  });

  it('refuses custom domains that are not all four, or shared', () => {
    expect(refusal({ CONNECTOR_DOMAIN: undefined })).toContain('CONNECTOR_DOMAIN: with API_CERTIFICATE_ARN, the domain of its API');
    expect(refusal({ ADMIN_API_DOMAIN: 'wallet.example.com' })).toContain("WALLET_ADDRESS_URL: its domain wallet.example.com is ADMIN_API_DOMAIN's too");
    expect(refusal({ API_CERTIFICATE_ARN: undefined })).toContain('ADMIN_API_DOMAIN: needs API_CERTIFICATE_ARN');
  });
});

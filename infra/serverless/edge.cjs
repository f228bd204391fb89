'use strict';

const { setting, cidrList } = require('./settings.cjs');

// What stands in front of the four REST APIs, before any function runs:
// - who may call: ADMIN_ALLOWED_CIDRS for the Admin API, which moves money (its HMAC signature is
//   checked only inside Lambda), and CONNECTOR_ALLOWED_CIDRS, the peers, for the connector (unset:
//   any peer, each with its token): each a resource policy that denies every other source address;
// - one WAF web ACL for the stage (WAF_ENABLED), on every API's stage: AWS's managed rules (IP
//   reputation, known bad inputs, the common rule set), and per client address, over WAF's five
//   minutes: API_RATE_LIMIT_PER_5MIN on the Open Payments servers, CONNECTOR_RATE_LIMIT_PER_5MIN on
//   the connector, and GRANT_RATE_LIMIT_PER_5MIN on grant requests (the authorization server's
//   POST at its root), tighter, as they are anonymous. Rules tell the APIs apart by the Host a request
//   names, which is what API Gateway routes it by; every request it blocks or counts, and a sample
//   of the rest, logged to WafLogs, kept as long as the functions' logs (the audit's retention), with
//   the headers that carry secrets redacted;
// - custom domains (API_CERTIFICATE_ARN): each API on its own name (the Admin API on
//   ADMIN_API_DOMAIN, the resource server on WALLET_ADDRESS_URL's, the authorization server on
//   AUTH_SERVER_URL's, the connector on CONNECTOR_DOMAIN), and then their default execute-api
//   endpoints are turned off, so that nothing reaches an API around its name. Each domain takes
//   TLS 1.3 and 1.2 with forward secrecy only, and post-quantum key exchange where the client offers
//   it (API Gateway's enhanced policy TLS13_1_2_PFS_PQ_2025_09), in strict endpoint access mode
//   (a request's SNI must name the domain).
const ADMIN_API = 'ApiGatewayRestApi';

class Edge {
  constructor(serverless, options) {
    this.hooks = {
      'after:aws:package:finalize:mergeCustomProviderResources': () => {
        const { provider } = serverless.service;
        const template = provider.compiledCloudFormationTemplate;
        const stage = options.stage ?? provider.stage;
        allowOnly(template.Resources[ADMIN_API], setting('ADMIN_ALLOWED_CIDRS'));
        allowOnly(template.Resources.ConnectorApi, setting('CONNECTOR_ALLOWED_CIDRS'));
        const { apis: domains } = customDomains(provider.environment);
        if (domains) addDomains(template, domains);
        if (setting('WAF_ENABLED') === 'true')
          addWebAcl(template.Resources, stage, hostsOf(template.Resources, provider.environment, domains), grantPaths(provider.environment, stage, domains));
      },
    };
  }
}

// A REST API's resource policy: every source address outside `value`'s CIDRs is denied.
function allowOnly(api, value) {
  const { cidrs } = cidrList(value);
  if (!api || !cidrs.length) return;
  const invoke = { Principal: '*', Action: 'execute-api:Invoke', Resource: 'execute-api:/*' };
  api.Properties.Policy = {
    Version: '2012-10-17',
    Statement: [
      { Effect: 'Allow', ...invoke },
      { Effect: 'Deny', ...invoke, Condition: { NotIpAddress: { 'aws:SourceIp': cidrs.map((c) => c.cidr) } } },
    ],
  };
}

// Each API's custom domain and base path, from the settings; `problems` with them. None without
// API_CERTIFICATE_ARN.
function customDomains(environment) {
  const problems = [];
  const named = { ADMIN_API_DOMAIN: setting('ADMIN_API_DOMAIN'), CONNECTOR_DOMAIN: setting('CONNECTOR_DOMAIN') };
  if (!setting('API_CERTIFICATE_ARN')) {
    for (const [name, value] of Object.entries(named))
      if (value) problems.push(`${name}: needs API_CERTIFICATE_ARN, the certificate its domain is served with`);
    return { problems };
  }
  const fromUrl = (name) => {
    const value = String(environment[name] ?? '');
    let url;
    try {
      url = new URL(value);
    } catch {
      return undefined; // the functions' schema names it
    }
    const basePath = url.pathname.replace(/^\/+|\/+$/g, '');
    if (url.protocol !== 'https:' || url.port || basePath.includes('/')) {
      problems.push(`${name}: with custom domains, https://<its own domain> with at most one path segment (a base path), not ${value}`);
    }
    return { host: url.hostname.toLowerCase(), basePath };
  };
  const apis = {
    [ADMIN_API]: { host: named.ADMIN_API_DOMAIN, basePath: '', setting: 'ADMIN_API_DOMAIN' },
    ResourceServerApi: { ...fromUrl('WALLET_ADDRESS_URL'), setting: 'WALLET_ADDRESS_URL' },
    AuthServerApi: { ...fromUrl('AUTH_SERVER_URL'), setting: 'AUTH_SERVER_URL' },
    ConnectorApi: { host: named.CONNECTOR_DOMAIN, basePath: '', setting: 'CONNECTOR_DOMAIN' },
  };
  for (const [name, value] of Object.entries(named)) if (!value) problems.push(`${name}: with API_CERTIFICATE_ARN, the domain of its API`);
  const seen = new Map();
  for (const api of Object.values(apis)) {
    if (api.host && seen.has(api.host))
      problems.push(`${api.setting}: its domain ${api.host} is ${seen.get(api.host)}'s too: each API needs a name of its own`);
    if (api.host) seen.set(api.host, api.setting);
  }
  return { apis, problems };
}

// The names clients reach each API by: its custom domain; else its execute-api host and, for the
// Open Payments servers, their URL's host (a domain mapped to the API outside this stack).
function hostsOf(resources, environment, domains) {
  const apis = Object.keys(resources).filter((id) => resources[id].Type === 'AWS::ApiGateway::RestApi');
  const urlHost = { ResourceServerApi: 'WALLET_ADDRESS_URL', AuthServerApi: 'AUTH_SERVER_URL' };
  const hosts = (api) => {
    if (domains) return [domains[api].host];
    const own = urlOf(environment[urlHost[api]]);
    const executeApi = { 'Fn::Sub': `\${${api}}.execute-api.\${AWS::Region}.\${AWS::URLSuffix}` };
    return own && !own.hostname.endsWith('.amazonaws.com') ? [executeApi, own.hostname.toLowerCase()] : [executeApi];
  };
  return Object.fromEntries(apis.map((api) => [api, hosts(api)]));
}
const urlOf = (value) => {
  try {
    return new URL(String(value ?? ''));
  } catch {
    return undefined;
  }
};

// Where grant requests are POSTed: AUTH_SERVER_URL itself, and on the default endpoint the stage's
// root; each with or without a final /.
function grantPaths(environment, stage, domains) {
  const own = urlOf(environment.AUTH_SERVER_URL)?.pathname.replace(/\/+$/, '') ?? '';
  const bases = new Set([own, ...(domains ? [] : [`/${stage}`])]);
  return [...bases].flatMap((base) => (base ? [base, `${base}/`] : ['/']));
}

const matches = (field, text, transform = 'NONE') => ({
  ByteMatchStatement: { FieldToMatch: field, PositionalConstraint: 'EXACTLY', SearchString: text, TextTransformations: [{ Priority: 0, Type: transform }] },
});
const anyOf = (statements) => (statements.length === 1 ? statements[0] : { OrStatement: { Statements: statements } });
const hostIs = (hosts) => anyOf(hosts.map((host) => matches({ SingleHeader: { Name: 'host' } }, host, 'LOWERCASE')));
const visibility = (name) => ({ SampledRequestsEnabled: true, CloudWatchMetricsEnabled: true, MetricName: name });
const managed = (name, { counted, scope } = {}) => ({
  ManagedRuleGroupStatement: {
    VendorName: 'AWS',
    Name: name,
    ...(counted && { RuleActionOverrides: counted.map((rule) => ({ Name: rule, ActionToUse: { Count: {} } })) }),
    ...(scope && { ScopeDownStatement: scope }),
  },
});
const perAddress = (limit, scope) => ({
  RateBasedStatement: { Limit: Number(limit), AggregateKeyType: 'IP', EvaluationWindowSec: 300, ScopeDownStatement: scope },
});

function addWebAcl(resources, stage, hosts, grants) {
  const connector = hostIs(hosts.ConnectorApi);
  const rules = [
    { Name: 'IpReputation', Statement: managed('AWSManagedRulesAmazonIpReputationList'), OverrideAction: { None: {} } },
    {
      Name: 'GrantRequestsPerAddress',
      Statement: perAddress(setting('GRANT_RATE_LIMIT_PER_5MIN'), {
        AndStatement: {
          Statements: [hostIs(hosts.AuthServerApi), matches({ Method: {} }, 'POST'), anyOf(grants.map((p) => matches({ UriPath: {} }, p)))],
        },
      }),
      Action: { Block: {} },
    },
    {
      Name: 'OpenPaymentsPerAddress',
      Statement: perAddress(setting('API_RATE_LIMIT_PER_5MIN'), hostIs([...hosts.ResourceServerApi, ...hosts.AuthServerApi])),
      Action: { Block: {} },
    },
    { Name: 'ConnectorPerAddress', Statement: perAddress(setting('CONNECTOR_RATE_LIMIT_PER_5MIN'), connector), Action: { Block: {} } },
    { Name: 'KnownBadInputs', Statement: managed('AWSManagedRulesKnownBadInputsRuleSet'), OverrideAction: { None: {} } },
    // Not on the connector, whose bodies are binary ILP packets of up to 32 KB; bodies above WAF's
    // 8 KB are counted, not refused: the functions take up to 64 KB (413 above).
    {
      Name: 'CommonRules',
      Statement: managed('AWSManagedRulesCommonRuleSet', { counted: ['SizeRestrictions_BODY'], scope: { NotStatement: { Statement: connector } } }),
      OverrideAction: { None: {} },
    },
  ];
  resources.WebAcl = {
    Type: 'AWS::WAFv2::WebACL',
    Properties: {
      Name: `payment-service-${stage}`,
      Scope: 'REGIONAL',
      DefaultAction: { Allow: {} },
      VisibilityConfig: visibility(`payment-service-${stage}`),
      Rules: rules.map((r, i) => ({ ...r, Priority: i, VisibilityConfig: visibility(r.Name) })),
    },
  };
  addWafLogs(resources, stage);
  for (const [id, r] of Object.entries(resources).filter(([, r]) => r.Type === 'AWS::ApiGateway::Stage')) {
    resources[`${id}WebAcl`] = {
      Type: 'AWS::WAFv2::WebACLAssociation',
      DependsOn: [id],
      Properties: {
        WebACLArn: { 'Fn::GetAtt': ['WebAcl', 'Arn'] },
        ResourceArn: {
          'Fn::Sub': `arn:\${AWS::Partition}:apigateway:\${AWS::Region}::/restapis/\${${r.Properties.RestApiId.Ref}}/stages/${r.Properties.StageName}`,
        },
      },
    };
  }
}

// Headers that carry a secret or a credential: never in WAF's log.
const REDACTED_HEADERS = ['authorization', 'cookie', 'x-idp-secret', 'signature'];

// WAF's log: a group whose name WAF requires to start aws-waf-logs-, with this stack's id in it (it is
// retained, like the functions' logs: a stack deployed again after a removal makes a new one).
function addWafLogs(resources, stage) {
  const stackId = { 'Fn::Select': [2, { 'Fn::Split': ['/', { Ref: 'AWS::StackId' }] }] };
  resources.WafLogs = {
    Type: 'AWS::Logs::LogGroup',
    DeletionPolicy: 'Retain',
    UpdateReplacePolicy: 'Retain',
    Properties: {
      LogGroupName: { 'Fn::Join': ['-', [`aws-waf-logs-payment-service-${stage}`, stackId]] },
      RetentionInDays: resources.FunctionLogs?.Properties.RetentionInDays,
    },
  };
  resources.WafLogging = {
    Type: 'AWS::WAFv2::LoggingConfiguration',
    Properties: {
      ResourceArn: { 'Fn::GetAtt': ['WebAcl', 'Arn'] },
      // The group's ARN without the :* that its Arn attribute ends with, as WAF wants it.
      LogDestinationConfigs: [{ 'Fn::Sub': `arn:\${AWS::Partition}:logs:\${AWS::Region}:\${AWS::AccountId}:log-group:\${WafLogs}` }],
      RedactedFields: REDACTED_HEADERS.map((name) => ({ SingleHeader: { Name: name } })),
    },
  };
}

// A regional domain name and base path mapping for each API; its default endpoint off; the stack's
// URLs on the domains, and what DNS must point each name at.
function addDomains(template, domains) {
  const { Resources: resources, Outputs: outputs } = template;
  const stages = Object.entries(resources).filter(([, r]) => r.Type === 'AWS::ApiGateway::Stage');
  for (const [api, { host, basePath }] of Object.entries(domains)) {
    const [stageId, stage] = stages.find(([, r]) => r.Properties.RestApiId.Ref === api);
    resources[api].Properties.DisableExecuteApiEndpoint = true;
    resources[`${api}Domain`] = {
      Type: 'AWS::ApiGateway::DomainName',
      Properties: {
        DomainName: host,
        RegionalCertificateArn: setting('API_CERTIFICATE_ARN'),
        EndpointConfiguration: { Types: ['REGIONAL'] },
        SecurityPolicy: 'SecurityPolicy_TLS13_1_2_PFS_PQ_2025_09',
        EndpointAccessMode: 'STRICT',
      },
    };
    resources[`${api}DomainMapping`] = {
      Type: 'AWS::ApiGateway::BasePathMapping',
      DependsOn: [stageId],
      Properties: { DomainName: { Ref: `${api}Domain` }, RestApiId: { Ref: api }, Stage: stage.Properties.StageName, ...(basePath && { BasePath: basePath }) },
    };
    outputs[`${api}DomainTarget`] = {
      Description: `Point ${host} here (a CNAME, or an alias record in the hosted zone RegionalHostedZoneId)`,
      Value: { 'Fn::GetAtt': [`${api}Domain`, 'RegionalDomainName'] },
    };
  }
  const url = (api, path = '') => `https://${domains[api].host}${domains[api].basePath ? `/${domains[api].basePath}` : ''}${path}`;
  const values = {
    ServiceEndpoint: url(ADMIN_API),
    AdminApiUrl: url(ADMIN_API),
    ResourceServerUrl: url('ResourceServerApi'),
    AuthServerUrl: url('AuthServerApi'),
    ConnectorUrl: url('ConnectorApi', '/ilp'),
  };
  for (const [name, value] of Object.entries(values)) if (outputs[name]) outputs[name].Value = value;
}

module.exports = Edge;
module.exports.customDomains = customDomains;

import { beforeAll, describe, expect, it } from 'vitest';
import { allRoutes } from '../../../lib/api/routes';
import { BACKSTOP_MS, calledFunction, functionId, loadPackaged, ofType, template } from './packaged';

// The console on AWS, behind its operators' sign-in.
// The production template is packaged once for the run (./packaged.ts).

beforeAll(loadPackaged, BACKSTOP_MS);

describe('the console', () => {
  it("deploys the console behind its operators' sign-in: a user pool (MFA, users an administrator makes, strong passwords, kept), its hosted sign-in, a PKCE app client, the three roles' groups, the authorizer on the console's API route, and a function that may only invoke the Admin API's", () => {
    const r = template.Resources;
    const pool = r.ConsoleUserPool;
    expect([pool.Type, pool.DeletionPolicy, pool.UpdateReplacePolicy]).toEqual(['AWS::Cognito::UserPool', 'Retain', 'Retain']);
    expect(pool.Properties).toMatchObject({
      DeletionProtection: 'ACTIVE',
      MfaConfiguration: 'ON',
      EnabledMfas: ['SOFTWARE_TOKEN_MFA'],
      AdminCreateUserConfig: { AllowAdminCreateUserOnly: true },
      Policies: { PasswordPolicy: { MinimumLength: 14, RequireLowercase: true, RequireUppercase: true, RequireNumbers: true, RequireSymbols: true } },
    });
    expect(pool.Properties.Schema).toEqual([expect.objectContaining({ Name: 'tenant', AttributeDataType: 'String', Required: false })]);
    expect(r.ConsoleUserPoolDomain).toMatchObject({ Type: 'AWS::Cognito::UserPoolDomain', Properties: { UserPoolId: { Ref: 'ConsoleUserPool' } } });
    const client = r.ConsoleUserPoolClient.Properties;
    expect(client).toMatchObject({
      UserPoolId: { Ref: 'ConsoleUserPool' },
      GenerateSecret: false,
      AllowedOAuthFlowsUserPoolClient: true,
      AllowedOAuthFlows: ['code'],
      ExplicitAuthFlows: ['ALLOW_REFRESH_TOKEN_AUTH'],
      IdTokenValidity: 15,
      AccessTokenValidity: 15,
      TokenValidityUnits: { IdToken: 'minutes', AccessToken: 'minutes' },
    });
    // Back to the console on ADMIN_API_DOMAIN (set here), else on the stage's own URL.
    expect(client.CallbackURLs).toEqual([{ 'Fn::If': ['HasAdminApiDomain', 'https://admin.wallet.example.com/console', expect.anything()] }]);
    expect(client.LogoutURLs).toEqual(client.CallbackURLs);
    expect(ofType('AWS::Cognito::UserPoolGroup').map(([, g]) => [g.Properties.GroupName, g.Properties.Precedence])).toEqual([
      ['viewer', 3],
      ['operator', 2],
      ['admin', 1],
    ]);
    const authorizers = ofType('AWS::ApiGateway::Authorizer');
    expect(authorizers.map(([id, a]) => [id, a.Properties])).toEqual([
      [
        'ConsoleAuthorizer',
        {
          Name: 'console',
          RestApiId: { Ref: 'ApiGatewayRestApi' },
          Type: 'COGNITO_USER_POOLS',
          IdentitySource: 'method.request.header.Authorization',
          ProviderARNs: [{ 'Fn::GetAtt': ['ConsoleUserPool', 'Arn'] }],
        },
      ],
    ]);
    // Only the console's API route takes an operator's token; its page none.
    const pathOf = (id: any): string => (id?.Ref ? `${pathOf(r[id.Ref].Properties.ParentId)}/${r[id.Ref].Properties.PathPart}` : '');
    const consoleMethods = ofType('AWS::ApiGateway::Method')
      .filter(([, m]) => /"Console(LambdaFunction|LiveAlias)"/.test(JSON.stringify(m.Properties.Integration?.Uri ?? ''))) // the function, or its alias
      .map(([, m]) => [m.Properties.HttpMethod, pathOf(m.Properties.ResourceId), m.Properties.AuthorizationType, m.Properties.AuthorizerId]);
    expect(consoleMethods.sort()).toEqual([
      ['ANY', '/console/api/{proxy+}', 'COGNITO_USER_POOLS', { Ref: 'ConsoleAuthorizer' }],
      ['GET', '/console', 'NONE', undefined],
      ['GET', '/console/{file}', 'NONE', undefined],
    ]);
    expect(ofType('AWS::ApiGateway::Method').filter(([, m]) => m.Properties.AuthorizationType === 'COGNITO_USER_POOLS')).toHaveLength(1);
    // The function: the hosted sign-in and the app client in its settings, and a role that may only
    // invoke the Admin API's other functions (and write its logs and traces).
    const fn = r.ConsoleLambdaFunction.Properties;
    expect(fn.Environment.Variables).toMatchObject({ CONSOLE_CLIENT_ID: { Ref: 'ConsoleUserPoolClient' }, CONSOLE_SIGN_IN_URL: expect.anything() });
    expect(fn.Role).toEqual({ 'Fn::GetAtt': ['ConsoleRole', 'Arn'] });
    const [statement, ...more] = r.ConsoleRole.Properties.Policies.flatMap((p: any) => p.PolicyDocument.Statement);
    expect(more).toEqual([]);
    expect(statement.Action).toEqual(['lambda:InvokeFunction']);
    // Through each one's alias, as the console calls them (lib/api/http/console.ts): Lambda's
    // permission on a function's own ARN does not cover `function:<name>:live`.
    const invoked = statement.Resource.map((a: any) => /^\$\{(\w+)\.Arn\}:live$/.exec(a['Fn::Sub'])?.[1] ?? JSON.stringify(a)).sort();
    expect(invoked).toEqual(allRoutes.map((route) => functionId(route.functionName)).sort());
    // Nothing else the template makes may invoke them: no other role or policy names lambda's
    // actions on them, and each one's only resource policy lets the Admin API call it.
    const adminFunctions = new Set(invoked as string[]);
    const namesAdminFunction = (resource: unknown) =>
      [...adminFunctions].some((id) => JSON.stringify(resource).includes(`"${id}"`) || JSON.stringify(resource).includes(`{${id}.`)) || resource === '*';
    const grants = [...ofType('AWS::IAM::Role'), ...ofType('AWS::IAM::Policy'), ...ofType('AWS::IAM::ManagedPolicy')].flatMap(([id, p]) =>
      [...(p.Properties.Policies ?? []).map((x: any) => x.PolicyDocument), p.Properties.PolicyDocument]
        .filter(Boolean)
        .flatMap((doc: any) => doc.Statement)
        .filter((st: any) => [st.Action].flat().some((a: string) => /^lambda:(Invoke|\*)|^\*$/.test(a)) && [st.Resource].flat().some(namesAdminFunction))
        .map(() => id),
    );
    expect(grants).toEqual(['ConsoleRole']);
    // And each Admin function verifies an operator's token itself, against the pool and its app client.
    for (const id of adminFunctions) {
      expect(r[id].Properties.Environment.Variables, id).toMatchObject({
        CONSOLE_USER_POOL_ID: { Ref: 'ConsoleUserPool' },
        CONSOLE_CLIENT_ID: { Ref: 'ConsoleUserPoolClient' },
      });
    }
    const permissions = ofType('AWS::Lambda::Permission').filter(([, p]) => adminFunctions.has(calledFunction(p.Properties.FunctionName)!));
    expect(permissions.length).toBeGreaterThan(0);
    for (const [id, p] of permissions) {
      expect(p.Properties.Principal, id).toBe('apigateway.amazonaws.com');
      expect(JSON.stringify(p.Properties.SourceArn), id).toContain('ApiGatewayRestApi');
    }
  });
});

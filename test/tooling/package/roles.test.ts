import { beforeAll, describe, expect, it } from 'vitest';
import { loadService } from '../../../infra/local/start/serverless-config';
import { grantedAccess, neededAccess, scanBundle } from '../../readers/bundle-access';
import { BACKSTOP_MS, bundleOf, calledFunction, deployed, functionId, functionRoles, loadPackaged, ofType, STAGE, secretArn } from './packaged';

// Least privilege: each function's role holds exactly what its bundle calls, and the queues' and the bus's policies let only the service send.
// The production template is packaged once for the run (./packaged.ts).

beforeAll(loadPackaged, BACKSTOP_MS);

describe('roles and resource policies', () => {
  // Roles were per group: the Admin API's write role served 22 functions (only quotesCreate reads
  // the Open Payments client's secret, only webhookEventsRedeliver the webhook events table), and
  // its read role let read-only functions write RatesTable.
  it('gives each function a role with exactly what its bundle calls, shared only by functions that need the same', () => {
    const service = loadService(STAGE);
    const found = new Map(service.functions.map((f) => [f.name, scanBundle(bundleOf(f.name))]));
    // Where outbox messages can go: every queue a function names.
    const outboxQueues = new Set(
      [...found.values()]
        .flat()
        .filter((f) => /^setting:\w+_QUEUE_URL$/.test(f.what))
        .map((f) => f.what.slice(8)),
    );
    const fns = Object.fromEntries(ofType('AWS::Lambda::Function'));
    const roles = Object.fromEntries(ofType('AWS::IAM::Role'));
    const needs: Record<string, string[]> = {};
    // The functions the console hands requests to: every route's, not /graphql's.
    const adminFunctions = service.functions.filter((f) => f.events.some((e) => e.http && !/^\/?graphql$/.test(e.http.path))).map((f) => functionId(f.name));
    for (const fn of service.functions) {
      const id = functionId(fn.name);
      const method = fn.events.find((e) => e.http)?.http.method;
      const needed = [...neededAccess({ id, method, resources: deployed, outboxQueues, adminFunctions }, found.get(fn.name)!)].sort();
      const role = fns[id].Properties.Role['Fn::GetAtt'][0];
      const granted = [...grantedAccess(roles[role])].sort();
      const missing = needed.filter((n) => !granted.includes(n));
      const extra = granted.filter((g) => !needed.includes(g));
      expect({ fn: fn.name, role, missing, extra }).toEqual({ fn: fn.name, role, missing: [], extra: [] });
      needs[fn.name] = needed;
    }
    // What the derivation must see, so that a change in the bundles' shape cannot make it see nothing.
    expect(needs.outboxRelay).toEqual(
      expect.arrayContaining(['events:PutEvents EventBus', 'sqs:SendMessage PaymentsQueue', 'sqs:SendMessage RelayFailuresQueue']),
    );
    expect(needs.paymentsWorker).toEqual(expect.arrayContaining(['sqs:ChangeMessageVisibility PaymentsQueue', 'dynamodb:UpdateItem MainTable']));
    expect(needs.quotesCreate).toEqual(
      expect.arrayContaining(['secretsmanager:GetSecretValue secret:OPEN_PAYMENTS_CLIENT_SECRET', 'dynamodb:PutItem IdempotencyTable']),
    );
    expect(needs.openPaymentsIncomingPayments).toContain('execute-api:Invoke AuthServerApi POST /introspect');
    expect(needs.openApi).toEqual([]);
    // The Admin API's GET routes only read (the rate lookup caches what it pulled), and only the
    // back-office ledger check scans.
    // The console's function only invokes the Admin API's others (below), each through its alias.
    expect(needs.console).toEqual(
      adminFunctions
        .filter((f) => f !== functionId('console'))
        .map((f) => `lambda:InvokeFunction ${f}:live`)
        .sort(),
    );
    for (const fn of service.functions.filter((f) => f.name !== 'console' && f.events.some((e) => e.http?.method === 'GET')))
      for (const n of needs[fn.name])
        expect(
          /^(dynamodb:(GetItem|BatchGetItem|Query)|secretsmanager:GetSecretValue|s3:(GetObject|ListBucket)) /.test(n) ||
            (fn.name === 'ratesResolve' && n === 'dynamodb:BatchWriteItem RatesTable') ||
            // Reading another node's incoming payment as this node's client first publishes its key.
            (fn.name === 'receiversGet' && n === 'dynamodb:PutItem MainTable') ||
            (fn.name === 'ledgerCheck' && n === 'dynamodb:Scan MainTable'),
          `${fn.name}: ${n}`,
        ).toBe(true);
    const holders = (need: string) =>
      Object.keys(needs)
        .filter((fn) => needs[fn].includes(need))
        .sort();
    expect(holders('secretsmanager:GetSecretValue secret:OPEN_PAYMENTS_CLIENT_SECRET')).toEqual([
      'adminGraphql',
      'openPaymentsOutgoingPayments',
      'openPaymentsQuotes',
      'openPaymentsWalletAddress',
      'paymentsWorker',
      'quotesCreate',
      'receiversComplete',
      'receiversCreate',
      'receiversGet',
    ]);
    // (and the rotation function, which reads every secret it rotates)
    expect(holders('secretsmanager:GetSecretValue secret:WEBHOOK_SECRET')).toEqual(['secretsRotate', 'webhooksDeliver']);
    expect(holders('secretsmanager:GetSecretValue secret:IDP_SECRET')).toEqual(['authInteraction', 'secretsRotate']);
    // Only the tenants' functions (and /graphql's, which stands in for them) make and delete
    // secrets, and only the tenants'.
    expect(holders('secretsmanager:CreateSecret secret:tenants/*')).toEqual(['adminGraphql', 'tenantsCreate']);
    expect(holders('secretsmanager:DeleteSecret secret:tenants/*')).toEqual(['adminGraphql', 'tenantsCreate', 'tenantsDelete']);
    // What makes them gives each its resource policy and its rotation, by the rotation function's alias.
    for (const need of [
      'secretsmanager:PutResourcePolicy secret:tenants/*',
      'secretsmanager:RotateSecret secret:tenants/*',
      'lambda:InvokeFunction SecretsRotateLambdaFunction:live',
    ])
      expect(holders(need), need).toEqual(['adminGraphql', 'tenantsCreate']);
    expect(holders('dynamodb:UpdateItem WebhookEventsTable')).toEqual(['webhookEventsRedeliver', 'webhooksDeliver']);
    expect(holders('dynamodb:PutItem RatesTable')).toEqual(['ratesPush']);

    expect(roles.IamRoleLambdaExecution).toBeUndefined(); // no role shared by all
    for (const [id, role] of functionRoles()) {
      expect(
        role.Properties.ManagedPolicyArns.map((a: any) => a['Fn::Sub'].split('/').at(-1)),
        id,
      ).toEqual(['AWSLambdaBasicExecutionRole', 'AWSXRayDaemonWriteAccess']);
      for (const st of (role.Properties.Policies ?? []).flatMap((p: any) => p.PolicyDocument.Statement)) {
        expect(
          st.Action.some((a: string) => a.includes('*')),
          id,
        ).toBe(false); // no wildcard
        for (const r of st.Resource) expect(r, id).not.toBe('*');
        // Secrets by ARN pattern, so that a stack on retained secrets (SECRETS_EXISTING) grants the same
        // (the rotation function: every tenant's secrets, whatever their names).
        if (st.Action.includes('secretsmanager:GetSecretValue'))
          for (const r of st.Resource) expect(JSON.stringify(r)).toMatch(/secret:payment-service\/prod\/((tenants\/\*\/)?[A-Z_]+-\?{6}|tenants\/\*)"/);
      }
    }
    // And no secret in any function's environment.
    for (const [id, fn] of Object.entries(fns)) {
      for (const name of ['ADMIN_API_SECRET', 'WEBHOOK_SECRET', 'STREAM_SECRET', 'OPEN_PAYMENTS_CLIENT_SECRET', 'IDP_SECRET'])
        expect(fn.Properties.Environment?.Variables?.[name], `${id} ${name}`).toBeUndefined();
    }
  });

  // Any principal with events:PutEvents or sqs:SendMessage could inject events that the webhook
  // sender signs and delivers, or payment messages.
  it('lets only the service feed its bus and work queues: every other principal is denied', () => {
    const relay = { 'Fn::GetAtt': ['OutboxRelayRole', 'Arn'] };
    const [[, bus], ...moreBus] = ofType('AWS::Events::EventBusPolicy');
    expect(moreBus).toEqual([]);
    expect(bus.Properties.Statement).toMatchObject({
      Effect: 'Deny',
      Principal: '*',
      Action: 'events:PutEvents',
      Condition: { ArnNotEquals: { 'aws:PrincipalArn': [relay] } },
    });
    const policies = ofType('AWS::SQS::QueuePolicy').map(([, p]) => p.Properties);
    const denials = (queue: string) =>
      policies
        .filter((p) => p.Queues.some((q: any) => q.Ref === queue))
        .flatMap((p) => p.PolicyDocument.Statement)
        .filter((st: any) => st.Effect === 'Deny' && st.Action === 'sqs:SendMessage');
    expect(denials('PaymentsQueue')).toEqual([expect.objectContaining({ Principal: '*', Condition: { ArnNotEquals: { 'aws:PrincipalArn': [relay] } } })]);
    expect(denials('WebhookParkingQueue')).toHaveLength(1);
    const [webhook] = denials('WebhookQueue');
    expect(webhook.Condition.ArnNotEquals).toEqual({
      'aws:PrincipalArn': [relay, { 'Fn::GetAtt': ['WebhookSenderRole', 'Arn'] }],
      'aws:SourceArn': { 'Fn::GetAtt': ['WebhookRule', 'Arn'] }, // the bus's rule sends with no principal ARN
    });
  });

  // What waits on a failure queue, `npm run redrive` sends on (infra/redrive.ts): whoever could put a
  // message there could have it sent, or a function run. So each takes messages from its feeders only.
  it('lets each failure queue take messages only from what feeds it: a function, with its role; the bus, for its rule; SQS itself', () => {
    const fns = Object.fromEntries(ofType('AWS::Lambda::Function'));
    const queueOf = (arn: any) => arn['Fn::GetAtt'][0] as string;
    const roleOf = (fn: string) => fns[fn].Properties.Role;
    type Feeders = { roles: unknown[]; rules: unknown[]; sqs: boolean };
    const feeders = new Map<string, Feeders>();
    const of = (queue: string) => feeders.get(queue) ?? feeders.set(queue, { roles: [], rules: [], sqs: false }).get(queue)!;
    // Lambda's on-failure destinations, which Lambda sends to with the function's role: of its
    // asynchronous invocations (the schedules') and of its stream mapping (the relay's).
    for (const [, c] of ofType('AWS::Lambda::EventInvokeConfig'))
      of(queueOf(c.Properties.DestinationConfig.OnFailure.Destination)).roles.push(roleOf(c.Properties.FunctionName.Ref));
    for (const [, m] of ofType('AWS::Lambda::EventSourceMapping').filter(([, m]) => m.Properties.DestinationConfig)) {
      of(queueOf(m.Properties.DestinationConfig.OnFailure.Destination)).roles.push(roleOf(calledFunction(m.Properties.FunctionName)!));
    }
    // Parked webhook events: an outbox message of the sender's, which the relay sends.
    for (const queue of loadService(STAGE).custom.alarms.parkingQueues) of(queue).roles.push({ 'Fn::GetAtt': ['OutboxRelayRole', 'Arn'] });
    // Dead-letter queues: SQS moves a message there itself (no one sends); a rule's, EventBridge for that rule.
    for (const [, q] of ofType('AWS::SQS::Queue').filter(([, q]) => q.Properties.RedrivePolicy))
      of(queueOf(q.Properties.RedrivePolicy.deadLetterTargetArn)).sqs = true;
    for (const [rule, r] of ofType('AWS::Events::Rule')) {
      for (const t of (r.Properties.Targets ?? []).filter((t: any) => t.DeadLetterConfig))
        of(queueOf(t.DeadLetterConfig.Arn)).rules.push({ 'Fn::GetAtt': [rule, 'Arn'] });
    }
    expect([...feeders.keys()].sort()).toEqual([
      'EventsDeadLetterQueue',
      'PaymentsDeadLetterQueue',
      'RelayFailuresQueue',
      'ScheduledFailuresQueue',
      'WebhookDeadLetterQueue',
      'WebhookParkingQueue',
    ]);
    const policies = ofType('AWS::SQS::QueuePolicy').map(([, p]) => p.Properties);
    const byArn = (ids: unknown[]) => [...new Set(ids.map((id) => JSON.stringify(id)))].sort();
    for (const [queue, fed] of feeders) {
      // One policy (a queue has one: a second would replace it), whose statements about sending to it are these.
      const held = policies.filter((p) => p.Queues.some((q: any) => q.Ref === queue));
      expect(held, queue).toHaveLength(1);
      const arn = { 'Fn::GetAtt': [queue, 'Arn'] };
      const statements = held[0].PolicyDocument.Statement.filter((st: any) =>
        [st.Resource].flat().some((r: unknown) => JSON.stringify(r) === JSON.stringify(arn)),
      );
      const denials = statements.filter((st: any) => st.Effect === 'Deny');
      expect(
        denials.map((st: any) => [st.Principal, st.Action]),
        queue,
      ).toEqual([['*', 'sqs:SendMessage']]);
      const [{ Condition }] = denials;
      if (fed.sqs) expect(Condition, queue).toBeUndefined();
      else if (fed.rules.length) expect(Condition, queue).toEqual({ ArnNotEquals: { 'aws:SourceArn': fed.rules[0] } });
      else expect(byArn(Condition.ArnNotEquals['aws:PrincipalArn']), queue).toEqual(byArn(fed.roles));
      // An Allow only for the bus's rule (EventBridge needs the queue's leave), none for anyone else.
      const allows = statements.filter((st: any) => st.Effect === 'Allow');
      expect(allows, queue).toEqual(
        fed.rules.map((rule) =>
          expect.objectContaining({ Principal: { Service: 'events.amazonaws.com' }, Condition: { ArnEquals: { 'aws:SourceArn': rule } } }),
        ),
      );
    }
  });

  it('gives the ILP connector a role of its own: the main table and its indexes (routing), rates, and the STREAM secret', () => {
    const fns = Object.fromEntries(ofType('AWS::Lambda::Function'));
    expect(fns.IlpConnectorLambdaFunction.Properties.Role).toEqual({ 'Fn::GetAtt': ['IlpConnectorRole', 'Arn'] });
    const role = Object.fromEntries(ofType('AWS::IAM::Role')).IlpConnectorRole;
    const resources = role.Properties.Policies.flatMap((p: any) => p.PolicyDocument.Statement).flatMap((st: any) => st.Resource);
    expect(resources).toEqual([
      { 'Fn::GetAtt': ['MainTable', 'Arn'] },
      { 'Fn::Join': ['/', [{ 'Fn::GetAtt': ['MainTable', 'Arn'] }, 'index', '*']] },
      { 'Fn::GetAtt': ['RatesTable', 'Arn'] },
      secretArn('STREAM_SECRET'),
    ]);
    const permission = Object.fromEntries(ofType('AWS::Lambda::Permission')).ConnectorPermission;
    expect(JSON.stringify(permission.Properties.SourceArn)).toContain('/*/POST/*'); // /ilp and /peering, its only routes (apis.test.ts)
  });

  it('gives the authorization server, its interaction and the introspection route their own roles, and keeps introspection off the public', () => {
    const fns = Object.fromEntries(ofType('AWS::Lambda::Function'));
    expect(fns.AuthServerLambdaFunction.Properties.Role).toEqual({ 'Fn::GetAtt': ['AuthServerRole', 'Arn'] });
    expect(fns.AuthIntrospectLambdaFunction.Properties.Role).toEqual({ 'Fn::GetAtt': ['AuthIntrospectRole', 'Arn'] });
    const roles = Object.fromEntries(ofType('AWS::IAM::Role'));
    const statements = (role: string) => (roles[role].Properties.Policies ?? []).flatMap((p: any) => p.PolicyDocument.Statement);
    // Its own table, and of the main table only a tenant's record (GetItem), nothing else.
    const mainTableRead = { Effect: 'Allow', Action: ['dynamodb:GetItem'], Resource: [{ 'Fn::GetAtt': ['MainTable', 'Arn'] }] };
    for (const role of ['AuthServerRole', 'AuthIntrospectRole']) {
      expect(
        statements(role).map((st: any) => st.Resource),
        role,
      ).toEqual([[{ 'Fn::GetAtt': ['AuthTable', 'Arn'] }], [{ 'Fn::GetAtt': ['MainTable', 'Arn'] }]]);
      expect(statements(role)[1], role).toEqual(mainTableRead);
    }
    expect(statements('AuthIntrospectRole').flatMap((st: any) => st.Action)).toEqual(['dynamodb:GetItem', 'dynamodb:GetItem']);
    // The interaction's function: its table and the IdP secret, which no other function reads.
    expect(fns.AuthInteractionLambdaFunction.Properties.Role).toEqual({ 'Fn::GetAtt': ['AuthInteractionRole', 'Arn'] });
    expect(statements('AuthInteractionRole')[1]).toEqual(mainTableRead);
    expect(statements('AuthInteractionRole').flatMap((st: any) => st.Resource)).toEqual([
      { 'Fn::GetAtt': ['AuthTable', 'Arn'] },
      { 'Fn::GetAtt': ['MainTable', 'Arn'] },
      secretArn('IDP_SECRET'),
      secretArn('tenants/*/IDP_SECRET'),
    ]);
    const methods = Object.fromEntries(ofType('AWS::ApiGateway::Method'));
    const introspection = ['AuthServerIntrospectPost', 'AuthServerTenantIntrospectPost']; // the operator's and a tenant's
    for (const id of introspection) expect(methods[id].Properties.AuthorizationType, id).toBe('AWS_IAM');
    // (and the console's API route takes an operator's token: below)
    for (const [id, m] of Object.entries(methods))
      if (!introspection.includes(id) && m.Properties.AuthorizationType !== 'COGNITO_USER_POOLS') expect(m.Properties.AuthorizationType, id).toBe('NONE');
    // Secrets are generated by Secrets Manager, never written into the template.
    const secrets = Object.fromEntries(ofType('AWS::SecretsManager::Secret'));
    expect(Object.keys(secrets).sort()).toEqual(['AdminApiSecret', 'IdpSecret', 'OpenPaymentsClientSecret', 'StreamSecret', 'WebhookSecret']);
    for (const [id, secret] of Object.entries(secrets)) {
      expect(secret.Properties.GenerateSecretString, id).toBeDefined();
      expect(secret.Properties.SecretString, id).toBeUndefined();
    }
  });
});

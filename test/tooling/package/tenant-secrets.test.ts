import { beforeAll, describe, expect, it } from 'vitest';
import { ROTATION_SCHEDULE } from '../../../lib/platform/secrets';
import { BACKSTOP_MS, calledFunction, deployed, functionId, functionRoles, loadPackaged, ofType, PRODUCTION, STAGE, STAGE_KEY } from './packaged';

// A tenant's secrets, made at run time (lib/platform/secrets.ts createTenantSecrets), as the
// deployment's are made by the template: what the functions that make them are given for it
// (infra/serverless/tenant-secrets.cjs). They were on AWS's own key, with no resource policy, never rotated.
// The production template is packaged once for the run (./packaged.ts).

beforeAll(loadPackaged, BACKSTOP_MS);

describe("a tenant's secrets", () => {
  it("are made on the deployment's secrets' key, rotated by its rotation function's alias on its schedule, read by the stage's and the break-glass roles only", () => {
    const makers = ofType('AWS::Lambda::Function')
      .filter(([, f]) => Object.keys(f.Properties.Environment?.Variables ?? {}).some((name) => name.startsWith('TENANT_SECRETS_')))
      .map(([id]) => id)
      .sort();
    // Those whose role may make a secret (and no other: they are nobody else's business).
    expect(makers).toEqual([functionId('adminGraphql'), functionId('tenantsCreate')]);

    // The deployment's secrets: each on the data key, each rotated by the rotation function's alias, on one schedule.
    const secrets = ofType('AWS::SecretsManager::Secret');
    expect(secrets.length).toBeGreaterThanOrEqual(5);
    for (const [id, s] of secrets) expect(s.Properties.KmsKeyId, id).toEqual(STAGE_KEY);
    const schedules = ofType('AWS::SecretsManager::RotationSchedule');
    expect(schedules).toHaveLength(3);
    for (const [id, r] of schedules) {
      expect(r.Properties.RotationRules, id).toEqual({ ScheduleExpression: ROTATION_SCHEDULE });
      expect(calledFunction(r.Properties.RotationLambdaARN), id).toBe('SecretsRotateLambdaFunction');
      expect(deployed.SecretsRotateLiveAlias.Properties.Name).toBe('live');
    }

    for (const id of makers) {
      expect(deployed[id].Properties.Environment.Variables, id).toMatchObject({
        TENANT_SECRETS_KMS_KEY_ARN: STAGE_KEY,
        TENANT_SECRETS_ROTATION_ARN: { 'Fn::Sub': `\${SecretsRotateLambdaFunction.Arn}:live` },
        TENANT_SECRETS_READERS: {
          'Fn::Sub': `arn:\${AWS::Partition}:iam::\${AWS::AccountId}:role/payment-service/${STAGE}/*,${PRODUCTION.BREAK_GLASS_ROLE_ARNS}`,
        },
      });
      // Its role uses the key by the key's policy, which names it by its ARN (no IAM policy of the
      // service names a key), as it names every function role: the secrets' readers pattern is no
      // way around it.
      const role = deployed[id].Properties.Role['Fn::GetAtt'][0];
      const [users] = deployed.StageKey.Properties.KeyPolicy.Statement.filter((st: any) => st.Sid === 'TheServicesFunctionRoles');
      expect(users.Action).toEqual(expect.arrayContaining(['kms:Encrypt', 'kms:Decrypt', 'kms:GenerateDataKey*']));
      expect(JSON.stringify(users.Condition.ArnEquals['aws:PrincipalArn'])).toContain(`:role/payment-service/${STAGE}/payment-service-${STAGE}-${role}"`);
    }
    // Every function role is under the stage's path, which the readers' pattern names.
    for (const [id, role] of functionRoles()) expect(role.Properties.Path, id).toBe(`/payment-service/${STAGE}/`);
  });
});

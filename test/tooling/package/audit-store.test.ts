import { beforeAll, describe, expect, it } from 'vitest';
import { grantedAccess } from '../../readers/bundle-access';
import { BACKSTOP_MS, calledFunction, deployed, functionId, loadPackaged, ofType } from './packaged';

// Issue 47: the audit trail's store is write-once. Its objects are locked in compliance mode, its
// policy denies every delete and any put that could replace an object to every principal, and no
// function's role can delete one, change its retention, or write anything but a new object.
// The production template is packaged once for the run (./packaged.ts).

beforeAll(loadPackaged, BACKSTOP_MS);

const bucketArn = { 'Fn::GetAtt': ['AuditBucket', 'Arn'] };
const objects = { 'Fn::Join': ['', [bucketArn, '/*']] };

describe('the audit store', () => {
  it('locks every object in compliance mode, is versioned, kept through a stack removal, and not public', () => {
    const bucket = deployed.AuditBucket;
    expect(bucket.Type).toBe('AWS::S3::Bucket');
    expect([bucket.DeletionPolicy, bucket.UpdateReplacePolicy]).toEqual(['Retain', 'Retain']);
    expect(bucket.Properties.ObjectLockEnabled).toBe(true);
    expect(bucket.Properties.ObjectLockConfiguration.ObjectLockEnabled).toBe('Enabled');
    expect(bucket.Properties.ObjectLockConfiguration.Rule.DefaultRetention).toEqual({ Mode: 'COMPLIANCE', Days: 3653 });
    expect(bucket.Properties.VersioningConfiguration).toEqual({ Status: 'Enabled' });
    expect(Object.values(bucket.Properties.PublicAccessBlockConfiguration)).toEqual([true, true, true, true]);
  });

  it('denies every principal deleting an object or the bucket, unlocking, and a put that does not ask for a new key', () => {
    const [[, policy]] = ofType('AWS::S3::BucketPolicy').filter(([, p]) => p.Properties.Bucket.Ref === 'AuditBucket');
    const denies = policy.Properties.PolicyDocument.Statement.filter((s: any) => s.Effect === 'Deny' && s.Principal === '*');
    const denied = (action: string, resource: unknown) =>
      denies.filter((s: any) => !s.Condition && [s.Action].flat().includes(action) && JSON.stringify([s.Resource].flat()).includes(JSON.stringify(resource)));
    for (const action of ['s3:DeleteObject', 's3:DeleteObjectVersion', 's3:PutObjectRetention', 's3:BypassGovernanceRetention', 's3:PutLifecycleConfiguration'])
      expect(denied(action, objects), action).toHaveLength(1);
    expect(denied('s3:DeleteBucket', bucketArn)).toHaveLength(1);
    expect(denies.find((s: any) => s.Action === 's3:PutObject')).toMatchObject({ Resource: objects, Condition: { Null: { 's3:if-none-match': 'true' } } });
    expect(policy.Properties.PolicyDocument.Statement.every((s: any) => s.Effect === 'Deny')).toBe(true); // it allows nothing
  });

  it("lets no function's role delete, unlock or overwrite an object: the audit trail's function puts new ones, GET /audit-events reads", () => {
    const holders = new Map<string, string[]>();
    for (const [id, role] of ofType('AWS::IAM::Role'))
      for (const line of grantedAccess(role)) if (line.startsWith('s3:')) holders.set(line, [...(holders.get(line) ?? []), id].sort());
    expect(Object.fromEntries(holders)).toEqual({
      's3:PutObject AuditBucket/objects': ['AuditTrailRole'],
      's3:GetObject AuditBucket/objects': ['AuditEventsListRole', 'AuditTrailRole'],
      's3:ListBucket AuditBucket': ['AuditEventsListRole', 'AuditTrailRole'],
    });
    const roleOf = (fn: string) => deployed[functionId(fn)].Properties.Role['Fn::GetAtt'][0];
    expect([roleOf('auditTrail'), roleOf('auditEventsList')]).toEqual(['AuditTrailRole', 'AuditEventsListRole']);
  });

  it("feeds the recorder from the main table's stream, with each change's old and new images", () => {
    expect(deployed.MainTable.Properties.StreamSpecification).toMatchObject({ StreamViewType: 'NEW_AND_OLD_IMAGES' }); // and its resource policy
    const [[, mapping]] = ofType('AWS::Lambda::EventSourceMapping').filter(([, m]) => calledFunction(m.Properties.FunctionName) === functionId('auditTrail'));
    expect(mapping.Properties.EventSourceArn).toEqual({ 'Fn::GetAtt': ['MainTable', 'StreamArn'] });
    expect(mapping.Properties.BisectBatchOnFunctionError).toBe(true);
  });
});

import { describe, expect, it } from 'vitest';
import { allows, operatorOf } from '../../lib/shared/operators';

describe('operatorOf: the operator a Cognito authorizer verified, from its claims', () => {
  it('takes the highest role of the groups, written as API Gateway passes them', () => {
    expect(operatorOf({ email: 'ana@fsp.example', 'cognito:groups': 'viewer' })).toEqual({ kind: 'operator', name: 'ana@fsp.example', role: 'viewer' });
    expect(operatorOf({ email: 'ana@fsp.example', 'cognito:groups': '[viewer admin]' })?.role).toBe('admin');
    expect(operatorOf({ 'cognito:username': 'bo', 'cognito:groups': 'operator,viewer' })).toEqual({ kind: 'operator', name: 'bo', role: 'operator' });
    expect(operatorOf({ email: 'c@x', 'cognito:groups': ['operator'], 'custom:tenant': 't1' })).toEqual({
      kind: 'operator',
      name: 'c@x',
      role: 'operator',
      tenant: 't1',
    });
  });
  it('is nobody without claims, a name or a role', () => {
    expect(operatorOf(undefined)).toBeUndefined();
    expect(operatorOf({ email: 'ana@fsp.example' })).toBeUndefined();
    expect(operatorOf({ email: 'ana@fsp.example', 'cognito:groups': 'auditors' })).toBeUndefined();
    expect(operatorOf({ 'cognito:groups': 'admin' })).toBeUndefined();
  });
  it('allows what the role and those below it may do', () => {
    const op = operatorOf({ email: 'o@x', 'cognito:groups': 'operator' })!;
    expect([allows(op, 'viewer'), allows(op, 'operator'), allows(op, 'admin')]).toEqual([true, true, false]);
  });
});

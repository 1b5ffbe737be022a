import { describe, expect, it } from 'vitest';
import { parseEnv } from '../../../origin/env.ts';
import { expandPassword } from '../../../origin/secrets/passwords.ts';
import { DEFAULT_SECRET_REFS, referenceProblem, secretRefPatternProblem } from '../../../origin/secrets/references.ts';

/** The reference rule (docs/reference/secrets.md#references) as pure logic: which names, and SLUICE_SECRET_REFS parsed. */
describe('${VAR} reference names', () => {
  it('by default allows SLUICE_REF_ names only', () => {
    expect(referenceProblem('SLUICE_REF_WAREHOUSE', DEFAULT_SECRET_REFS)).toBeNull();
    expect(referenceProblem('WAREHOUSE_PW', DEFAULT_SECRET_REFS)).toMatch(/SLUICE_SECRET_REFS: SLUICE_REF_\*.*add WAREHOUSE_PW to SLUICE_SECRET_REFS/);
    expect(referenceProblem('HOME', DEFAULT_SECRET_REFS)).not.toBeNull();
  });

  it('never a SLUICE_ setting, whatever the list, in any case', () => {
    for (const name of ['SLUICE_API_KEY', 'SLUICE_SECRET_KEY', 'sluice_api_key', 'Sluice_Database_Url', 'SLUICE_REFERENCE']) {
      expect(referenceProblem(name, ['*', 'SLUICE_*', name]), name).toMatch(/SLUICE_ setting/);
    }
    expect(referenceProblem('sluice_ref_x', ['sluice_ref_*'])).toBeNull();
  });

  it('matches names exactly and patterns by prefix; a set list replaces the default', () => {
    const allowed = ['WAREHOUSE_PW', 'LAKE_*'];
    expect(referenceProblem('WAREHOUSE_PW', allowed)).toBeNull();
    expect(referenceProblem('WAREHOUSE_PW2', allowed)).not.toBeNull();
    expect(referenceProblem('LAKE_', allowed)).toBeNull();
    expect(referenceProblem('LAKE_S3', allowed)).toBeNull();
    expect(referenceProblem('SLUICE_REF_X', allowed)).not.toBeNull();
  });

  it('SLUICE_SECRET_REFS: the default when unset; a setting named outright or a malformed entry stops startup', () => {
    expect(parseEnv({}).SLUICE_SECRET_REFS).toEqual(['SLUICE_REF_*']);
    expect(parseEnv({ SLUICE_SECRET_REFS: ' A_PW , B_* ,' }).SLUICE_SECRET_REFS).toEqual(['A_PW', 'B_*']);
    expect(() => parseEnv({ SLUICE_SECRET_REFS: 'SLUICE_API_KEY' })).toThrow(/SLUICE_SECRET_REFS=.*SLUICE_API_KEY is a Sluice setting/);
    expect(() => parseEnv({ SLUICE_SECRET_REFS: 'A-B' })).toThrow(/neither a variable name nor a PREFIX\* pattern/);
    expect(secretRefPatternProblem('SLUICE_*')).toBeNull();
    expect(secretRefPatternProblem('SLUICE_REF_DB')).toBeNull();
  });

  it('a refused reference is never read; an allowed one is', () => {
    const environment = { SLUICE_API_KEY: 'admin-key', SLUICE_REF_DB: 'db-secret' };
    expect(() => expandPassword('connection "c"', '${SLUICE_API_KEY}', ['*'], environment)).toThrow(/connection "c" is not expanded: .*SLUICE_ setting/);
    expect(expandPassword('connection "c"', '${SLUICE_REF_DB}', DEFAULT_SECRET_REFS, environment)).toBe('db-secret');
    expect(expandPassword(null, 'literal', DEFAULT_SECRET_REFS, environment)).toBe('literal');
  });
});

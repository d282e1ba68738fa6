/**
 * The Command console's catalogue (`shared/management-command-catalogue.ts`) against the
 * broker's own dispatcher table (`broker/admin/management-commands.ts` `COMMANDS`): the same
 * command names, the same signer scope (A ↔ admin, A/R ↔ realm-manager), and the realm-scopable
 * set agrees. A command added to the broker without a catalogue entry (or the reverse) fails here.
 */
import { describe, expect, it } from 'vitest';
import { COMMANDS, REALM_SCOPABLE } from '../../broker/admin/management-commands';
import {
  MANAGEMENT_COMMANDS,
  managementCommand,
  maskSecretParams,
  SECRET_MASK,
} from '../../shared/management-command-catalogue';

describe('management command catalogue', () => {
  it('lists exactly the commands the broker dispatches', () => {
    const catalogue = MANAGEMENT_COMMANDS.map((c) => c.name).sort();
    expect(catalogue).toEqual(Object.keys(COMMANDS).sort());
    expect(new Set(catalogue).size).toBe(catalogue.length);
  });

  it('gives each command the scope the broker checks', () => {
    for (const [name, spec] of Object.entries(COMMANDS)) {
      const info = managementCommand(name)!;
      expect([name, info.scope]).toEqual([
        name,
        spec.privilege === 'A' ? 'admin' : 'realm-manager',
      ]);
      expect([name, REALM_SCOPABLE.has(name)]).toEqual([name, info.scope === 'realm-manager']);
    }
  });

  it('describes parameters a form can build', () => {
    for (const info of MANAGEMENT_COMMANDS) {
      const names = info.params.map((p) => p.name);
      expect(new Set(names).size, info.name).toBe(names.length);
      for (const p of info.params) {
        expect(p.description, `${info.name}.${p.name}`).not.toBe('');
        if (p.type === 'enum')
          expect(p.options?.length, `${info.name}.${p.name}`).toBeGreaterThan(1);
      }
    }
    expect(managementCommand('toString')).toBeUndefined();
  });

  it('masks secret parameters only, and keeps an empty one (a removal) visible', () => {
    expect(
      maskSecretParams('add_realm', {
        realm: 'fleet',
        manager_key: 'mk-1',
        key: '',
        required: true,
      }),
    ).toEqual({ realm: 'fleet', manager_key: SECRET_MASK, key: '', required: true });
    expect(maskSecretParams('not_a_command', { a: 'x', n: 1 })).toEqual({ a: SECRET_MASK, n: 1 });
  });
});

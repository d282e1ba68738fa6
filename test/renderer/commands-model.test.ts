/**
 * The Command console's form model (renderer/src/views/commands/commands-model.ts): empty fields
 * are not sent, numbers and JSON parse or name the field, a history entry refills the form with
 * its masked secret empty, and search matches every word.
 */
import { describe, expect, it } from 'vitest';
import {
  MANAGEMENT_COMMANDS,
  managementCommand,
  SECRET_MASK,
} from '../../shared/management-command-catalogue';
import {
  emptyValues,
  fromParams,
  groupedCommands,
  toParams,
} from '../../renderer/src/views/commands/commands-model';

const info = (name: string) => managementCommand(name)!;

describe('commands form model', () => {
  it('builds parameters from form values', () => {
    const add = info('add_realm');
    expect(
      toParams(add, { ...emptyValues(add), realm: 'r', manager_key: 'k', required: 'false' }),
    ).toEqual({
      params: { realm: 'r', manager_key: 'k', required: false },
    });
    const list = info('list_queues');
    expect(toParams(list, { ...emptyValues(list), limit: '20' })).toEqual({
      params: { limit: 20 },
    });
    expect(toParams(list, { ...emptyValues(list), limit: 'x' })).toEqual({
      error: 'limit must be a number',
    });
    const replay = info('dlq_replay');
    expect(toParams(replay, { ...emptyValues(replay), ids: '["a","b"]' })).toEqual({
      params: { ids: ['a', 'b'] },
    });
    expect(toParams(replay, { ...emptyValues(replay), ids: '[a' })).toMatchObject({
      error: expect.stringMatching(/^ids must be JSON/),
    });
    const auth = info('set_global_auth');
    expect(toParams(auth, emptyValues(auth))).toEqual({ params: { enabled: false } });
  });

  it('refills from history with secrets empty', () => {
    const add = info('add_realm');
    expect(fromParams(add, { realm: 'r', manager_key: SECRET_MASK, required: true })).toMatchObject(
      {
        realm: 'r',
        manager_key: '',
        required: 'true',
      },
    );
  });

  it('searches every word over name, summary and group', () => {
    const names = groupedCommands('realm key').flatMap((g) => g.commands.map((c) => c.name));
    expect(names).toEqual(expect.arrayContaining(['set_realm_key', 'set_realm_manager_key']));
    expect(names).not.toContain('stats');
    expect(groupedCommands('').flatMap((g) => g.commands)).toHaveLength(MANAGEMENT_COMMANDS.length);
  });
});

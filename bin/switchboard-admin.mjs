#!/usr/bin/env node
// `switchboard-admin` from a clone (docs/management.md): runs the TypeScript CLI through tsx.
// The npm package's `switchboard-admin` is the compiled dist/broker/switchboard-admin.mjs.
import { register } from 'tsx/esm/api';

register();
await import('../broker/admin-cli/admin-bin.ts');

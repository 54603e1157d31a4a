import { existsSync, writeFileSync } from 'node:fs';
import type { Config } from '@footfall/config';
import {
  type ControlDb,
  createCipher,
  createPerson,
  disableTwoStep,
  findPersonByEmail,
  generatePassword,
  isSealedFile,
  normalizeEmail,
  type Role,
  readBeforeUpgrade,
  SealError,
  setPassword,
  unsealFile,
} from '@footfall/control';
import { AppError } from '@footfall/http';
import { prepareInstance } from '@footfall/instance';
import { openConfiguredControl } from '../control.ts';

export const ADMIN_HELP = `Usage: footfall admin <command>

  add-user <email> [--role owner|viewer]   create a person (viewer unless --role owner) with a
                                           generated password, to be replaced at the first sign-in
  reset-password <email>                   set a generated password, to be replaced at the next
                                           sign-in; signs the person out everywhere
  disable-2fa <email>                      turn two-step sign-in off, so the person can sign in
                                           with the password and set it up again
  open-backup <copy> <file>                write the database sealed in a before-upgrade copy
                                           (data/backups/before-upgrade) to a new <file>; to go
                                           back, stop Footfall and put <file> in place of
                                           data/app.db or data/analytics.duckdb
`;

interface Io {
  out: (line: string) => void;
  err: (line: string) => void;
}

/**
 * `footfall admin ...`: account repairs run on the server itself, against the control database.
 * Returns the exit code (0 done, 1 failed, 2 usage).
 */
export async function runAdmin(args: string[], config: Config, io: Io): Promise<number> {
  const [command, ...rest] = args;
  const positional = rest.filter((a, i) => !a.startsWith('--') && !rest[i - 1]?.startsWith('--'));
  const flag = (name: string) => {
    const i = rest.indexOf(`--${name}`);
    return i >= 0 ? rest[i + 1] : undefined;
  };
  const email = positional[0];
  if (command === 'open-backup') return openBackup(positional, config, io);
  if (!command || command === 'help' || command === '--help' || !email) {
    (command && command !== 'help' && command !== '--help' ? io.err : io.out)(ADMIN_HELP);
    return command && command !== 'help' && command !== '--help' ? 2 : 0;
  }
  const { ctl } = openConfiguredControl(config);
  try {
    switch (command) {
      case 'add-user':
        return await addUser(ctl, email, flag('role') ?? 'viewer', io);
      case 'reset-password':
        return await resetPassword(ctl, email, io);
      case 'disable-2fa':
        return await disable2fa(ctl, email, io);
      default:
        io.err(`footfall admin: unknown command "${command}"\n\n${ADMIN_HELP}`);
        return 2;
    }
  } catch (e) {
    if (e instanceof AppError) {
      io.err(`footfall admin: ${e.message}`);
      return 1;
    }
    throw e;
  } finally {
    await ctl.close();
  }
}

/**
 * Opens a before-upgrade copy with the instance key, without touching the control database (it
 * may be the one that no longer opens): the control database's sealed image, or the analytics
 * database sealed in chunks.
 */
function openBackup(args: string[], config: Config, io: Io): number {
  const [copy, file] = args;
  if (!copy || !file || args.length > 2) {
    io.err(`footfall admin: open-backup takes a copy and a file to write\n\n${ADMIN_HELP}`);
    return 2;
  }
  if (existsSync(file)) {
    io.err(`footfall admin: ${file} exists; name a new file`);
    return 1;
  }
  const { secret } = prepareInstance(config);
  try {
    if (isSealedFile(copy)) unsealFile(copy, file, createCipher(secret));
    else writeFileSync(file, readBeforeUpgrade(copy, secret), { mode: 0o600, flag: 'wx' });
  } catch (e) {
    if (!(e instanceof SealError) && (e as NodeJS.ErrnoException).code === undefined) throw e;
    io.err(`footfall admin: cannot open ${copy}: ${(e as Error).message}`);
    return 1;
  }
  io.out(`${file}: written from ${copy}`);
  return 0;
}

async function addUser(ctl: ControlDb, email: string, role: string, io: Io): Promise<number> {
  if (role !== 'owner' && role !== 'viewer') {
    io.err('footfall admin: --role must be owner or viewer');
    return 2;
  }
  const password = generatePassword();
  const person = await createPerson(ctl, { email, password, role: role as Role, mustChangePassword: true });
  io.out(
    `Created ${person.role} ${person.email}.\nPassword (must be changed at the first sign-in): ${password}`,
  );
  return 0;
}

async function resetPassword(ctl: ControlDb, email: string, io: Io): Promise<number> {
  const person = await findPersonByEmail(ctl, normalizeEmail(email));
  if (!person) return noSuchPerson(email, io);
  const password = generatePassword();
  await setPassword(ctl, person.id, password, { mustChange: true });
  io.out(
    `New password for ${person.email} (must be changed at the next sign-in): ${password}\nAll their sessions were signed out.`,
  );
  return 0;
}

async function disable2fa(ctl: ControlDb, email: string, io: Io): Promise<number> {
  const person = await findPersonByEmail(ctl, normalizeEmail(email));
  if (!person) return noSuchPerson(email, io);
  if (person.totp_secret === null) {
    io.out(`Two-step sign-in was not on for ${person.email}; nothing changed.`);
    return 0;
  }
  await disableTwoStep(ctl, person.id);
  io.out(
    `Two-step sign-in is off for ${person.email}: they can sign in with their password and set it up again.`,
  );
  return 0;
}

function noSuchPerson(email: string, io: Io): number {
  io.err(`footfall admin: nobody has the e-mail ${email}`);
  return 1;
}

import { createPerson, findPersonByEmail, hasOwner, safeEqual } from '@footfall/control';
import { AppError } from '@footfall/http';
import { setupToken } from '@footfall/instance';
import { Hono } from 'hono';
import * as v from 'valibot';
import type { AuthEnv } from '../auth/env.ts';
import { readJson } from '../auth/json.ts';
import type { QueryDeps } from '../deps.ts';
import { checkKeys, signedIn } from './auth-helpers.ts';

const SetupBody = v.strictObject({ token: v.string(), email: v.string(), password: v.string() });

/**
 * `GET /api/v1/setup` (is setup still needed?) and `POST /api/v1/setup`: the setup link's token
 * creates the first owner and signs them in. Once an owner exists the token opens nothing and
 * the generated token file is removed.
 */
export function setupRoutes(deps: QueryDeps) {
  // one setup at a time in this process, so two tabs racing cannot create two first owners
  let queue: Promise<unknown> = Promise.resolve();
  return new Hono<AuthEnv>()
    .get('/setup', async (c) => c.json({ needed: !(await hasOwner(deps.control)) }))
    .post('/setup', async (c) => {
      const body = await readJson(c, SetupBody);
      const run = queue.then(async () => {
        if (await hasOwner(deps.control)) {
          setupToken(deps.config, deps.instance.paths, true);
          throw new AppError('forbidden', 'setup is already done: sign in instead');
        }
        const expected = setupToken(deps.config, deps.instance.paths, false);
        if (expected === undefined || !safeEqual(body.token, expected)) {
          throw new AppError('forbidden', 'the setup link is not valid (copy it again from the log)');
        }
        await deps.passwordChecks.password(checkKeys(c), async () => {
          await createPerson(deps.control, { email: body.email, password: body.password, role: 'owner' });
          return true;
        });
        setupToken(deps.config, deps.instance.paths, true);
        deps.logger.info('setup done: first owner created');
      });
      queue = run.catch(() => undefined);
      await run;
      const person = await findPersonByEmail(deps.control, body.email);
      if (!person) throw new Error('the owner created by setup is missing');
      return signedIn(c, person, 201);
    });
}

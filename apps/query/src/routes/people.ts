import { changeRole, createPerson, generatePassword, listPeople, removePerson } from '@footfall/control';
import { Hono } from 'hono';
import * as v from 'valibot';
import type { AuthEnv } from '../auth/env.ts';
import { readJson } from '../auth/json.ts';
import type { QueryDeps } from '../deps.ts';
import { personJson } from './views.ts';

const Role = v.picklist(['owner', 'viewer']);
const AddPerson = v.strictObject({
  email: v.pipe(v.string(), v.maxLength(254)),
  role: Role,
  password: v.optional(v.pipe(v.string(), v.maxLength(1000))),
});
const ChangeRole = v.strictObject({ role: Role });

/**
 * People of the instance (owners only). A new person gets the password given or a generated one
 * (answered once as `password`); either way they choose their own at the first sign-in. The last
 * owner can be neither removed nor made a viewer (409).
 */
export function peopleRoutes(deps: QueryDeps) {
  const ctl = deps.control;
  return new Hono<AuthEnv>()
    .get('/people', async (c) => c.json({ people: (await listPeople(ctl)).map(personJson) }))
    .post('/people', async (c) => {
      const body = await readJson(c, AddPerson);
      const password = body.password ?? generatePassword();
      const person = await createPerson(ctl, {
        email: body.email,
        password,
        role: body.role,
        mustChangePassword: true,
      });
      return c.json(
        { person: personJson(person), ...(body.password === undefined ? { password } : {}) },
        201,
      );
    })
    .patch('/people/:id', async (c) => {
      const body = await readJson(c, ChangeRole);
      return c.json({ person: personJson(await changeRole(ctl, c.req.param('id'), body.role)) });
    })
    .delete('/people/:id', async (c) => {
      await removePerson(ctl, c.req.param('id'));
      return c.body(null, 204);
    });
}

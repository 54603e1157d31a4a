import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type AccountsApp, type Agent, accountsApp, PASSWORD } from '../accounts/harness.ts';

/** Notes on a site's chart through the API: owners write, edit and delete; viewers and keys read. */
let h: AccountsApp;
let owner: Agent;
let viewer: Agent;
let site: string;
let key: string;

beforeAll(async () => {
  h = await accountsApp();
  owner = await h.setup('owner@example.com');
  site = (
    (await (
      await h.call('POST', '/api/v1/sites', { body: { domain: 'notes.example' }, agent: owner })
    ).json()) as {
      site: { id: string };
    }
  ).site.id;
  viewer = await h.addViewer(owner);
  key = (
    (await (await h.call('POST', '/api/v1/api-keys', { body: { name: 'k' }, agent: owner })).json()) as {
      key: string;
    }
  ).key;
});
afterAll(() => h.cleanup());

const base = () => `/api/v1/sites/${site}/annotations`;
interface Note {
  id: string;
  date: string;
  end_date: string | null;
  text: string;
  author: { id: string; email: string } | null;
}

describe('notes', () => {
  it('lets an owner write, edit and delete a note, carrying its author, and others read it', async () => {
    const made = await h.call('POST', base(), {
      body: { date: '2026-11-20', text: '  Launched on Hacker News ' },
      agent: owner,
    });
    expect(made.status).toBe(201);
    const note = ((await made.json()) as { annotation: Note }).annotation;
    expect(note).toMatchObject({
      date: '2026-11-20',
      end_date: null,
      text: 'Launched on Hacker News',
      author: { email: 'owner@example.com' },
    });
    const span = await h.call('POST', base(), {
      body: { date: '2026-11-01', end_date: '2026-11-07', text: 'Autumn sale' },
      agent: owner,
    });
    expect(span.status).toBe(201);
    for (const reader of [{ agent: viewer }, { bearer: key }]) {
      const listed = await h.call('GET', `${base()}?from=2026-11-05&to=2026-11-30`, reader);
      expect(listed.status).toBe(200);
      const notes = ((await listed.json()) as { annotations: Note[] }).annotations;
      // the span reaches into the range, so it is listed; by day
      expect(notes.map((n) => n.text)).toEqual(['Autumn sale', 'Launched on Hacker News']);
    }
    const outside = await h.call('GET', `${base()}?from=2026-11-08&to=2026-11-19`, { agent: viewer });
    expect(((await outside.json()) as { annotations: Note[] }).annotations).toEqual([]);

    const edited = await h.call('PATCH', `${base()}/${note.id}`, {
      body: { text: 'Launched on HN (front page)', end_date: '2026-11-21' },
      agent: owner,
    });
    expect(edited.status).toBe(200);
    expect(((await edited.json()) as { annotation: Note }).annotation).toMatchObject({
      text: 'Launched on HN (front page)',
      end_date: '2026-11-21',
      author: { email: 'owner@example.com' },
    });
    const oneDay = await h.call('PATCH', `${base()}/${note.id}`, { body: { end_date: null }, agent: owner });
    expect(((await oneDay.json()) as { annotation: Note }).annotation.end_date).toBeNull();

    // viewers and keys read only
    for (const writer of [{ agent: viewer }, { bearer: key }]) {
      const refused = await h.call('PATCH', `${base()}/${note.id}`, { body: { text: 'x' }, ...writer });
      expect(refused.status).toBe(403);
    }
    expect((await h.call('DELETE', `${base()}/${note.id}`, { agent: owner })).status).toBe(204);
    expect((await h.call('DELETE', `${base()}/${note.id}`, { agent: owner })).status).toBe(404);
  });

  it('refuses a bad day, an end before the start, empty or long text, and unknown parameters', async () => {
    const refusal = async (body: unknown) => {
      const res = await h.call('POST', base(), { body, agent: owner });
      expect(res.status).toBe(400);
      return ((await res.json()) as { field?: string }).field;
    };
    expect(await refusal({ date: '2026-02-30', text: 'x' })).toBe('date');
    expect(await refusal({ date: '26-11-20', text: 'x' })).toBe('date');
    expect(await refusal({ date: '2026-11-20', end_date: '2026-11-20', text: 'x' })).toBe('end_date');
    expect(await refusal({ date: '2026-11-20', text: '   ' })).toBe('text');
    expect(await refusal({ date: '2026-11-20', text: 'x'.repeat(501) })).toBe('text');
    expect(await refusal({ date: '2026-11-20', text: 'x', author: 'someone' })).toBe('author');
    const param = await h.call('GET', `${base()}?from=yesterday`, { agent: owner });
    expect(param.status).toBe(400);
    expect((await param.json()) as { code: string; field: string }).toMatchObject({
      code: 'invalid_parameter',
      field: 'from',
    });
    expect((await h.call('GET', `${base()}?zz=1`, { agent: owner })).status).toBe(400);
    // another site's note, or a site the caller cannot see: not found
    expect((await h.call('GET', '/api/v1/sites/nosuchsite/annotations', { agent: owner })).status).toBe(404);
  });

  it('keeps a note when its author is removed, without the author', async () => {
    const second = await h.call('POST', '/api/v1/people', {
      body: { email: 'second@example.com', role: 'owner', password: PASSWORD },
      agent: owner,
    });
    const person = ((await second.json()) as { person: { id: string } }).person.id;
    h.control.raw.prepare('UPDATE people SET must_change_password = 0').run();
    const other = await h.signIn('second@example.com');
    const made = await h.call('POST', base(), {
      body: { date: '2026-10-01', text: 'by the second owner' },
      agent: other,
    });
    const note = ((await made.json()) as { annotation: Note }).annotation;
    expect((await h.call('DELETE', `/api/v1/people/${person}`, { agent: owner })).status).toBe(204);
    const listed = await h.call('GET', base(), { agent: owner });
    const kept = ((await listed.json()) as { annotations: Note[] }).annotations.find((n) => n.id === note.id);
    expect(kept).toMatchObject({ text: 'by the second owner', author: null });
  });
});

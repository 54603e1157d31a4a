import { useState } from 'preact/hooks';
import { api, type Schema, unwrap } from '../api/client.ts';
import { ErrorNote, Field, Spinner } from '../components/ui.tsx';
import { useLoad } from '../components/use-load.ts';
import { useSubmit } from '../components/use-submit.ts';

type Goal = Schema<'Goal'>;

const describe = (g: Goal) =>
  g.kind === 'page'
    ? `a page matching ${g.match}`
    : `the event ${g.match}${g.prop ? ` with ${g.prop.key} = ${g.prop.value}` : ''}`;

/**
 * A site's goals (owners): the list, a form for a new one (a page path where * matches anything,
 * or a custom event, optionally with one property value), and deleting one. The report counts
 * each goal's conversions.
 */
export function GoalSettings({ site }: { site: string }) {
  const list = useLoad(
    (signal) => unwrap(api.GET('/api/v1/sites/{site}/goals', { signal, params: { path: { site } } })),
    [site],
  );
  const [name, setName] = useState('');
  const [kind, setKind] = useState<'page' | 'event'>('page');
  const [match, setMatch] = useState('');
  const [propKey, setPropKey] = useState('');
  const [propValue, setPropValue] = useState('');
  const [removeError, setRemoveError] = useState<unknown>();
  const add = useSubmit(async () => {
    await unwrap(
      api.POST('/api/v1/sites/{site}/goals', {
        params: { path: { site } },
        body: {
          name,
          kind,
          match,
          prop: kind === 'event' && propKey.trim() ? { key: propKey.trim(), value: propValue } : null,
        },
      }),
    );
    setName('');
    setMatch('');
    setPropKey('');
    setPropValue('');
    list.reload();
  });
  const remove = async (g: Goal) => {
    setRemoveError(undefined);
    try {
      await unwrap(api.DELETE('/api/v1/sites/{site}/goals/{id}', { params: { path: { site, id: g.id } } }));
      list.reload();
    } catch (e) {
      setRemoveError(e);
    }
  };
  return (
    <div class="stack">
      <ErrorNote error={list.error ?? removeError} />
      {!list.data && !list.error && <Spinner />}
      {list.data && list.data.goals.length === 0 && (
        <p class="muted">No goal yet. The report counts the visitors who reach each goal, and their share.</p>
      )}
      {list.data && list.data.goals.length > 0 && (
        <ul class="goal-list">
          {list.data.goals.map((g) => (
            <li key={g.id}>
              <span>
                <strong>{g.name}</strong> <span class="muted">{describe(g)}</span>
              </span>
              <button type="button" class="button small" onClick={() => remove(g)}>
                Delete<span class="visually-hidden"> the goal {g.name}</span>
              </button>
            </li>
          ))}
        </ul>
      )}
      <form class="form-narrow" onSubmit={add.submit} aria-label="New goal">
        <Field label="Name of the goal">
          {(id) => (
            <input id={id} value={name} maxLength={120} onInput={(e) => setName(e.currentTarget.value)} />
          )}
        </Field>
        <fieldset class="row choice">
          <legend>Reached by</legend>
          <label class="check">
            <input type="radio" name="goal-kind" checked={kind === 'page'} onChange={() => setKind('page')} />
            <span>a page view</span>
          </label>
          <label class="check">
            <input
              type="radio"
              name="goal-kind"
              checked={kind === 'event'}
              onChange={() => setKind('event')}
            />
            <span>a custom event</span>
          </label>
        </fieldset>
        <Field
          label={kind === 'page' ? 'Page path' : 'Event name'}
          hint={kind === 'page' ? '* matches anything: /thanks, /blog/*' : 'as the tracker sends it: Signup'}
        >
          {(id, describedBy) => (
            <input
              id={id}
              aria-describedby={describedBy}
              value={match}
              spellcheck={false}
              onInput={(e) => setMatch(e.currentTarget.value)}
            />
          )}
        </Field>
        {kind === 'event' && (
          <div class="field-row">
            <Field label="Property (optional)">
              {(id) => (
                <input
                  id={id}
                  value={propKey}
                  spellcheck={false}
                  onInput={(e) => setPropKey(e.currentTarget.value)}
                />
              )}
            </Field>
            <Field label="Value">
              {(id) => (
                <input
                  id={id}
                  value={propValue}
                  spellcheck={false}
                  disabled={!propKey.trim()}
                  onInput={(e) => setPropValue(e.currentTarget.value)}
                />
              )}
            </Field>
          </div>
        )}
        <ErrorNote error={add.error} />
        <button class="button primary" type="submit" disabled={add.busy || !name.trim() || !match.trim()}>
          Add the goal
        </button>
      </form>
    </div>
  );
}

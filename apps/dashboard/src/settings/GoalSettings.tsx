import { useState } from 'preact/hooks';
import { api, type Schema, unwrap } from '../api/client.ts';
import { ErrorNote, Field, Spinner } from '../components/ui.tsx';
import { useLoad } from '../components/use-load.ts';
import { useSubmit } from '../components/use-submit.ts';
import { t } from '../i18n/siteSettings.ts';

type Goal = Schema<'Goal'>;

const describe = (g: Goal) =>
  g.kind === 'page'
    ? t('goalPage', { match: g.match })
    : g.prop
      ? t('goalEventWithProp', { match: g.match, key: g.prop.key, value: g.prop.value })
      : t('goalEvent', { match: g.match });

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
      {list.data && list.data.goals.length === 0 && <p class="muted">{t('noGoalYet')}</p>}
      {list.data && list.data.goals.length > 0 && (
        <ul class="goal-list">
          {list.data.goals.map((g) => (
            <li key={g.id}>
              <span>
                <strong>{g.name}</strong> <span class="muted">{describe(g)}</span>
              </span>
              <button type="button" class="button small" onClick={() => remove(g)}>
                {t('delete')}
                <span class="visually-hidden">{t('deleteGoalHidden', { name: g.name })}</span>
              </button>
            </li>
          ))}
        </ul>
      )}
      <form class="form-narrow" onSubmit={add.submit} aria-label={t('newGoal')}>
        <Field label={t('goalName')}>
          {(id) => (
            <input id={id} value={name} maxLength={120} onInput={(e) => setName(e.currentTarget.value)} />
          )}
        </Field>
        <fieldset class="row choice">
          <legend>{t('reachedBy')}</legend>
          <label class="check">
            <input type="radio" name="goal-kind" checked={kind === 'page'} onChange={() => setKind('page')} />
            <span>{t('aPageView')}</span>
          </label>
          <label class="check">
            <input
              type="radio"
              name="goal-kind"
              checked={kind === 'event'}
              onChange={() => setKind('event')}
            />
            <span>{t('aCustomEvent')}</span>
          </label>
        </fieldset>
        <Field
          label={kind === 'page' ? t('pagePath') : t('eventName')}
          hint={kind === 'page' ? t('pagePathHint') : t('eventNameHint')}
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
            <Field label={t('propertyOptional')}>
              {(id) => (
                <input
                  id={id}
                  value={propKey}
                  spellcheck={false}
                  onInput={(e) => setPropKey(e.currentTarget.value)}
                />
              )}
            </Field>
            <Field label={t('value')}>
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
          {t('addGoal')}
        </button>
      </form>
    </div>
  );
}

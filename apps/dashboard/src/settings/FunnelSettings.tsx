import { useState } from 'preact/hooks';
import { api, type Schema, unwrap } from '../api/client.ts';
import { ConfirmAction, ErrorNote, Field, InputField, Spinner } from '../components/ui.tsx';
import { useLoad } from '../components/use-load.ts';
import { useSubmit } from '../components/use-submit.ts';
import { t } from '../i18n/siteSettings.ts';

type Funnel = Schema<'Funnel'>;
type StepInput = { kind: 'page' | 'event'; match: string };

const stepWords = (s: Funnel['steps'][number]) =>
  s.kind === 'page' ? s.match : t('stepEvent', { match: s.match });

/**
 * A site's funnels (owners): the list with each one's steps, deleting one, and a form for a new one:
 * a name, 2 to 8 ordered steps (a page path where * matches anything, or a custom event), and
 * whether they count within one visit or within a number of days.
 */
export function FunnelSettings({ site }: { site: string }) {
  const list = useLoad(
    (signal) => unwrap(api.GET('/api/v1/sites/{site}/funnels', { signal, params: { path: { site } } })),
    [site],
  );
  const [name, setName] = useState('');
  const [steps, setSteps] = useState<StepInput[]>([
    { kind: 'page', match: '' },
    { kind: 'page', match: '' },
  ]);
  const [days, setDays] = useState('');
  const [removing, setRemoving] = useState(false);
  const [removeError, setRemoveError] = useState<unknown>();
  const add = useSubmit(async () => {
    await unwrap(
      api.POST('/api/v1/sites/{site}/funnels', {
        params: { path: { site } },
        body: { name, steps, within_days: days.trim() ? Number(days) : null },
      }),
    );
    setName('');
    setSteps([
      { kind: 'page', match: '' },
      { kind: 'page', match: '' },
    ]);
    setDays('');
    list.reload();
  });
  const remove = async (f: Funnel) => {
    setRemoving(true);
    setRemoveError(undefined);
    try {
      await unwrap(api.DELETE('/api/v1/sites/{site}/funnels/{id}', { params: { path: { site, id: f.id } } }));
      list.reload();
    } catch (e) {
      setRemoveError(e);
    } finally {
      setRemoving(false);
    }
  };
  const setStep = (i: number, change: Partial<StepInput>) =>
    setSteps(steps.map((s, k) => (k === i ? { ...s, ...change } : s)));
  return (
    <div class="stack">
      <ErrorNote error={list.error ?? removeError} />
      {!list.data && !list.error && <Spinner />}
      {list.data && list.data.funnels.length === 0 && <p class="muted">{t('noFunnelYet')}</p>}
      {list.data && list.data.funnels.length > 0 && (
        <ul class="goal-list">
          {list.data.funnels.map((f) => (
            <li key={f.id}>
              <span>
                <strong>{f.name}</strong>{' '}
                <span class="muted">
                  {t('funnelSteps', {
                    steps: f.steps.map(stepWords).join(' → '),
                    within:
                      f.within_days === null
                        ? t('withinOneVisit')
                        : t('withinDays', { count: f.within_days }),
                  })}
                </span>
              </span>
              <ConfirmAction
                ask={t('deleteAsk')}
                askLabel={t('deleteFunnel', { name: f.name })}
                confirm={t('delete')}
                busy={removing}
                onConfirm={() => void remove(f)}
              />
            </li>
          ))}
        </ul>
      )}
      <form class="form-narrow" onSubmit={add.submit} aria-label={t('newFunnel')}>
        <InputField label={t('funnelName')} value={name} onValue={setName} maxLength={120} />
        <fieldset class="funnel-edit">
          <legend>{t('stepsInOrder')}</legend>
          <ol class="stack">
            {steps.map((s, i) => (
              <li class="row" key={i}>
                <Field label={t('stepNumber', { number: i + 1 })}>
                  {(id) => (
                    <span class="row">
                      <select
                        aria-label={t('stepNumberIs', { number: i + 1 })}
                        value={s.kind}
                        onChange={(e) => setStep(i, { kind: e.currentTarget.value as StepInput['kind'] })}
                      >
                        <option value="page">{t('aPage')}</option>
                        <option value="event">{t('aCustomEvent')}</option>
                      </select>
                      <input
                        id={id}
                        value={s.match}
                        spellcheck={false}
                        placeholder={s.kind === 'page' ? '/pricing' : t('eventExample')}
                        onInput={(e) => setStep(i, { match: e.currentTarget.value })}
                      />
                    </span>
                  )}
                </Field>
                {steps.length > 2 && (
                  <button
                    type="button"
                    class="button small secondary"
                    onClick={() => setSteps(steps.filter((_, k) => k !== i))}
                  >
                    {t('remove')}
                    <span class="visually-hidden">{t('removeStepHidden', { number: i + 1 })}</span>
                  </button>
                )}
              </li>
            ))}
          </ol>
          {steps.length < 8 && (
            <button
              type="button"
              class="button small secondary"
              onClick={() => setSteps([...steps, { kind: 'page', match: '' }])}
            >
              {t('addStep')}
            </button>
          )}
        </fieldset>
        <InputField
          label={t('withinDaysOptional')}
          hint={t('withinDaysHint')}
          inputMode="numeric"
          value={days}
          onValue={setDays}
          maxLength={2}
        />
        <ErrorNote error={add.error} />
        <button
          class="button primary"
          type="submit"
          disabled={add.busy || !name.trim() || steps.some((s) => !s.match.trim())}
        >
          {t('addFunnel')}
        </button>
      </form>
    </div>
  );
}

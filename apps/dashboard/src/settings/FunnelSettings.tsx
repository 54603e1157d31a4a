import { useState } from 'preact/hooks';
import { api, type Schema, unwrap } from '../api/client.ts';
import { ConfirmAction, ErrorNote, Field, InputField, Spinner } from '../components/ui.tsx';
import { useLoad } from '../components/use-load.ts';
import { useSubmit } from '../components/use-submit.ts';

type Funnel = Schema<'Funnel'>;
type StepInput = { kind: 'page' | 'event'; match: string };

const stepWords = (s: Funnel['steps'][number]) => (s.kind === 'page' ? s.match : `event ${s.match}`);

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
      {list.data && list.data.funnels.length === 0 && (
        <p class="muted">No funnel yet. The report shows how many visitors go through each step, in order.</p>
      )}
      {list.data && list.data.funnels.length > 0 && (
        <ul class="goal-list">
          {list.data.funnels.map((f) => (
            <li key={f.id}>
              <span>
                <strong>{f.name}</strong>{' '}
                <span class="muted">
                  {f.steps.map(stepWords).join(' → ')} (
                  {f.within_days === null ? 'one visit' : `${f.within_days} days`})
                </span>
              </span>
              <ConfirmAction
                ask="Delete…"
                askLabel={`Delete the funnel ${f.name}`}
                confirm="Delete"
                busy={removing}
                onConfirm={() => void remove(f)}
              />
            </li>
          ))}
        </ul>
      )}
      <form class="form-narrow" onSubmit={add.submit} aria-label="New funnel">
        <InputField label="Name of the funnel" value={name} onValue={setName} maxLength={120} />
        <fieldset class="funnel-edit">
          <legend>Steps, in order</legend>
          <ol class="stack">
            {steps.map((s, i) => (
              <li class="row" key={i}>
                <Field label={`Step ${i + 1}`}>
                  {(id) => (
                    <span class="row">
                      <select
                        aria-label={`Step ${i + 1} is`}
                        value={s.kind}
                        onChange={(e) => setStep(i, { kind: e.currentTarget.value as StepInput['kind'] })}
                      >
                        <option value="page">a page</option>
                        <option value="event">a custom event</option>
                      </select>
                      <input
                        id={id}
                        value={s.match}
                        spellcheck={false}
                        placeholder={s.kind === 'page' ? '/pricing' : 'Signup'}
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
                    Remove<span class="visually-hidden"> step {i + 1}</span>
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
              Add a step
            </button>
          )}
        </fieldset>
        <InputField
          label="Within days (optional)"
          hint="empty: every step in one visit; a number from 1 to 90: across visits, from the first step"
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
          Add the funnel
        </button>
      </form>
    </div>
  );
}
